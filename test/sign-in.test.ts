// kb serve's Gate: who a request signs in as, and the keys of a viewer's frame (issue 50).
import type { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Gate, type Session } from '../src/cli/serve/sign-in.js';

const OWNER = 'owner-token-'.padEnd(43, 'x');
const ALICE = `kb_${'a'.repeat(12)}_${'A'.repeat(43)}`;

/** A request as node's http server hands it: headers and the peer's address. */
const request = (headers: Record<string, string> = {}): IncomingMessage =>
  ({ headers, socket: { remoteAddress: '127.0.0.1' } }) as unknown as IncomingMessage;

afterEach(() => vi.useRealTimers());

describe("a viewer frame's keys", () => {
  it('open one document for the session that asked, for an hour, and stop with its token', async () => {
    const tokens = new Map([[ALICE, 'alice']]);
    const gate = new Gate(
      OWNER,
      async (t) => tokens.get(t) ?? null,
      () => '127.0.0.1',
    );
    const alice: Session = { caller: { token: ALICE }, user: 'alice', token: ALICE };
    const key = gate.viewKey('doc-a', alice);
    const view = (doc: string, k: string): Promise<unknown> => gate.signIn(request(), new URL(`http://x/doc/${doc}/view?k=${k}`), doc);

    // Alice's, for doc-a only; it never becomes a session cookie (no token in it).
    expect(await view('doc-a', key)).toEqual({ session: { caller: { token: ALICE }, user: 'alice', token: null } });
    expect(await view('doc-b', key)).toEqual({ refused: 'unknown' });
    expect(await view('doc-a', 'f'.repeat(32))).toEqual({ refused: 'unknown' });

    // A key made before the token was replaced opens nothing after it.
    const before = gate.viewKey('doc-a', alice);
    tokens.delete(ALICE);
    expect(await view('doc-a', before)).toEqual({ refused: 'unknown' });

    // An hour on, a key is spent.
    const owner: Session = { user: null, token: OWNER };
    vi.useFakeTimers({ now: Date.now() });
    const owners = gate.viewKey('doc-a', owner);
    expect(await view('doc-a', owners)).toEqual({ session: { user: null, token: null } });
    vi.setSystemTime(Date.now() + 61 * 60_000);
    expect(await view('doc-a', owners)).toEqual({ refused: 'unknown' });
  });
});

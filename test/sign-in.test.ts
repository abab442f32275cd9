// kb serve's Gate: who a request signs in as, and the keys of a viewer's frame (issue 50).
import type { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ServerMessage } from '../src/shared/api.js';
import { Gate, type Session } from '../src/cli/serve/sign-in.js';
import { forTeamUser } from '../src/cli/serve/team-events.js';

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

describe("what a team user's page hears of the engine (issue 50)", () => {
  it('never its data dir or its database address: a restart is said without them; unnamed events are not heard', () => {
    const event = (event: string, data: unknown): ServerMessage => ({ type: 'event', event, data }) as ServerMessage;
    expect(forTeamUser(event('ready', { data_dir: '/srv/kb/data' }))).toEqual(event('ready', { data_dir: '' }));
    const failed = forTeamUser(
      event('failed', { code: 'STORE_UNAVAILABLE', message: 'cannot reach the PostgreSQL server at postgresql://kb:***@10.0.0.5:5432/kb' }),
    );
    expect(JSON.stringify(failed)).not.toMatch(/10\.0\.0\.5|postgresql/);
    expect(failed).toMatchObject({ event: 'failed', data: { code: 'STORE_UNAVAILABLE' } });
    expect(forTeamUser(event('collections', { path: '/srv/private/secret.md' }))).toEqual(event('changed', {}));
    expect(forTeamUser(event('background', { task: 'ocr' }))).toBeNull();
    expect(forTeamUser(event('app:ingest', { paths: ['/srv/x'] }))).toBeNull();
    expect(forTeamUser(event('engine', { state: 'restarting', in_ms: 500 }))).toEqual(event('engine', { state: 'restarting', in_ms: 500 }));
  });
});

describe('one account guessed from many addresses (issue 50)', () => {
  it('is limited after ten failures, but its own token, proven here before, still signs in', async () => {
    const tokens = new Map([[ALICE, 'alice']]);
    const gate = new Gate(
      OWNER,
      async (t) => tokens.get(t) ?? null,
      (req) => String(req.headers['x-from']),
    );
    const signIn = (token: string, from: number): Promise<unknown> =>
      gate.signIn(request({ authorization: `Bearer ${token}`, 'x-from': `203.0.113.${from}` }), new URL('http://x/'), null);
    expect(await signIn(ALICE, 1)).toMatchObject({ session: { user: 'alice' } });
    const guess = `kb_${'a'.repeat(12)}_${'B'.repeat(43)}`;
    for (let i = 0; i < 10; i++) expect(await signIn(guess, 10 + i)).toEqual({ refused: 'unknown' });
    expect(await signIn(guess, 99)).toEqual({ refused: 'limited' });
    // Alice, from an address of her own, is not locked out by someone who saw her token's id.
    expect(await signIn(ALICE, 2)).toMatchObject({ session: { user: 'alice' } });
  });
});

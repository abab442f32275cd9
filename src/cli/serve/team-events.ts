// What the engine pushes to every open page, as a team's user may hear it, and how a page learns its
// user was signed out. The owner's pages hear everything.
import type { WebSocket } from 'ws';
import type { Caller, ServerMessage } from '../../shared/api.js';
import { ErrorPayloadSchema } from '../../shared/errors.js';
import { SIGNED_OUT_CLOSE } from '../../shared/rpc-client.js';

/** How often open pages' accounts are looked at again. */
const SIGNED_OUT_CHECK_MS = 3_000;

/**
 * What a team's user hears of the engine's events, event by event (a new one is heard by no one until
 * it is named here): nothing that names another collection's files, counts its work, or says where
 * the server keeps its data or its database. A watched folder's changes become a bare `changed` (the
 * page asks again, under its own rights); background work (OCR, embedding of everyone's files) is not
 * theirs to watch; the engine opening, or failing to, is said without its data dir or its store's
 * address (a found hole: a restart told every reader both).
 */
export function forTeamUser(m: ServerMessage): ServerMessage | null {
  if (m.type !== 'event') return m;
  switch (m.event) {
    case 'collections':
      return { type: 'event', event: 'changed', data: {} };
    case 'ready':
      return { type: 'event', event: 'ready', data: { data_dir: '' } };
    case 'failed':
      return {
        type: 'event',
        event: 'failed',
        data: {
          code: ErrorPayloadSchema.safeParse(m.data).data?.code ?? 'STORE_UNAVAILABLE',
          message: "the server's index cannot be opened now: its admin is told",
        },
      };
    case 'engine':
    case 'changed':
      return m;
    default:
      return null;
  }
}

/**
 * Closes, within moments and saying why, each page whose account was removed or whose token was
 * replaced (on any server of the store: the account is read each time). Returns the stop.
 */
export function closeSignedOut(
  pages: ReadonlyMap<WebSocket, Caller | undefined>,
  whoami: (caller: Caller) => Promise<unknown>,
): () => void {
  const timer = setInterval(() => {
    for (const [ws, caller] of pages) {
      if (!caller || !('token' in caller)) continue;
      whoami(caller).catch((e: unknown) => {
        if (e instanceof Error && (e as { code?: string }).code === 'UNAUTHENTICATED')
          ws.close(SIGNED_OUT_CLOSE, 'signed out: the account was removed or its token replaced');
      });
    }
  }, SIGNED_OUT_CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}

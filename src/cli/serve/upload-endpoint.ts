// POST /upload?name=<relative path>[&collection=<name>]: a file dropped in the browser, received
// (uploads.ts) into the folder it goes to — a team's user into a collection they may write (its
// folder's uploads/), the owner into the data dir's uploads/ unless they name one — out of the
// sender's daily quota. Only from kb's own origin: no other page can post files even with the cookie.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { Method, Params, Result } from '../../shared/api.js';
import { KbError, toErrorPayload } from '../../shared/errors.js';
import type { Session } from './sign-in.js';
import { receiveUpload } from './uploads.js';

/** The machine's owner: what kb serve asks for itself. */
const OWNER: Session = { user: null, token: null };

export interface UploadHost {
  dataDir: string;
  originOk: (req: IncomingMessage) => boolean;
  /** Asks the engine for whom the session is (none: the owner). */
  ask: <M extends Method>(session: Session, method: M, params: Params<M>) => Promise<Result<M>>;
  /** serve.upload_quota: megabytes a team's user may drop in a day (0: no limit). */
  quotaMb: number;
}

export function uploadEndpoint(host: UploadHost): (session: Session, req: IncomingMessage, url: URL, res: ServerResponse) => Promise<void> {
  const { dataDir, originOk, ask, quotaMb } = host;
  /** A team user's drops come out of their daily quota, a chunk at a time (so parallel drops share it); the owner's do not. */
  const quota = new RateLimiterMemory({ points: Math.max(1, quotaMb * 1_000_000), duration: 24 * 3600 });
  const spending =
    (session: Session) =>
    async (bytes: number): Promise<void> => {
      if (session.user === null || quotaMb === 0) return;
      await quota.consume(session.user, bytes).catch(() => {
        throw new KbError(
          'TOO_LARGE',
          `you have dropped ${quotaMb} MB today, this server's limit (serve.upload_quota): ask its admin, or add the files to a folder it syncs`,
        );
      });
    };
  /** Where the drop goes, and how its sender names that folder (a team's user: /<collection>, worker/accounts/team-paths.ts). */
  const folder = async (session: Session, collection: string | null): Promise<{ into: string; root: string; shownAs: string }> => {
    if (!collection) {
      if (session.caller)
        throw new KbError('INVALID_ARGUMENT', 'say which collection the files go into (?collection=NAME): one you may add to');
      return { into: join(dataDir, 'uploads'), root: dataDir, shownAs: dataDir };
    }
    const { collections } = await ask(session, 'collections.list', {});
    const c = collections.find((x) => x.name === collection);
    if (!c) throw new KbError('NOT_FOUND', `no collection named ${collection} that you can see`);
    if (!c.writable) throw new KbError('FORBIDDEN', `you may read ${collection} but not add to it: ask an admin to make you its editor`);
    // Where its folder is, the server knows (a team's user is not told: read/team-view.ts).
    const root = session.caller ? (await ask(OWNER, 'collections.list', {})).collections.find((x) => x.name === collection)?.root : c.root;
    if (!root) throw new KbError('NOT_FOUND', `no collection named ${collection}`);
    return { into: join(root, 'uploads'), root, shownAs: session.caller ? `/${collection}` : root };
  };
  return async (session, req, url, res) => {
    if (req.method !== 'POST' || !originOk(req)) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end("uploads are accepted only from kb's own page\n");
      return;
    }
    try {
      const { into, root, shownAs } = await folder(session, url.searchParams.get('collection'));
      const file = await receiveUpload(req, into, url.searchParams.get('name') ?? '', spending(session));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ path: shownAs + file.slice(root.length) }));
    } catch (e) {
      const p = toErrorPayload(e);
      const status =
        { INVALID_ARGUMENT: 400, FORBIDDEN: 403, NOT_FOUND: 404, UNAUTHENTICATED: 401, TOO_LARGE: 413 }[p.code as string] ?? 500;
      req.resume(); // the body unread: let the client finish sending before it hears why
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: p }));
    }
  };
}

// Who is asking kb serve. The token it printed (the data dir's, serve-token) is the machine's owner:
// every call theirs, as in the app. On a shared store a team's users bring their own tokens (kb users
// add), in `Authorization: Bearer …`, `?token=` (the first page load, the WebSocket) or the cookie the
// first load set; each request is sent to the engine with the token, which checks it every time, so a
// replaced token or a removed user stops at once. Failed sign-ins are counted per address (behind a
// proxy the admin named, the one it forwards) and per token id and, past a few, refused for a while
// without asking anyone. A viewer frame's links carry a key instead (the sandboxed frame has no
// cookie): random, for one document and the session that asked, for an hour, and only while its
// token still signs its user in.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { IncomingMessage } from 'node:http';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { Caller } from '../../shared/api.js';
import { KbError } from '../../shared/errors.js';

/** Who a request signed in as. */
export interface Session {
  /** Whom the engine is asked for: none for the owner. */
  caller?: Caller;
  /** The user's name, null for the owner. */
  user: string | null;
  /** The token to keep in the cookie (none when a view key signed the request in). */
  token: string | null;
}

/** A session, or why there is none: an unknown token or key, or an address that failed too often. */
export type SignIn = { session: Session } | { refused: 'unknown' | 'limited' };

/** Failed sign-ins an address may make in FAIL_WINDOW_S before it waits that long. */
const FAILS_ALLOWED = 10;
const FAIL_WINDOW_S = 600;
/** How long a viewer frame's key opens its document's rendition. */
const VIEW_KEY_MS = 60 * 60_000;
/** A token the engine accepted is taken on trust this long for the page's own files (not its data). */
const KNOWN_FOR_MS = 10_000;

const digest = (token: string): string => createHash('sha256').update(token).digest('hex');

/** The public id of a user's token (`kb_<id>_<secret>`), as the failures' key: never an address. */
function tokenId(token: string): string | null {
  const id = /^kb_([0-9a-f]{12})_/.exec(token)?.[1];
  return id ? `token:${id}` : null;
}

function same(a: string | undefined, b: string): boolean {
  return a !== undefined && a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/** The token a request carries: the Authorization header, ?token=, or the cookie. */
export function tokenOf(req: IncomingMessage, url: URL): string | undefined {
  const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  return bearer ?? url.searchParams.get('token') ?? cookieTokenOf(req);
}

/** The session cookie for a token: never readable by a page's script, never sent by another site, Secure behind https. */
export function sessionCookie(token: string, secure: boolean): string {
  return `kb_token=${token}; HttpOnly; SameSite=Strict; Path=/${secure ? '; Secure' : ''}`;
}

/**
 * A linked token waiting for the person's yes (sign-in-page.ts switchPage), for five minutes, sent to
 * /sign-in only: the address bar never keeps it. Lax, so the page a link from elsewhere lands on
 * still has it (the redirect is part of that navigation).
 */
export function pendingCookie(token: string, secure: boolean): string {
  return `kb_pending=${token}; HttpOnly; SameSite=Lax; Path=/sign-in; Max-Age=300${secure ? '; Secure' : ''}`;
}

export const PENDING_CLEARED = 'kb_pending=; HttpOnly; SameSite=Lax; Path=/sign-in; Max-Age=0';

/** The linked token waiting to be confirmed, if any. */
export function pendingTokenOf(req: IncomingMessage): string | undefined {
  return /(?:^|;\s*)kb_pending=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
}

/** The token the session cookie holds, if any. */
export function cookieTokenOf(req: IncomingMessage): string | undefined {
  return /(?:^|;\s*)kb_token=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
}

export class Gate {
  private readonly fails = new RateLimiterMemory({ points: FAILS_ALLOWED, duration: FAIL_WINDOW_S });
  private readonly known = new Map<string, { user: string; until: number }>();
  /** Each token id's token that last signed in here, as a digest: it passes its id's limit. */
  private readonly proven = new LRUCache<string, string>({ max: 10_000 });
  private readonly views = new LRUCache<string, { docId: string; session: Session; until: number }>({ max: 20_000 });

  constructor(
    private readonly ownerToken: string,
    /** The engine's answer for a user's token: their name, or null when it knows no such token. */
    private readonly whoHas: (token: string) => Promise<string | null>,
    /** The address a request came from (behind a proxy, the one it forwarded). */
    private readonly addressOf: (req: IncomingMessage) => string,
  ) {}

  /**
   * A key that opens one document's rendition for the session that asked, and nothing else: random,
   * kept here for VIEW_KEY_MS, and good only while the token that made it still signs its user in —
   * a replaced token or a removed user takes their keys along.
   */
  viewKey(docId: string, session: Session): string {
    const key = randomBytes(16).toString('hex');
    this.views.set(key, { docId, session, until: Date.now() + VIEW_KEY_MS });
    return key;
  }

  /** The session a view key stands for, on this document, while it is good. */
  private async viewed(docId: string, key: string | null): Promise<Session | null> {
    const v = key ? this.views.get(key) : undefined;
    if (!v || v.docId !== docId || v.until < Date.now()) return null;
    const token = v.session.token;
    if (v.session.user !== null && (!token || (await this.user(token, false)) !== v.session.user)) {
      this.views.delete(key!);
      return null;
    }
    return { ...v.session, token: null };
  }

  /**
   * Who signs in with this request; `viewOf` is the document id when the path is a rendition. Only
   * for the page's own files (`recent`) is a token the engine accepted a moment ago taken again
   * unasked: a socket, a document or an upload asks each time.
   */
  async signIn(
    req: IncomingMessage,
    url: URL,
    viewOf: string | null,
    recent = false,
    /** The token typed into the sign-in page, in place of the request's own. */
    typed?: string,
  ): Promise<SignIn> {
    const address = this.addressOf(req);
    if ((await this.fails.get(address))?.remainingPoints === 0) return { refused: 'limited' };
    const token = typed ?? tokenOf(req, url);
    if (same(token, this.ownerToken)) return { session: { user: null, token: this.ownerToken } };
    // One account's token guessed from many addresses is limited too — but not the account's own:
    // a token that signed in on this server before still does (else anyone who saw the id, which is
    // public, could lock its user out — a found hole).
    const id = token ? tokenId(token) : null;
    if (id && token && (await this.fails.get(id))?.remainingPoints === 0 && this.proven.get(id) !== digest(token))
      return { refused: 'limited' };
    if (token && /^kb_/.test(token)) {
      const user = await this.user(token, recent);
      if (user) return { session: { caller: { token }, user, token } };
    } else if (viewOf) {
      const viewed = await this.viewed(viewOf, url.searchParams.get('k'));
      if (viewed) return { session: viewed };
    }
    if (token || url.searchParams.has('k')) await this.failed(address);
    if (id) await this.failed(id);
    return { refused: 'unknown' };
  }

  /** A sign-in that failed; past FAILS_ALLOWED in the window the address (or token id) is refused for a while. */
  async failed(key: string): Promise<void> {
    await this.fails.consume(key).catch(() => undefined);
  }

  private async user(token: string, recent: boolean): Promise<string | null> {
    const hit = this.known.get(token);
    if (recent && hit && hit.until > Date.now()) return hit.user;
    let user: string | null;
    try {
      user = await this.whoHas(token);
    } catch (e) {
      // UNSUPPORTED: a personal index has no accounts — such a token is no one's, and its failure counts.
      if (e instanceof KbError && (e.code === 'UNAUTHENTICATED' || e.code === 'UNSUPPORTED')) user = null;
      else throw e;
    }
    if (this.known.size > 1000) this.known.clear();
    if (user) {
      this.known.set(token, { user, until: Date.now() + KNOWN_FOR_MS });
      const id = tokenId(token);
      if (id) this.proven.set(id, digest(token));
    } else this.known.delete(token);
    return user;
  }
}

// Where a team's reader or editor sees a document: `/<collection>/<path inside it>`, never the server's
// own folders (issue 50). What kb answers them is rewritten on the way out — citations and their
// URIs, the Library's paths, inspect, an ingest's errors, a message naming a file — and what they name
// (a `get` target, an ingest's paths) must be a document id or a path in those terms, read back into
// the server's on the way in: any other path is refused as it was typed, so no answer ever tells
// which server folders are collections (a found hole: an error named the collection a guessed folder
// belonged to), nor where kb serve runs. A path glob or a Library filter they send is matched against
// the paths they see (inPathView, acting.ts). An admin signed in sees the server as it is.
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { pathToFileUri } from '../../shared/citation.js';
import { DOC_ID_CHARS } from '../../shared/doc-id.js';
import { KbError } from '../../shared/errors.js';
import { inPathView, type PathView } from '../acting.js';

export interface Place {
  name: string;
  root: string;
}

/** Params that name a document or file by its path (get, inspect, remove: `target`; ingest: `paths`). */
const PATH_PARAMS = new Set(['target', 'paths']);
/** A document id, with a citation's fragment or not: named without a path. */
const BY_ID = new RegExp(`^${DOC_ID_CHARS}(#.*)?$`, 's');

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export class TeamPaths implements PathView {
  /** Each server prefix (a root, its file-URI form, the data dir) → what a team user sees in its place. */
  private readonly shownAs = new Map<string, string>();
  private readonly prefixes: RegExp | null;
  private readonly byName: Map<string, string>;

  constructor(
    readonly places: readonly Place[],
    dataDir: string,
  ) {
    this.byName = new Map(places.map((p) => [p.name, p.root]));
    for (const p of places) {
      const shown = `/${p.name}`;
      this.shownAs.set(p.root, shown);
      // A root whose characters a URI escapes (a space) appears escaped in a citation's URI.
      const uriPath = pathToFileUri(p.root).slice('file://'.length);
      if (uriPath !== p.root) this.shownAs.set(uriPath, `/${encodeURIComponent(p.name)}`);
    }
    this.shownAs.set(dataDir, '');
    // Longest first, so a root inside another (or inside the data dir) is taken whole; a prefix ends
    // where a path segment does, so /srv/kb/handbook never eats /srv/kb/handbook2.
    const alternatives = [...this.shownAs.keys()].filter((k) => k.length > 1).sort((a, b) => b.length - a.length);
    // Where a path starts (a string's start, after a space, a quote, a bracket, `=`, or `file://`),
    // never inside another path: a drop named /srv/kb/handbook/x.md is kept as …/uploads/<hash>/srv/…,
    // which is no path of handbook's.
    this.prefixes = alternatives.length
      ? new RegExp(`(?<=^|[\\s"'(<\\[=,;]|file://)(${alternatives.map(escape).join('|')})(?=[/\\\\#?\\s"'),:;\\]>]|$)`, 'g')
      : null;
  }

  /** A server path, or any text naming one, as the team user sees it. */
  private text(s: string): string {
    if (!this.prefixes || !s.includes(sep)) return s;
    return s.replace(this.prefixes, (m) => this.shownAs.get(m) ?? m);
  }

  /** A document's path as the team user sees it (a glob or a filter of theirs is matched against it). */
  shownPath(path: string): string {
    return this.text(path);
  }

  /** An answer as the team user sees it: every string in it with the server's folders replaced. */
  shown<T>(value: T): T {
    return this.deep(value) as T;
  }

  private deep(v: unknown): unknown {
    if (typeof v === 'string') return this.text(v);
    if (Array.isArray(v)) return v.map((x) => this.deep(x));
    if (v instanceof Float32Array || v instanceof Uint8Array || v === null || typeof v !== 'object') return v;
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, this.deep(x)]));
  }

  /** A path (or citation, or glob) the team user names, as the server knows it; else unchanged. */
  meant(p: string): string {
    return this.translated(p) ?? p;
  }

  /** The server's path for one in the team user's terms; null when it is not one (a collection's root may be /<its name>). */
  private translated(p: string): string | null {
    // A citation's fragment follows the first #: in a URI the path's own # is escaped (%23).
    const uri = p.startsWith('file:///');
    const hash = p.indexOf('#');
    const head = hash < 0 ? p : p.slice(0, hash);
    const fragment = hash < 0 ? '' : p.slice(hash);
    let path: string;
    try {
      path = uri ? decodeURIComponent(head.slice('file://'.length)) : head;
    } catch {
      return null; // a malformed escape names nothing
    }
    const m = /^\/([^/]+)(.*)$/s.exec(path);
    const root = m ? this.byName.get(m[1]!) : undefined;
    if (!m || root === undefined) return null;
    const inside = m[2]!;
    let full: string;
    if (inside.includes('*')) full = root + inside;
    else {
      // A path that climbs out of its collection is no path of it: left as typed, it finds nothing.
      full = resolve(root, `.${inside}`);
      const within = relative(root, full);
      if (within.startsWith('..') || isAbsolute(within)) return null;
    }
    return `${uri ? pathToFileUri(full) : full}${fragment}`;
  }

  /**
   * A request's params with the paths it names read back into the server's. `strict` (a reader or an
   * editor): a path not in their terms is refused, saying only what they typed.
   */
  params<T>(params: T, strict = false): T {
    if (params === null || typeof params !== 'object' || Array.isArray(params)) return params;
    const out: Record<string, unknown> = { ...(params as Record<string, unknown>) };
    const read = (x: string, adding: boolean): string => {
      if (BY_ID.test(x) && !adding) return x;
      const meant = this.translated(x);
      if (meant !== null || !strict) return meant ?? x;
      throw adding
        ? new KbError('FORBIDDEN', `${x} is not in a collection you may add to: name files as /<collection>/<path inside it>`)
        : new KbError('NOT_FOUND', `${x} is not a document you may read: name it by its id, or as /<collection>/<path inside it>`);
    };
    for (const [k, v] of Object.entries(out)) {
      if (!PATH_PARAMS.has(k)) continue;
      if (typeof v === 'string') out[k] = read(v, false);
      else if (Array.isArray(v)) out[k] = v.map((x) => (typeof x === 'string' ? read(x, true) : x));
    }
    return out as T;
  }
}

/**
 * Runs a call of a team's signed-in user (`{token}`: a page or a client, not the server's own
 * serving) through their view of paths: what they name is read back into the server's; what a reader
 * or editor is answered — the result, its progress, an error's message — shows only their view.
 */
export async function inTeamView<T>(
  view: TeamPaths,
  role: string,
  params: unknown,
  progress: (data: unknown) => void,
  run: (params: unknown, progress: (data: unknown) => void) => Promise<T>,
): Promise<T> {
  if (role === 'admin') return run(view.params(params), progress);
  const meant = view.params(params, true);
  try {
    return view.shown(await inPathView(view, () => run(meant, (d) => progress(view.shown(d)))));
  } catch (e) {
    if (e instanceof Error) e.message = view.shown(e.message);
    throw e;
  }
}

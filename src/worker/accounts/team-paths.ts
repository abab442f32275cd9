// Where a team's reader or editor sees a document: `/<collection>/<path inside it>`, never the server's
// own folders (issue 50). What kb answers them is rewritten on the way out — citations and their
// URIs, the Library's paths, inspect, an ingest's errors, a message naming a file — and what they send
// (a `get` target, a path glob, an ingest's paths) is read back the same way on the way in. A path
// that does not start with one of the collections' names is left as it is: row-level security still
// decides what it finds. kb's own data dir (the stored copies) is shown relative to itself.
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { pathToFileUri } from '../../shared/citation.js';

export interface Place {
  name: string;
  root: string;
}

/** Params that carry a path a person names (get, inspect, remove: `target`; search: `path`; ingest: `paths`). */
const PATH_PARAMS = new Set(['target', 'path', 'paths']);

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export class TeamPaths {
  /** Each server prefix (a root, its file-URI form, the data dir) → what a team user sees in its place. */
  private readonly shownAs = new Map<string, string>();
  private readonly prefixes: RegExp | null;
  private readonly byName: Map<string, string>;

  constructor(places: readonly Place[], dataDir: string) {
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
    this.prefixes = alternatives.length ? new RegExp(`(${alternatives.map(escape).join('|')})(?=[/\\\\#?\\s"'),:;]|$)`, 'g') : null;
  }

  /** A server path, or any text naming one, as the team user sees it. */
  private text(s: string): string {
    if (!this.prefixes || !s.includes(sep)) return s;
    return s.replace(this.prefixes, (m) => this.shownAs.get(m) ?? m);
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
    // A citation's fragment follows the first #: in a URI the path's own # is escaped (%23).
    const uri = p.startsWith('file:///');
    const hash = p.indexOf('#');
    const head = hash < 0 ? p : p.slice(0, hash);
    const fragment = hash < 0 ? '' : p.slice(hash);
    let path: string;
    try {
      path = uri ? decodeURIComponent(head.slice('file://'.length)) : head;
    } catch {
      return p; // a malformed escape names nothing
    }
    const m = /^\/([^/]+)(.*)$/s.exec(path);
    const root = m ? this.byName.get(m[1]!) : undefined;
    if (!m || root === undefined) return p;
    const inside = m[2]!;
    let full: string;
    if (inside.includes('*')) full = root + inside;
    else {
      // A path that climbs out of its collection is no path of it: left as typed, it finds nothing.
      full = resolve(root, `.${inside}`);
      const within = relative(root, full);
      if (within.startsWith('..') || isAbsolute(within)) return p;
    }
    return `${uri ? pathToFileUri(full) : full}${fragment}`;
  }

  /** A request's params with the paths it names read back into the server's. */
  params<T>(params: T): T {
    if (params === null || typeof params !== 'object' || Array.isArray(params)) return params;
    const out: Record<string, unknown> = { ...(params as Record<string, unknown>) };
    for (const [k, v] of Object.entries(out)) {
      if (!PATH_PARAMS.has(k)) continue;
      if (typeof v === 'string') out[k] = this.meant(v);
      else if (Array.isArray(v)) out[k] = v.map((x) => (typeof x === 'string' ? this.meant(x) : x));
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
  try {
    return view.shown(await run(view.params(params), (d) => progress(view.shown(d))));
  } catch (e) {
    if (e instanceof Error) e.message = view.shown(e.message);
    throw e;
  }
}

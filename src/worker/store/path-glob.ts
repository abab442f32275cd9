// A search's path filter: a glob written as an RE2 expression and matched by RE2JS, whose time grows
// with the path's length and the glob's, never exponentially. JavaScript's own regular expressions
// backtrack: picomatch's `*?*?*?…` took a minute per path, and anyone who may search writes the glob.
import { RE2JS } from 're2js';
import { LRUCache } from 'lru-cache';
import { KbError } from '../../shared/errors.js';
import { currentPathView } from '../acting.js';

/** Braces nested deeper than this are refused: no file name needs it, and each level costs the compiler. */
const MAX_BRACE_DEPTH = 8;

const escapeChar = (c: string): string => (/[\\^$.|?*+()[\]{}]/.test(c) ? `\\${c}` : c);

/** The index of the `]` closing a class opened at `at`, or -1 (then `[` is a literal, as in a shell). */
function classEnd(glob: string, at: number): number {
  let i = at + 1;
  if (glob[i] === '!' || glob[i] === '^') i++;
  if (glob[i] === ']') i++;
  for (; i < glob.length; i++) {
    if (glob[i] === '\\') i++;
    else if (glob[i] === ']') return i;
  }
  return -1;
}

/** A class as RE2 writes it; never matches `/`, which only the glob's own slashes match. */
function classOf(body: string): string {
  const negated = body.startsWith('!') || body.startsWith('^');
  let inner = '';
  const chars = negated ? body.slice(1) : body;
  for (let i = 0; i < chars.length; i++) {
    let c = chars[i]!;
    if (c === '\\' && i + 1 < chars.length) c = chars[++i]!;
    else if (c === '-' && inner !== '' && i + 1 < chars.length) {
      inner += '-';
      continue;
    }
    if (c !== '/') inner += /[\\\][^-]/.test(c) ? `\\${c}` : c;
  }
  if (negated) return `[^/${inner}]`;
  // A class of nothing but `/` matches nothing.
  return inner === '' ? '\\b\\B' : `[${inner}]`;
}

/** Which `{` open a group of alternatives (one that closes and holds a comma; else it is literal), and where each closes. */
function braceGroups(glob: string): Map<number, number> {
  const groups = new Map<number, number>();
  const open: { at: number; comma: boolean }[] = [];
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '\\') i++;
    else if (c === '[') {
      const end = classEnd(glob, i);
      if (end > 0) i = end;
    } else if (c === '{') open.push({ at: i, comma: false });
    else if (c === ',' && open.length > 0) open.at(-1)!.comma = true;
    else if (c === '}' && open.length > 0) {
      const o = open.pop()!;
      if (o.comma) groups.set(o.at, i);
    }
  }
  return groups;
}

/**
 * The glob as an RE2 expression over a whole path: `*` and `?` stay within a folder, `**` as a whole
 * folder name crosses any number of them, `[…]` a class, `{a,b}` alternatives, `\` escapes; a glob
 * that starts with neither `/` nor `**` matches anywhere below a root ("notes/*.md").
 */
export function globSource(glob: string): string {
  const g = glob.startsWith('/') || glob.startsWith('**') ? glob : `**/${glob}`;
  const groups = braceGroups(g);
  const closing = new Set(groups.values());
  // Every `{` still open, as braceGroups pairs them: a comma separates alternatives only in a group.
  const open: number[] = [];
  let depth = 0;
  let out = '';
  for (let i = 0; i < g.length; i++) {
    const c = g[i]!;
    if (c === '\\' && i + 1 < g.length) {
      out += escapeChar(g[++i]!);
    } else if (c === '*') {
      let j = i;
      while (g[j + 1] === '*') j++;
      const wholeSegment = j > i && (i === 0 || g[i - 1] === '/') && (j + 1 === g.length || g[j + 1] === '/');
      if (wholeSegment && j + 1 < g.length) {
        // `**/`: any number of folders, none included.
        out += '(?:.*/)?';
        j++;
      } else if (wholeSegment && out.endsWith('/')) {
        // `x/**` is x and everything below it.
        out = `${out.slice(0, -1)}(?:/.*)?`;
      } else out += wholeSegment ? '.*' : '[^/]*';
      i = j;
    } else if (c === '?') out += '[^/]';
    else if (c === '[' && classEnd(g, i) > 0) {
      const end = classEnd(g, i);
      out += classOf(g.slice(i + 1, end));
      i = end;
    } else if (c === '{') {
      open.push(i);
      if (!groups.has(i)) out += '\\{';
      else if (++depth > MAX_BRACE_DEPTH)
        throw new KbError('INVALID_ARGUMENT', `the path filter nests {…} more than ${MAX_BRACE_DEPTH} deep`);
      else out += '(?:';
    } else if (c === '}' && open.length > 0) {
      open.pop();
      if (closing.has(i)) {
        depth--;
        out += ')';
      } else out += '\\}';
    } else if (c === ',' && open.length > 0 && groups.has(open.at(-1)!)) out += '|';
    else out += escapeChar(c);
  }
  return `^${out}$`;
}

const matchers = new LRUCache<string, (path: string) => boolean>({ max: 500 });

/**
 * Whether a document's path passes `glob` as the asking user sees paths: a team's reader or editor
 * (acting.ts inPathView) matches /<collection>/…, and a path outside their collections never — so no
 * count, share or hit tells them where the server keeps anything (issue 50).
 */
export function pathPasses(glob: string): (path: string) => boolean {
  const m = pathMatcher(glob);
  const view = currentPathView();
  if (!view) return m;
  return (path) => {
    const shown = view.shownPath(path);
    return shown !== path && m(shown);
  };
}

/** A matcher for `glob` (see globSource), compiled once while it is in use. */
export function pathMatcher(glob: string): (path: string) => boolean {
  let m = matchers.get(glob);
  if (!m) {
    let re: RE2JS;
    try {
      re = RE2JS.compile(globSource(glob));
    } catch (e) {
      // A class whose range runs backwards ([z-a]), and the like.
      throw new KbError('INVALID_ARGUMENT', `the path filter ${glob} is not a glob kb can read: ${(e as Error).message}`);
    }
    m = (path) => re.matches(path);
    matchers.set(glob, m);
  }
  return m;
}

/**
 * The documents each glob leaves, kept until the next write: bounded by the ids it holds, so a stream
 * of distinct globs (each leaving every document) costs no more memory than a few.
 */
export function globResults(): LRUCache<string, string[]> {
  return new LRUCache<string, string[]>({ maxSize: 500_000, sizeCalculation: (ids) => ids.length + 1 });
}

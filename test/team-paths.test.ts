// A team user's view of paths (accounts/team-paths.ts), on random paths: what is shown never holds a
// collection's server folder or the data dir, what is shown reads back to the server's own path, and
// a path that climbs out of its collection, or names no collection, is never read as inside one.
import { describe, expect, it } from 'vitest';
import { TeamPaths } from '../src/worker/accounts/team-paths.js';
import { pathToFileUri } from '../src/shared/citation.js';
import type { AskResult } from '../src/shared/wire.js';
import { askForTeamUser } from '../src/worker/read/team-view.js';

const places = [
  { name: 'handbook', root: '/srv/kb/handbook' },
  { name: 'handbook2', root: '/srv/kb/handbook2' },
  { name: 'inner', root: '/srv/kb/handbook/inner' },
  { name: 'spaced', root: '/srv/shared files/team (a)' },
];
const dataDir = '/var/lib/kb';

function random(seed: number): () => number {
  let s = seed;
  return (): number => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe("a team user's view of paths", () => {
  const view = new TeamPaths(places, dataDir);
  const rnd = random(7);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const segment = (): string => pick(['notes', 'a b', 'x.md', 'Ünïcode', 'inner', 'handbook', '..', '.', 'q#1', '%20']);

  it('never shows a server folder, and reads every shown path back to the server’s', () => {
    for (let i = 0; i < 2000; i++) {
      const place = pick(places);
      const rest = Array.from({ length: 1 + Math.floor(rnd() * 4) }, segment).filter((s) => s !== '..' && s !== '.');
      const path = [place.root, ...rest].join('/');
      const answer = {
        path,
        citation: { uri: `${pathToFileUri(path)}#L1-L2`, path },
        message: `cannot read ${path}: gone`,
        blob: `${dataDir}/blobs/ab/cd`,
      };
      const shown = view.shown(answer);
      const said = JSON.stringify(shown);
      for (const p of places) expect(said).not.toContain(p.root);
      expect(said).not.toContain(pathToFileUri('/srv/shared files').slice(7));
      expect(said).not.toContain(dataDir);
      // The deepest collection holding it names it.
      const owner = places.filter((p) => `${path}/`.startsWith(`${p.root}/`)).sort((a, b) => b.root.length - a.root.length)[0]!;
      expect(`${shown.path}/`.startsWith(`/${owner.name}/`)).toBe(true);
      expect(view.meant(shown.path)).toBe(path);
      expect(view.meant(shown.citation.uri)).toBe(answer.citation.uri);
    }
  });

  it('rewrites a server folder only where a path begins, never inside another path', () => {
    const dropped = '/srv/kb/handbook/uploads/80ab9cfd91698173/srv/kb/handbook2/evil.md';
    expect(view.shown(dropped)).toBe('/handbook/uploads/80ab9cfd91698173/srv/kb/handbook2/evil.md');
    expect(view.shown(`cannot read "/srv/kb/handbook2/x.md": gone (file:///srv/kb/inner/y)`)).toBe(
      'cannot read "/handbook2/x.md": gone (file:///srv/kb/inner/y)',
    );
  });

  it('refuses, for a reader or an editor, a path not in their terms — saying only what they typed', () => {
    for (const target of ['/srv/kb/handbook/x.md', 'x.md', '/nobody/x.md', '/handbook/../handbook2/x.md'])
      expect(() => view.params({ target }, true)).toThrow(
        expect.objectContaining({ code: 'NOT_FOUND', message: expect.stringMatching(/^\S+ is not a document you may read/) }),
      );
    expect(() => view.params({ paths: ['/handbook/x.md', '/srv/kb/handbook2/y.md'] }, true)).toThrow(
      expect.objectContaining({ code: 'FORBIDDEN' }),
    );
    expect(view.params({ target: '0123456789abcdef0123#L1-L2' }, true)).toEqual({ target: '0123456789abcdef0123#L1-L2' });
    // A collection whose folder is /<its name> is named just so.
    const plain = new TeamPaths([{ name: 'notes', root: '/notes' }], dataDir);
    expect(plain.params({ target: '/notes/x.md' }, true)).toEqual({ target: '/notes/x.md' });
  });

  it('tells a team user why the language model cannot answer, never where it runs', () => {
    const r = askForTeamUser({
      question: 'q',
      answer: '',
      citations: [],
      sources: [],
      refused: true,
      reason: 'Ollama is not running at http://10.0.0.5:11434. Start it with: ollama serve',
      model: null,
      llm: { status: 'unavailable', reason: 'Ollama is not running at http://10.0.0.5:11434. Start it with: ollama serve' },
      invalid_citations: [],
      uncited_sentences: [],
      took_ms: 1,
      schema_version: 1,
    } as AskResult);
    expect(JSON.stringify(r)).not.toMatch(/10\.0\.0\.5|11434|ollama serve/);
  });

  it('reads no path that climbs out of its collection, or names none, as inside one', () => {
    expect(view.meant('/handbook/../handbook2/x.md')).toBe('/handbook/../handbook2/x.md');
    expect(view.meant('/handbook/a/../../../etc/passwd')).toBe('/handbook/a/../../../etc/passwd');
    expect(view.meant('/nobody/x.md')).toBe('/nobody/x.md');
    expect(view.meant('/srv/kb/handbook/x.md')).toBe('/srv/kb/handbook/x.md'); // the server's own: row-level security decides
    expect(view.meant('/handbook/a/../b.md#L1-L2')).toBe('/srv/kb/handbook/b.md#L1-L2');
    expect(view.meant('/handbook/**/*.md')).toBe('/srv/kb/handbook/**/*.md');
    expect(view.params({ target: '/inner/x', query: '/handbook/x', paths: ['/spaced/y', 3] })).toEqual({
      target: '/srv/kb/handbook/inner/x',
      query: '/handbook/x',
      paths: ['/srv/shared files/team (a)/y', 3],
    });
  });
});

// Behaviour that only shows on an index big enough for a word to be "common" (over 1,000 chunks).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openEngine, type Engine } from '../src/worker/index.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';

let engine: Engine;
let dir: string;
const PARAS = 3000;
/** Small chunks, so each paragraph is one. */
const CHUNKING = { target_chars: 100, max_chars: 400, min_chars: 50, note_max_chars: 100, overlap_chars: 0 };

/**
 * "common" is in 40% of the chunks: over the 1,000-chunk threshold, yet under half, so its idf is
 * still positive. "zebrafish" is in eight chunks, five of which also say "common".
 */
function para(i: number): string {
  const common = i === 3 ? ' common common common common common' : i % 5 < 2 ? ' common' : '';
  const zebra = i < 8 ? ' zebrafish' : '';
  return `Entry ${i}: a thread.${common}${zebra} Paragraph ${i} is filler about ordinary things, to take up some room.`;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kb-scale-'));
  await writeFile(join(dir, 'big.txt'), Array.from({ length: PARAS }, (_, i) => para(i)).join('\n\n'));
  await writeFile(join(dir, 'other.md'), '# Other\n\nA zebrafish note outside the big file.\n');
  engine = await openEngine({ dataDir: join(dir, 'data'), config: { chunking: CHUNKING } });
  await engine.ingest([dir]);
  return async () => {
    engine.close();
    await rm(dir, { recursive: true, force: true });
  };
});

describe('search over a larger index', () => {
  it('finds candidates by the rare word and still scores the common one', async () => {
    const chunks = (await engine.list()).reduce((n, d) => n + d.chunks, 0);
    expect(chunks).toBe(PARAS + 1);
    const r = await engine.search({ query: 'zebrafish common', explain: true, top: 10 });
    // The common word does not drive the FTS query…
    expect(r.results[0]!.retrieval.explain!.fts_query).toBe('"zebrafish"');
    // …but it still counts: entries that also say "common" rank above those that do not.
    const entries = r.results.filter((h) => h.text.startsWith('Entry')).map((h) => Number(h.text.match(/^Entry (\d+)/)![1]));
    expect(new Set(entries.slice(0, 5))).toEqual(new Set([0, 1, 3, 5, 6]));
    // The nine chunks holding "zebrafish" come first; they leave one place on the page, which a chunk
    // holding only "common" fills.
    expect(new Set(entries.slice(5, 8))).toEqual(new Set([2, 4, 7]));
    expect(r.results.slice(0, 9).every((h) => h.matched_terms.includes('zebrafish'))).toBe(true);
    expect(r.results[9]!.matched_terms).toEqual(['common']);
    expect(r.total_matches_estimated).toBe(true);
    expect(r.total_matches).toBeGreaterThan(1000);
    expect(r.total_matches).toBeLessThan(PARAS);
  });

  it('answers a query of common words only', async () => {
    const r = await engine.search({ query: 'common thread', top: 10 });
    expect(r.results).toHaveLength(10);
    expect(r.results[0]!.text).toContain('Entry 3:');
  });

  it('lets a half-typed word re-rank instead of scanning everything', async () => {
    const r = await engine.search({ query: 'zebrafish entr', prefix: true, explain: true, top: 20 });
    expect(r.results[0]!.retrieval.explain!.fts_query).toBe('"zebrafish"');
    const inBig = r.results.filter((h) => h.text.startsWith('Entry'));
    expect(inBig.length).toBeGreaterThan(0);
    for (const h of inBig) expect(h.matched_terms).toEqual(expect.arrayContaining(['zebrafish', 'entr']));
    const alone = await engine.search({ query: 'zebraf', prefix: true });
    expect(alone.results.length).toBeGreaterThan(0);
  });

  it('filters inside the full-text query', async () => {
    const md = await engine.search({ query: 'zebrafish', type: 'markdown' });
    expect(md.results.map((h) => h.citation.path)).toEqual([join(dir, 'other.md')]);
    expect(md.total_matches).toBe(1);
    expect((await engine.search({ query: 'zebrafish', tags: ['nope'] })).results).toEqual([]);
  });
});

describe('tags added later', () => {
  it('are searchable as filters without re-indexing by hand', async () => {
    const d = await mkdtemp(join(tmpdir(), 'kb-tags-'));
    try {
      await writeFile(join(d, 'a.md'), 'walrus facts');
      const e = await openEngine({ dataDir: join(d, 'data') });
      try {
        await e.ingest([d]);
        expect((await e.search({ query: 'walrus', tags: ['zoo'] })).results).toHaveLength(0);
        expect(await e.ingest([d], { tags: ['zoo'] })).toMatchObject({ unchanged: 1 });
        expect((await e.search({ query: 'walrus', tags: ['zoo'] })).results).toHaveLength(1);
        expect((await e.doctor()).ok).toBe(true);
      } finally {
        e.close();
      }
    } finally {
      await rm(d, { recursive: true, force: true });
    }
  });
});

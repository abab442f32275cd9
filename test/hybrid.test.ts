// The vector half with the random-weight minilm-l6 test model: plumbing, fusion arithmetic, filters
// and reconciliation, on both stores (LanceDB beside SQLite; pgvector on PostgreSQL). Its vectors mean
// nothing, so nothing here judges relevance.
import { rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it as vitestIt } from 'vitest';
import type { ConfigInput } from '../src/shared/config.js';
import { SearchResultSchema } from '../src/shared/wire.js';
import { type Engine, openEngine } from '../src/worker/index.js';
import { makeTestModel } from './support/make-test-model.js';
import { type PgCluster, postgresAvailable, startCluster } from './support/postgres.js';
import { corporaDir, kbAsync, writeTree } from './helpers.js';

const hasCorpora = corporaDir() !== null;
if (!hasCorpora) console.warn('hybrid tests skipped: ../shared/corpora (the real tokenizer) is not here; set KB_CORPORA');

/** A store the vectors live in, and what a test does to it behind kb's back. */
interface Side {
  config: ConfigInput;
  /** The environment a CLI process needs to open the same store. */
  env: Record<string, string>;
  /** The vectors lost (a crash, a table deleted by hand): LanceDB's folder, or pgvector's tables. */
  loseVectors(dataDir: string): Promise<void>;
}

let cluster: PgCluster | null = null;
afterAll(() => cluster?.stop());

const sides: { name: string; skip: boolean; open: () => Promise<Side> }[] = [
  {
    name: 'LanceDB beside SQLite',
    skip: false,
    open: async () => ({
      config: {},
      env: {},
      loseVectors: async (dataDir) => rmSync(join(dataDir, 'vectors'), { recursive: true, force: true }),
    }),
  },
  {
    name: 'pgvector on PostgreSQL',
    skip: !postgresAvailable(),
    open: async () => {
      cluster ??= await startCluster();
      const url = await cluster.database();
      return {
        config: { store: { url } },
        env: { KB_STORE: url },
        loseVectors: async () => {
          const c = new pg.Client({ connectionString: url, options: '-c search_path=kb -c kb.user=@admin' });
          await c.connect();
          try {
            const t = await c.query<{ relname: string }>(
              "SELECT relname FROM pg_class WHERE relname ~ '^chunks_[0-9a-f]{16}$' AND relkind = 'r'",
            );
            for (const { relname } of t.rows) await c.query(`DROP TABLE "${relname}"`);
          } finally {
            await c.end();
          }
        },
      };
    },
  },
];

describe.each(sides)('vector and hybrid search on $name', ({ name, skip, open }) => {
  let work: string;
  let engine: Engine;
  let chunks: number;
  let side: Side;
  const onPg = name.includes('PostgreSQL');

  beforeAll(async () => {
    if (!hasCorpora || skip) return;
    side = await open();
    work = await mkdtemp(join(tmpdir(), 'kb-hybrid-'));
    await writeTree(work, {
      'notes/git.md': '# Git\n\nInstalling git on Debian: apt-get install git.\n\n## Branches\n\nCreate branches with git switch.\n',
      'notes/bread.md': '---\ntags: [kitchen]\n---\n# Bread\n\nKnead the dough and let it rise.\n',
      'notes/trip.txt': 'Train tickets to Lyon, leaving at eight.',
      'code/tool.py': 'def install_tool(name):\n    """Install a tool by name."""\n    return name\n',
    });
    engine = await openEngine({ dataDir: join(work, 'data'), config: side.config });
    await engine.importModel(makeTestModel({ arch: 'minilm-l6', out: join(work, 'model') }), 'all-MiniLM-L6-v2');
    const s = await engine.ingest([join(work, 'notes'), join(work, 'code')]);
    chunks = (await engine.list()).reduce((n, d) => n + d.chunks, 0);
    expect(s.embedded).toBe(chunks);
  });
  afterAll(async () => {
    engine?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });
  const it = (title: string, fn: () => Promise<void>, only?: 'sqlite'): void =>
    void vitestIt.skipIf(!hasCorpora || skip || (only === 'sqlite' && onPg))(title, fn);

  it('answers in vector mode with ranked cosine similarities', async () => {
    const r = await engine.search({ query: 'how do I set up version control', mode: 'vector', top: 10 });
    expect(SearchResultSchema.safeParse(r).success).toBe(true);
    expect(r.vector).toEqual({ status: 'ok' });
    expect(r.results).toHaveLength(chunks);
    r.results.forEach((h, i) => {
      expect(h.retrieval).toMatchObject({ method: 'vector', vector_rank: i + 1, lexical_rank: null });
      expect(Math.abs(h.retrieval.vector_score!)).toBeLessThanOrEqual(1.0001);
      if (i > 0) expect(h.score).toBeLessThanOrEqual(r.results[i - 1]!.score);
    });
  });

  it('fuses both lists with Reciprocal Rank Fusion, k = 60 (--fusion rrf)', async () => {
    const r = await engine.search({ query: 'install git', top: 10, explain: true, fusion: 'rrf' });
    expect(r.mode).toBe('hybrid');
    expect(r.vector).toEqual({ status: 'ok' });
    for (const h of r.results) {
      const x = h.retrieval;
      const expected = (x.lexical_rank ? 1 / (60 + x.lexical_rank) : 0) + (x.vector_rank ? 1 / (60 + x.vector_rank) : 0);
      expect(x.method).toBe('hybrid');
      expect(x.fusion_score).toBeCloseTo(expected, 12);
      expect(h.score).toBe(x.fusion_score);
      expect((x.explain!.lexical_share ?? 0) + (x.explain!.vector_share ?? 0)).toBeCloseTo(expected, 12);
    }
    for (let i = 1; i < r.results.length; i++) {
      const [a, b] = [r.results[i - 1]!.retrieval, r.results[i]!.retrieval];
      expect(a.fusion_score!).toBeGreaterThanOrEqual(b.fusion_score!);
      if (a.fusion_score === b.fusion_score) expect(a.lexical_rank ?? Infinity).toBeLessThanOrEqual(b.lexical_rank ?? Infinity);
    }
    // A passage found by words keeps its lexical snippet highlights.
    const lexical = r.results.find((h) => h.retrieval.lexical_rank === 1)!;
    expect(lexical.matched_terms.length).toBeGreaterThan(0);
    expect(lexical.snippet_highlights.length).toBeGreaterThan(0);
  });

  it('by default weighs the meaning half by how clearly its best neighbours stand out (adaptive)', async () => {
    const r = await engine.search({ query: 'install git', top: 10, explain: true });
    const weights = r.results
      .filter((h) => h.retrieval.vector_rank !== null)
      .map((h) => h.retrieval.explain!.vector_share! * (60 + h.retrieval.vector_rank!));
    expect(weights.length).toBeGreaterThan(1);
    // One weight for the whole list, between a quarter and one; the words keep theirs.
    for (const w of weights) expect(w).toBeCloseTo(weights[0]!, 9);
    expect(weights[0]).toBeGreaterThanOrEqual(0.25);
    expect(weights[0]).toBeLessThanOrEqual(1);
    for (const h of r.results.filter((x) => x.retrieval.lexical_rank !== null))
      expect(h.retrieval.explain!.lexical_share).toBeCloseTo(1 / (60 + h.retrieval.lexical_rank!), 12);
  });

  it('can fuse by a weighted sum of normalised scores instead (--fusion convex)', async () => {
    const r = await engine.search({ query: 'install git', top: 20, explain: true, fusion: 'convex' });
    expect(r.results.length).toBeGreaterThan(1);
    const lex = r.results.filter((h) => h.retrieval.lexical_rank !== null);
    const vec = r.results.filter((h) => h.retrieval.vector_rank !== null);
    // The best of each side gets its full weight (0.5); the worst of each side gets nothing from it.
    expect(lex.find((h) => h.retrieval.lexical_rank === 1)!.retrieval.explain!.lexical_share).toBeCloseTo(0.5, 12);
    expect(vec.find((h) => h.retrieval.vector_rank === 1)!.retrieval.explain!.vector_share).toBeCloseTo(0.5, 12);
    const vScores = vec.map((h) => h.retrieval.vector_score!);
    const [lo, hi] = [Math.min(...vScores), Math.max(...vScores)];
    for (const h of r.results) {
      const x = h.retrieval;
      expect(x.fusion_score).toBeCloseTo((x.explain!.lexical_share ?? 0) + (x.explain!.vector_share ?? 0), 12);
      if (x.vector_score !== null) expect(x.explain!.vector_share).toBeCloseTo((0.5 * (x.vector_score - lo)) / (hi - lo), 9);
    }
    for (let i = 1; i < r.results.length; i++) expect(r.results[i - 1]!.score).toBeGreaterThanOrEqual(r.results[i]!.score);
  });

  it('applies filters inside the vector query too', async () => {
    const code = await engine.search({ query: 'anything', mode: 'vector', type: 'code' });
    expect(code.results.map((h) => h.source.type)).toEqual(['code']);
    const kitchen = await engine.search({ query: 'anything', mode: 'vector', tags: ['kitchen'] });
    expect(kitchen.results.map((h) => h.citation.path)).toEqual([join(work, 'notes/bread.md')]);
    const txt = await engine.search({ query: 'anything', mode: 'vector', path: 'notes/*.txt' });
    expect(txt.results.map((h) => h.citation.path)).toEqual([join(work, 'notes/trip.txt')]);
  });

  it('sees tags added later in the vector filter too', async () => {
    expect((await engine.search({ query: 'anything', mode: 'vector', tags: ['travel'] })).results).toHaveLength(0);
    const s = await engine.ingest([join(work, 'notes/trip.txt')], { tags: ['travel'] });
    expect(s).toMatchObject({ unchanged: 1, embedded: 0 });
    const r = await engine.search({ query: 'anything', mode: 'vector', tags: ['travel'] });
    expect(r.results.map((h) => h.citation.path)).toEqual([join(work, 'notes/trip.txt')]);
  });

  it('is reported by doctor', async () => {
    const d = await engine.doctor();
    expect(d.checks.find((c) => c.name === 'embedding model')).toMatchObject({
      status: 'ok',
      detail: expect.stringMatching(/all \d+ chunks have vectors/),
    });
  });

  it('drops the vectors of removed documents', async () => {
    await engine.remove(join(work, 'notes/trip.txt'));
    const r = await engine.search({ query: 'train', mode: 'vector', top: 50 });
    expect(r.results.some((h) => h.citation.path.endsWith('trip.txt'))).toBe(false);
    expect(r.results).toHaveLength(chunks - 1);
  });

  it('rebuilds a vector table deleted behind its back', async () => {
    await side.loseVectors(join(work, 'data'));
    const fresh = await openEngine({ dataDir: join(work, 'data'), config: side.config });
    try {
      expect((await fresh.search({ query: 'git', mode: 'vector' })).results).toHaveLength(0);
      expect(await fresh.syncVectors()).toEqual({ embedded: chunks - 1, deleted: 0 });
      expect((await fresh.search({ query: 'git', mode: 'vector', top: 50 })).results).toHaveLength(chunks - 1);
    } finally {
      fresh.close();
    }
    // The first engine still held the files of the deleted table: it reopens the store and answers.
    const stale = await engine.search({ query: 'git', mode: 'vector', top: 50 });
    expect(stale.vector).toEqual({ status: 'ok' });
    expect(stale.results).toHaveLength(chunks - 1);
  });

  it('reconciles on open in a long-lived host: vectors lost in a crash come back in the background', async () => {
    await side.loseVectors(join(work, 'data'));
    const host = await openEngine({ dataDir: join(work, 'data'), config: side.config, reconcile: true });
    try {
      const first = await host.search({ query: 'git', mode: 'vector', top: 50 });
      expect(first.vector).toEqual({ status: 'ok' });
      await host.backgroundWork();
      expect((await host.search({ query: 'git', mode: 'vector', top: 50 })).results).toHaveLength(chunks - 1);
      expect(await host.syncVectors()).toEqual({ embedded: 0, deleted: 0 });
    } finally {
      host.close();
    }
  });

  it('answers a search typed while an ingest is embedding, before the ingest ends', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 400; i++) files[`many/n${i}.txt`] = `Field note ${i}: the heron came back to the pond number ${i % 23}.`;
    await writeTree(work, files);
    const order: string[] = [];
    let search: Promise<void> | null = null;
    await engine
      .ingest([join(work, 'many')], {
        onProgress: (p) => {
          if (p.phase !== 'embed' || p.done === 0 || search) return;
          search = engine.search({ query: 'install git', top: 3 }).then((r) => {
            expect(r.vector).toEqual({ status: 'ok' });
            order.push('search');
          });
        },
      })
      .then((s) => {
        expect(s.embedded).toBe(400);
        order.push('ingest');
      });
    await search;
    expect(order).toEqual(['search', 'ingest']);
    await engine.remove(join(work, 'many'));
    await engine.syncVectors();
  });

  it(
    'keeps the words, and says why, when the vector store cannot be opened',
    async () => {
      const dataDir = join(work, 'data-broken');
      const broken = await openEngine({ dataDir });
      try {
        await broken.importModel(join(work, 'model'), 'all-MiniLM-L6-v2');
        writeFileSync(join(dataDir, 'vectors'), 'a file where the LanceDB folder should be');
        const s = await broken.ingest([join(work, 'notes')]);
        expect(s).toMatchObject({
          added: 3,
          failed: 0,
          vector: { status: 'unavailable', reason: expect.stringMatching(/vectors not updated/) },
        });
        const r = await broken.search({ query: 'install git' });
        expect(r.vector).toMatchObject({ status: 'unavailable', reason: expect.stringMatching(/vector store failed/) });
        expect(r.results[0]!.citation.path).toBe(join(work, 'notes/git.md'));
      } finally {
        broken.close();
      }
    },
    'sqlite',
  );

  it('searches hybrid from a fresh CLI process', async () => {
    const r = await kbAsync(['search', 'install', 'git', '--json'], {
      env: { KB_DATA_DIR: join(work, 'data'), KB_CONFIG: join(work, 'none.yaml'), ...side.env },
    });
    expect(r.code).toBe(0);
    const res = SearchResultSchema.parse(r.json());
    expect(res.vector).toEqual({ status: 'ok' });
    expect(res.results[0]!.retrieval.method).toBe('hybrid');
    // --explain in words: each half's rank (or a dash), the similarity, and what each half added.
    const explained = await kbAsync(['search', 'install', 'git', '--explain', '--top', '20'], {
      env: { KB_DATA_DIR: join(work, 'data'), KB_CONFIG: join(work, 'none.yaml'), ...side.env },
    });
    expect(explained.code).toBe(0);
    expect(explained.stdout).not.toMatch(/undefined|null/);
    expect(explained.stdout).toMatch(/lexical #1 \d\.\d{4}/);
    expect(explained.stdout).toMatch(/vector #\d+ similarity -?\d\.\d{3}/);
    expect(explained.stdout).toMatch(/lexical —.*vector #\d+/); // found by meaning alone
    expect(explained.stdout).toMatch(/fused \d\.\d{4} \+ \d\.\d{4}/);
  });
});

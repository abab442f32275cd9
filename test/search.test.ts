import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SearchResultSchema } from '../src/shared/wire.js';
import type { Engine } from '../src/worker/index.js';
import { openEngine } from '../src/worker/index.js';
import { tempDir, writeTree } from './helpers.js';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';

let engine: Engine;
let dir: string;

// One corpus for the whole file (read-only tests); the per-test helpers clean up only their own dirs.
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kb-search-'));
  await writeTree(dir, {
    'notes/git.md': [
      '---',
      'tags: [tools]',
      '---',
      '# Git',
      '',
      'Version control notes.',
      '',
      '## Setup',
      '',
      '### Linux',
      '',
      'Installing git on Debian is done with apt-get install git.',
      'Then set user.name and user.email.',
      '',
      '## Branching',
      '',
      'Create a branch with git switch -c name. Merge it back when done.',
    ].join('\n'),
    'notes/cooking.md': '# Bread\n\nKnead the dough for ten minutes, then let it rise for an hour in a warm place.\n',
    'notes/travel/japan.md': '# Japan trip\n\nTokyo trains are punctual. 東京の電車は時間に正確です。\n',
    'notes/korean.md': '# 한국어\n\n형태소 분석기는 한국어 문장을 분석합니다.\n',
    'code/engine.ts': '/** Opens the engine. */\nexport async function openEngine(dir: string) {\n  return dir;\n}\n',
    'notes/long.txt': 'The quick brown fox jumps over the lazy dog near the river bank at dawn.',
    'notes/partial.txt': 'A fox was seen near the river.',
    'notes/stats.md': '# Measurements\n\nThe correlation between the two gauges was weak; correlated errors were ruled out.\n',
    'notes/francais.md': '# Voyage\n\nLe train de Paris à Lyon part à huit heures du matin, il est toujours à l’heure.\n',
    'notes/colophon.md':
      "# Colophon\n\nWell, we’re just writing it down. Published by O'Reilly Media Inc; the e-mail’s footer is read-only.\n",
  });
  engine = await openEngine({ dataDir: join(dir, 'data'), config: {} });
  await engine.ingest([join(dir, 'notes')], { tags: ['notes'] });
  await engine.ingest([join(dir, 'code')]);
  return async () => {
    engine.close();
    await import('node:fs/promises').then((f) => f.rm(dir, { recursive: true, force: true }));
  };
});

describe('lexical search', () => {
  it('finds by keyword and cites the exact lines with the heading path', async () => {
    const r = await engine.search({ query: 'installing git', mode: 'lexical' });
    expect(() => SearchResultSchema.parse(r)).not.toThrow();
    const top = r.results[0]!;
    expect(top.citation.path).toBe(join(dir, 'notes/git.md'));
    expect(top.citation.kind).toBe('lines');
    expect(top.citation.uri).toMatch(/#L\d+-L\d+$/);
    expect(top.matched_terms.sort()).toEqual(['git', 'installing']);
    expect(top.score).toBeGreaterThan(0);
    expect(top.score).toBeLessThan(1);
    expect(top.retrieval).toMatchObject({ method: 'lexical', lexical_rank: 1, vector_rank: null });
    expect(top.source).toMatchObject({ type: 'markdown', tags: ['notes', 'tools'], chunk_index: 0 });
    expect(r.total_matches).toBeGreaterThanOrEqual(1);
    expect(r.returned).toBe(r.results.length);
  });

  it("ranks a passage holding more of a question's words first, and does not need all of them", async () => {
    const r = await engine.search({ query: 'where did the fox jump over a sleepy dog by the river', mode: 'lexical' });
    expect(r.results.map((h) => h.citation.path.split('/').pop())).toEqual(['long.txt', 'partial.txt']);
  });

  it('matches quoted phrases exactly', async () => {
    const phrase = await engine.search({ query: '"lazy dog"' });
    expect(phrase.results.map((h) => h.citation.path.split('/').pop())).toEqual(['long.txt']);
    expect((await engine.search({ query: '"dog lazy"' })).results).toHaveLength(0);
  });

  it('runs a single-quoted query as a raw FTS5 expression, and reports a bad one clearly', async () => {
    const r = await engine.search({ query: "'fox NOT lazy'" });
    expect(r.results.map((h) => h.citation.path.split('/').pop())).toEqual(['partial.txt']);
    await expect(engine.search({ query: "'fox AND ('" })).rejects.toMatchObject({ code: 'QUERY_INVALID' });
    // Said in words a person can act on, not SQLite's "syntax error near """.
    await expect(engine.search({ query: "'fox AND'" })).rejects.toThrow(
      /^the search expression between quotes is not valid FTS5 \(it ends where a word should follow\): finish it, or drop the quotes/,
    );
    // Not closed yet (typing): said so, and searched as words meanwhile, not silently as something else.
    const open = await engine.search({ query: "'NEAR(fox", prefix: true });
    expect(open.notice).toMatch(/not finished: close it with '/);
    expect(r.notice).toBeUndefined();
  });

  it('matches a quoted phrase with an apostrophe or a hyphen as the text holds it, whichever apostrophe either uses', async () => {
    for (const q of [
      '"we’re just writing"',
      `"we're just writing"`,
      '"O’Reilly Media Inc"',
      `"O'Reilly Media Inc"`,
      '"e-mail’s footer"',
      `"e-mail's footer is read-only"`,
    ]) {
      const r = await engine.search({ query: q, mode: 'lexical' });
      expect(r.results[0]?.citation.path, q).toBe(join(dir, 'notes/colophon.md'));
    }
    // Still a phrase: the same words out of order are not it.
    expect(
      (await engine.search({ query: '"writing just we’re"', mode: 'lexical' })).results.filter((h) =>
        h.citation.path.endsWith('colophon.md'),
      ),
    ).toEqual([]);
  });

  it('corrects a word the index does not hold to the one it does, says so, and searches as typed when asked', async () => {
    const r = await engine.search({ query: 'kneed the duogh', mode: 'lexical' });
    expect(r.corrected).toEqual({
      query: 'knead the dough',
      words: [
        { from: 'kneed', to: 'knead' },
        { from: 'duogh', to: 'dough' },
      ],
    });
    expect(r.query).toBe('kneed the duogh');
    expect(r.results[0]?.citation.path).toBe(join(dir, 'notes/cooking.md'));
    // Typed while typing too: the last word, once no indexed word begins with it.
    expect((await engine.search({ query: 'brown foxx', prefix: true, mode: 'lexical' })).corrected?.query).toBe('brown fox');
    // Capitals kept; words the index holds untouched; a quoted phrase exact.
    expect((await engine.search({ query: 'Kneed', mode: 'lexical' })).corrected?.query).toBe('Knead');
    // A short word is corrected only to one that starts as it does ("mend" is no slip for "end").
    expect((await engine.search({ query: 'hough', mode: 'lexical' })).corrected).toBeUndefined();
    expect((await engine.search({ query: 'doughh', mode: 'lexical' })).corrected?.query).toBe('dough');
    expect((await engine.search({ query: 'knead dough', mode: 'lexical' })).corrected).toBeUndefined();
    expect((await engine.search({ query: '"kneed the dough"', mode: 'lexical' })).corrected).toBeUndefined();
    // A word being typed that indexed words begin with is no typo.
    expect((await engine.search({ query: 'punctu', prefix: true, mode: 'lexical' })).corrected).toBeUndefined();
    // Nor is one typed past its stem that begins a written word ("correlati": the index holds "correl");
    // one that begins nothing anyone wrote is a slip, corrected and said so, while typing too.
    expect((await engine.search({ query: 'correlati', prefix: true, mode: 'lexical' })).corrected).toBeUndefined();
    expect((await engine.search({ query: 'correlatoin', prefix: true, mode: 'lexical' })).corrected?.query).toBe('correlation');
    // A hostile query is bounded: a 10,000-letter word is not tried (its one-edit neighbours once took
    // the process out of memory), and of hundreds of unknown words only the first few are.
    expect((await engine.search({ query: 'q'.repeat(10_000), mode: 'lexical' })).corrected).toBeUndefined();
    const many = await engine.search({
      query: ['kneed', ...Array.from({ length: 300 }, (_, i) => `zqxw${String.fromCharCode(97 + (i % 26))}vut`)].join(' '),
      mode: 'lexical',
    });
    expect(many.corrected?.words.map((w) => w.from)).toEqual(['kneed']);
    // As typed: nothing is corrected, and nothing found.
    const asTyped = await engine.search({ query: 'kneed the duogh', mode: 'lexical', correct: false });
    expect(asTyped.corrected).toBeUndefined();
    expect(asTyped.results).toEqual([]);
  });

  it('treats the last word as a prefix while typing', async () => {
    expect((await engine.search({ query: 'bread kne', prefix: true })).results[0]?.matched_terms.sort()).toEqual(['bread', 'kne']);
    expect((await engine.search({ query: 'kne', prefix: true })).results[0]?.citation.path).toBe(join(dir, 'notes/cooking.md'));
    // One or two letters are not expanded yet: on a big index that alone costs 100+ ms.
    expect((await engine.search({ query: 'kn', prefix: true })).results).toHaveLength(0);
    // Without --prefix a two-letter fragment is a whole word, and too short for substring search.
    expect((await engine.search({ query: 'kn' })).results).toHaveLength(0);
  });

  it('counts the last word typed as a word and as a prefix: the last keystroke finds what the finished query finds (issue 49)', async () => {
    const d = await tempDir();
    const filler = 'the stream runs past the mill and the meadow where cattle graze near the old stone bridge';
    const notes: Record<string, string> = { 'both.md': `# Both\n\nnewts and turbidity: ${filler}\n` };
    for (let i = 0; i < 6; i++) notes[`t${i}.md`] = `# Sample ${i}\n\nturbidity readings rose ${i}: ${filler}\n`;
    for (let i = 0; i < 2; i++) notes[`n${i}.md`] = `# Pond ${i}\n\nnewts breed ${i}: ${filler}\n`;
    for (let i = 0; i < 8; i++) notes[`c${i}.md`] = `# Tap ${i}\n\nchlorine measured ${i}: ${filler}\n`;
    notes['cr.md'] = `# Flushing\n\n${filler}, chlorine residual after flushing\n`;
    await writeTree(d, notes);
    const e = await openEngine({ dataDir: join(d, 'data') });
    try {
      await e.ingest([d]);
      const paths = async (query: string, prefix: boolean): Promise<string[]> =>
        (await e.search({ query, prefix, mode: 'lexical', top: 30 })).results.map((h) => h.citation.path);
      for (const q of ['newts turbidity', 'culvert newts', 'chlorine residual', 'turbidity newts']) {
        expect(await paths(q, true), q).toEqual(await paths(q, false));
      }
      expect((await paths('chlorine residual', true))[0]).toBe(join(d, 'cr.md'));
      // Letters that are no word yet find as a prefix, beside the other words.
      const half = await paths('newts turb', true);
      expect(half).toHaveLength(9);
      expect(half[0]).toBe(join(d, 'both.md'));
    } finally {
      e.close();
    }
  });

  it('finds a word typed past its stem by that stem, not by substrings', async () => {
    // The index holds "correl" for correlation: "correlati"* begins no index term.
    const r = await engine.search({ query: 'correlati', prefix: true, mode: 'lexical', explain: true });
    expect(r.results[0]?.citation.path).toBe(join(dir, 'notes/stats.md'));
    expect(r.results[0]?.retrieval.explain?.fts_query).toBe('"correl"');
    const hl = r.results[0]!.snippet_highlights.map(([a, b]) => r.results[0]!.snippet.slice(a, b).toLowerCase());
    expect(hl).toEqual(expect.arrayContaining(['correlation', 'correlated']));
    // Nor is it looked for inside ordinary words: only identifiers and compounds have an inside to
    // search (the trigram index of every chunk's text cost two thirds of the text's size).
    const sub = await engine.search({ query: 'orrelati', prefix: true, mode: 'lexical', explain: true });
    expect(sub.results).toEqual([]);
  });

  it('finds Korean and Japanese words inside longer runs (trigram)', async () => {
    const ko = await engine.search({ query: '형태소 분석' });
    expect(ko.results[0]?.citation.path).toBe(join(dir, 'notes/korean.md'));
    expect(ko.results[0]?.snippet).toContain('형태소');
    const ja = await engine.search({ query: '電車' });
    expect(ja.results[0]?.citation.path).toBe(join(dir, 'notes/travel/japan.md'));
  });

  it('falls back to substrings for words the tokenizer cannot see inside', async () => {
    const r = await engine.search({ query: 'Engine' });
    expect(r.results[0]?.citation.path).toBe(join(dir, 'code/engine.ts'));
    expect(r.results[0]?.citation.section).toBe('openEngine');
  });

  it('filters by type, path glob, tags and language inside the query', async () => {
    const words = 'git OR trains OR dough OR engine OR fox';
    const q = (extra: object) => engine.search({ query: `'${words}'`, top: 50, ...extra });
    expect((await q({ type: 'code' })).results.map((h) => h.source.type)).toEqual(['code']);
    expect((await q({ path: 'notes/*.md' })).results.every((h) => /notes\/[^/]+\.md$/.test(h.citation.path))).toBe(true);
    expect((await q({ path: 'notes/*.md' })).results.some((h) => h.citation.path.includes('travel'))).toBe(false);
    expect((await q({ path: 'notes/**/*.md' })).results.some((h) => h.citation.path.includes('travel'))).toBe(true);
    expect((await q({ tags: ['notes', 'tools'] })).results.map((h) => h.citation.path.split('/').pop())).toEqual(['git.md']);
    expect((await q({ tags: ['nope'] })).results).toHaveLength(0);
    const fr = await engine.search({ query: 'train', lang: 'fr' });
    expect(fr.results.map((h) => h.citation.path.split('/').pop())).toEqual(['francais.md']);
    expect((await q({ type: 'code' })).total_matches).toBe(1);
  });

  it('honours --top and --threshold, and counts all matches', async () => {
    const all = await engine.search({ query: "'fox OR git OR dough'", top: 50 });
    expect(all.total_matches).toBe(all.results.length);
    const one = await engine.search({ query: "'fox OR git OR dough'", top: 1 });
    expect(one.returned).toBe(1);
    expect(one.total_matches).toBe(all.total_matches);
    const cut = all.results[1]!.score;
    const th = await engine.search({ query: "'fox OR git OR dough'", top: 50, threshold: cut });
    expect(th.results.every((h) => h.score >= cut)).toBe(true);
    expect(th.results.length).toBeLessThan(all.results.length);
  });

  it('gives the same hits in the same order with the same scores every time', async () => {
    const strip = (r: { took_ms: number }) => ({ ...r, took_ms: 0 });
    const a = await engine.search({ query: 'git branch merge install', explain: true });
    const b = await engine.search({ query: 'git branch merge install', explain: true });
    expect(strip(b)).toEqual(strip(a));
  });

  it('keeps snippets within snippet_chars and highlights matched words', async () => {
    const r = await engine.search({ query: 'punctual trains' });
    const h = r.results[0]!;
    expect(h.snippet.length).toBeLessThanOrEqual(240);
    expect(h.snippet_highlights.length).toBeGreaterThan(0);
    for (const [s, e] of h.snippet_highlights) expect(['trains', 'punctual']).toContain(h.snippet.slice(s, e).toLowerCase());
  });

  it('explains each hit', async () => {
    const r = await engine.search({ query: 'git install', explain: true });
    const x = r.results[0]!.retrieval.explain!;
    expect(x.fts_query).toBe('"git" OR "install"');
    expect(x.bm25_raw).toBeLessThan(0);
    expect(x.coverage).toBe(1);
  });

  it('says in hybrid mode that vectors are unavailable, and searches lexically', async () => {
    const r = await engine.search({ query: 'git' });
    expect(r.mode).toBe('hybrid');
    expect(r.vector).toMatchObject({ status: 'unavailable' });
    expect(r.results.length).toBeGreaterThan(0);
    const v = await engine.search({ query: 'git', mode: 'vector' });
    expect(v.results).toEqual([]);
    expect(v.vector?.status).toBe('unavailable');
  });

  it('survives hostile queries', async () => {
    const hostile = [
      '',
      '   ',
      '"',
      '""',
      "'",
      "''",
      '"unbalanced',
      "'unbalanced",
      '^',
      '*',
      ':',
      '(',
      ')',
      '-',
      '+',
      'NEAR',
      'AND OR NOT',
      'a:b (c) -d +e ^f *g',
      'col:git',
      '\\',
      '%',
      '_',
      '\u0000',
      '"a" "b" "',
      "'NEAR(a b'",
      'x'.repeat(10_000),
      Array.from({ length: 2000 }, (_, i) => `w${i}`).join(' '),
    ];
    for (const q of hostile) {
      try {
        const r = await engine.search({ query: q });
        expect(SearchResultSchema.safeParse(r).success).toBe(true);
      } catch (e) {
        // Only a raw FTS5 expression may be rejected, and then with a clear code.
        expect(q.trim().startsWith("'")).toBe(true);
        expect((e as { code: string }).code).toBe('QUERY_INVALID');
      }
    }
    expect((await engine.search({ query: '' })).results).toEqual([]);
    expect((await engine.search({ query: '  ' })).total_matches).toBe(0);
  });

  it('rejects invalid parameters with INVALID_ARGUMENT', async () => {
    await expect(engine.search({ query: 'x', top: 0 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(engine.search({ query: 'x', mode: 'psychic' as never })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

describe('small collections', () => {
  it('still score and order by a word that every document contains', async () => {
    // Robertson's idf (FTS5's) is zero for a word in half the documents or more.
    const d = await tempDir();
    await writeTree(d, { 'a.md': 'git once', 'b.md': 'git git git, and more git here', 'c.md': 'git also' });
    const e = await openEngine({ dataDir: join(d, 'data') });
    try {
      await e.ingest([d]);
      const r = await e.search({ query: 'git' });
      expect(r.results).toHaveLength(3);
      expect(r.results[0]!.citation.path).toBe(join(d, 'b.md'));
      for (const h of r.results) expect(h.score).toBeGreaterThan(0.1);
    } finally {
      e.close();
    }
  });
});

describe('search after changes', () => {
  it('drops removed documents from results immediately', async () => {
    const d = await tempDir();
    await writeTree(d, { 'a.md': 'unique zebra words', 'b.md': 'other zebra words' });
    const e = await openEngine({ dataDir: join(d, 'data') });
    try {
      await e.ingest([d]);
      expect((await e.search({ query: 'zebra' })).total_matches).toBe(2);
      await e.remove(join(d, 'a.md'));
      const r = await e.search({ query: 'zebra' });
      expect(r.results.map((h) => h.citation.path)).toEqual([join(d, 'b.md')]);
    } finally {
      e.close();
    }
  });
});

/** A fresh index of these files for one test, closed after it. */
async function withIndex(files: Record<string, string>, fn: (e: Engine) => Promise<void>): Promise<void> {
  const d = await tempDir();
  await writeTree(d, files);
  const e = await openEngine({ dataDir: join(d, 'data') });
  try {
    await e.ingest([d]);
    await fn(e);
  } finally {
    e.close();
  }
}

describe('ranking (npm run bench -- ranking measures it on Cranfield and CACM)', () => {
  it('counts a word the query repeats as often as it repeats it, as standard BM25 does', async () => {
    await withIndex(
      {
        'flow.txt': 'Notes on the flow of air around a wing at low speed.',
        'pressure.txt': 'Notes on the pressure of air around a wing at low speed.',
      },
      async (e) => {
        const first = async (q: string): Promise<string> => (await e.search({ query: q, mode: 'lexical' })).results[0]!.citation.path;
        expect(await first('flow flow pressure wing')).toMatch(/flow\.txt$/);
        expect(await first('flow pressure pressure wing')).toMatch(/pressure\.txt$/);
      },
    );
  });

  it('scores a quoted phrase by its words, stemmed, and more where it occurs as written', async () => {
    await withIndex(
      {
        'scattered.txt': 'The design of languages used for programming robots.',
        'together.txt': 'The design of programming languages used for robots.',
        'elsewhere.txt': 'Robots and their sensors.',
      },
      async (e) => {
        // A title pasted into a question, quotes and all.
        const r = await e.search({ query: 'design of robots, see "Programming Language"', mode: 'lexical' });
        expect(r.results.map((h) => h.citation.path.split('/').pop())).toEqual(['together.txt', 'scattered.txt', 'elsewhere.txt']);
        expect(r.results[0]!.matched_terms).toEqual(expect.arrayContaining(['design', 'robots', 'programming language']));
      },
    );
  });

  it('never uses feedback for a few typed words, and bounds what it moves on a long question', async () => {
    const files: Record<string, string> = {
      'a.txt': 'Wing flutter at transonic speed: the panel flutter boundary and its damping.',
      'b.txt': 'Panel flutter of a wing at supersonic speed; damping of the flutter boundary.',
      'c.txt': 'Flutter boundary of a swept wing with damping measured in the tunnel.',
      'd.txt': 'Damping and the panel boundary in aeroelastic tests of thin plates.',
      'e.txt': 'Heat transfer to a cone at hypersonic speed.',
    };
    const d = await tempDir();
    await writeTree(d, files);
    const first = await openEngine({ dataDir: join(d, 'data') });
    await first.ingest([d]);
    first.close();
    const run = async (feedback: boolean, query: string): Promise<Map<string, number>> => {
      const e = await openEngine({ dataDir: join(d, 'data'), config: { search: { feedback } } });
      try {
        const r = await e.search({ query, mode: 'lexical' });
        // score = s / (1 + s) of the final score s
        return new Map(r.results.map((h) => [h.citation.path.split('/').pop()!, h.score / (1 - h.score)]));
      } finally {
        e.close();
      }
    };
    const short = 'wing flutter damping';
    expect(await run(false, short)).toEqual(await run(true, short));
    const long = 'what is known about the flutter of a wing at transonic speed and its damping';
    const on = await run(true, long);
    const off = await run(false, long);
    const best = Math.max(...off.values());
    const moved = [...on].map(([f, s]) => s - (off.get(f) ?? 0));
    expect(moved.some((m) => m > 1e-9)).toBe(true); // the shared words count…
    for (const m of moved) expect(m).toBeLessThanOrEqual(0.15 * best + 1e-9); // …within 0.15 of the best own score
    expect(on.has('e.txt')).toBe(off.has('e.txt'));

    // --explain names every part of the score.
    const e = await openEngine({ dataDir: join(d, 'data') });
    try {
      const r = await e.search({ query: long, mode: 'lexical', explain: true });
      expect(r.results.some((h) => (h.retrieval.explain?.feedback ?? 0) > 0)).toBe(true);
      for (const h of r.results) {
        const x = h.retrieval.explain!;
        const s = -x.bm25_raw! * (1 + 0.6 * x.coverage!) + 0.6 * x.proximity! + x.feedback!;
        expect(s / (1 + s)).toBeCloseTo(h.score, 9);
      }
      const few = await e.search({ query: short, mode: 'lexical', explain: true });
      expect(few.results.every((h) => h.retrieval.explain?.feedback === null)).toBe(true);
    } finally {
      e.close();
    }
  });
});

describe('snippets', () => {
  it('show Markdown as prose — no #, **, link targets, table pipes or front matter — and code as it is', async () => {
    await withIndex(
      {
        'guide.md': [
          '---',
          'title: Guide',
          'tags: [setup]',
          '---',
          '# Setup ##',
          '',
          'Install **git** with `apt-get`, see [the docs](https://git-scm.com/doc) and ![the logo](img/logo.png).',
          '',
          '| tool | version |',
          '|------|:-------:|',
          '| git  | 2.39    |',
          '',
          '> A *quoted* note keeps user_name as it is.',
        ].join('\n'),
        'tool.py': 'def install_git(**options):\n    """Install **git** with apt-get."""\n    return [x for x in options]\n',
      },
      async (e) => {
        const md = (await e.search({ query: 'install git quoted', mode: 'lexical', type: 'markdown' })).results[0]!;
        expect(md.snippet).toMatch(/Install git with apt-get, see the docs and the logo\./);
        expect(md.snippet).toMatch(/tool version git 2\.39/);
        expect(md.snippet).toMatch(/A quoted note keeps user_name as it is/);
        expect(md.snippet).not.toMatch(/[#*|`]|\]\(|https:|---/);
        // Highlights still fall on the words.
        for (const [s, t] of md.snippet_highlights ?? []) expect(md.snippet.slice(s, t).toLowerCase()).toMatch(/^(install|git|quoted)$/);
        // The passage itself is kept as written, for tools that want the Markdown.
        expect(md.text).toContain('**git**');
        const code = (await e.search({ query: 'install git', mode: 'lexical', type: 'code' })).results[0]!;
        expect(code.snippet).toContain('**options');
      },
    );
  });
});

describe('split and joined words', () => {
  it('"roll back", "roll-back" and "rollback" find one another', async () => {
    await withIndex(
      {
        'joined.md': '# Deploys\n\nA failed deploy needs a rollback within minutes.\n',
        'spaced.md': '# Incidents\n\nWe roll back the release when errors rise.\n',
        'hyphen.md': '# Runbook\n\nThe roll-back script lives in ops/.\n',
        'other.md': '# Notes\n\nRolling hills and a back garden.\n',
      },
      async (e) => {
        const found = async (q: string): Promise<string[]> =>
          (await e.search({ query: q, mode: 'lexical' })).results.map((h) => h.citation.path.split('/').pop()!).sort();
        for (const q of ['rollback', 'roll back', 'roll-back']) {
          expect(await found(q), q).toEqual(expect.arrayContaining(['hyphen.md', 'joined.md', 'spaced.md']));
        }
        // The spelling typed comes first.
        expect((await e.search({ query: 'rollback', mode: 'lexical' })).results[0]!.citation.path).toMatch(/joined\.md$/);
        // Words that only share letters are not variants: "rolling … back" is not "rollback".
        expect((await e.search({ query: 'rollback', mode: 'lexical' })).results.map((h) => h.citation.path)).not.toContainEqual(
          expect.stringMatching(/other\.md$/),
        );
      },
    );
  });
});

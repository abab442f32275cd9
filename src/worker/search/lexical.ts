// Lexical retrieval over FTS5. FTS5 finds and bm25-ranks candidates (title, heading and body weighted);
// the candidates are then re-ranked by how much of the query they cover and how close together the
// query's words sit, with pseudo-relevance feedback for long questions. A trigram substring path serves
// CJK/Korean text and words the tokenizer cannot see inside ("Engine" in "openEngine").
import type { Statement } from 'better-sqlite3';
import type { Config } from '../../shared/config.js';
import { KbError } from '../../shared/errors.js';
import type { Db } from '../store/db.js';
import { type QueryWord, analyze } from './analyze.js';
import { expansionModel, expansionScore } from './feedback.js';
import { type Filters, filterSql } from './filters.js';
import { type ParsedQuery, type Term, toFtsExpression } from './query.js';

export interface LexicalHit {
  rowid: number;
  /** Normalised to (0, 1): -raw / (1 + |raw|) of the re-ranked bm25. */
  score: number;
  bm25: number | null;
  coverage: number | null;
  proximity: number | null;
  matched: string[];
  /** Where query words occur in the chunk text, for snippets. */
  spans: [number, number][];
}

export interface LexicalResult {
  hits: LexicalHit[];
  total: number;
  ftsQuery: string | null;
  /** How the hits were found; 'substring' uses the trigram index. */
  strategy: 'fts' | 'substring' | 'raw' | 'none';
}

const NONE: LexicalResult = { hits: [], total: 0, ftsQuery: null, strategy: 'none' };
/** Re-ranking looks this deep, so a chunk just below the cut can still rise into the results. */
const RERANK_DEPTH = 40;
/** Long questions re-rank deeper: feedback can lift a hit from further down. */
const FEEDBACK_DEPTH = 100;
const SUBSTRING_CAP = 5000;
const FTS_OPERATORS = new Set(['and', 'or', 'not', 'near']);

function normalise(raw: number): number {
  return -raw / (1 + Math.abs(raw));
}

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

interface Candidate {
  rowid: number;
  raw: number;
}

interface ChunkText {
  title: string;
  heading: string;
  text: string;
}

export class LexicalSearcher {
  private readonly stmts = new Map<string, Statement>();
  private chunkCount: number | null = null;
  private avgLen: number | null = null;

  constructor(
    private readonly db: Db,
    private readonly config: Config,
  ) {}

  private prep(sql: string): Statement {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.stmts.set(sql, s);
    }
    return s;
  }

  /** Number of chunks, for idf; cached until the engine writes (invalidate). */
  private n(): number {
    this.chunkCount ??= (this.prep('SELECT count(*) AS n FROM chunks').get() as { n: number }).n;
    return this.chunkCount;
  }

  invalidate(): void {
    this.chunkCount = null;
    this.avgLen = null;
  }

  /** Average tokens per chunk over all columns, from FTS5's own statistics record. */
  avgLength(): number {
    if (this.avgLen === null) {
      const row = this.prep('SELECT block FROM chunks_fts_data WHERE id = 1').get() as { block: Buffer } | undefined;
      const v = row ? readVarints(row.block) : [];
      const rows = v[0] ?? 0;
      const tokens = v.slice(1).reduce((a, b) => a + b, 0);
      this.avgLen = rows > 0 ? tokens / rows : 1;
    }
    return this.avgLen;
  }

  /** Document frequency of index terms (stems), from the FTS vocabulary. */
  docFreq(stems: string[]): Map<string, number> {
    const out = new Map<string, number>();
    if (stems.length === 0) return out;
    const rows = this.prep(`SELECT term, doc FROM chunks_vocab WHERE term IN (${stems.map(() => '?').join(',')})`).all(
      ...stems,
    ) as { term: string; doc: number }[];
    for (const r of rows) out.set(r.term, r.doc);
    return out;
  }

  idf(df: number): number {
    const n = this.n();
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }

  texts(rowids: number[]): ChunkText[] {
    const st = this.prep('SELECT d.title, c.heading, c.text FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.rowid = ?');
    return rowids.map((r) => (st.get(r) as ChunkText | undefined) ?? { title: '', heading: '', text: '' });
  }

  search(q: ParsedQuery, filters: Filters, limit: number): LexicalResult {
    if (q.kind === 'empty') return NONE;
    if (q.kind === 'raw') return this.raw(q.raw ?? '', q.words, filters, limit);

    let fts: LexicalResult | null = null;
    if (q.terms.length > 0 || q.phrases.length > 0) {
      const s = this.config.search;
      const long = q.terms.filter((t) => !t.prefix).length >= 3;
      fts = this.ranked(q.terms, q.phrases, filters, limit, long && s.feedback && s.feedback_terms > 0);
    }
    if (q.cjk.length > 0) {
      const sub = this.substring(q.cjk, filters, limit);
      return fts ? merge(fts, sub, limit) : sub;
    }
    if (fts && fts.total === 0) {
      // Nothing by whole words: try the words as substrings (identifiers, partial words).
      const words = q.terms.map((t) => t.text).filter((w) => w.length >= 3);
      if (words.length > 0) return this.substring(words, filters, limit);
    }
    return fts ?? NONE;
  }

  private weightsSql(): string {
    const w = this.config.search.weights;
    return `${w.title}, ${w.heading}, ${w.body}`;
  }

  private candidates(expr: string, filters: Filters, limit: number): Candidate[] {
    const f = filterSql(filters);
    // Without filters, skip the joins: every chunk in the index belongs to an indexed document.
    const sql = f.active
      ? `SELECT f.rowid AS rowid, bm25(chunks_fts, ${this.weightsSql()}) AS raw
         FROM chunks_fts f JOIN chunks c ON c.rowid = f.rowid JOIN documents d ON d.id = c.doc_id
         WHERE chunks_fts MATCH ? ${f.where} ORDER BY raw, f.rowid LIMIT ?`
      : `SELECT rowid, bm25(chunks_fts, ${this.weightsSql()}) AS raw FROM chunks_fts
         WHERE chunks_fts MATCH ? ORDER BY raw, rowid LIMIT ?`;
    try {
      return this.prep(sql).all(expr, ...(f.active ? f.params : []), limit) as Candidate[];
    } catch (e) {
      throw new KbError('QUERY_INVALID', `the search expression is not valid: ${(e as Error).message.replace(/^fts5: /, '')}`);
    }
  }

  private count(expr: string, filters: Filters): number {
    const f = filterSql(filters);
    const sql = f.active
      ? `SELECT count(*) AS n FROM chunks_fts f JOIN chunks c ON c.rowid = f.rowid JOIN documents d ON d.id = c.doc_id
         WHERE chunks_fts MATCH ? ${f.where}`
      : 'SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH ?';
    return (this.prep(sql).get(expr, ...(f.active ? f.params : [])) as { n: number }).n;
  }

  private queryWords(terms: Term[], phrases: string[][]): QueryWord[] {
    const df = this.docFreq(terms.filter((t) => !t.prefix).map((t) => t.stem));
    const words: QueryWord[] = terms.map((t) => ({
      text: t.text,
      form: t.prefix ? t.text : t.stem,
      prefix: t.prefix,
      weight: t.prefix ? 1 : this.idf(df.get(t.stem) ?? 1),
    }));
    for (const p of phrases) for (const w of p) words.push({ text: w, form: w, prefix: false, weight: 1 });
    return words;
  }

  private ranked(terms: Term[], phrases: string[][], filters: Filters, limit: number, feedback: boolean): LexicalResult {
    const s = this.config.search;
    const expr = toFtsExpression(terms, phrases);
    const depth = Math.max(limit, feedback ? FEEDBACK_DEPTH : RERANK_DEPTH);
    const cands = this.candidates(expr, filters, depth);
    const total = cands.length < depth ? cands.length : this.count(expr, filters);
    const words = this.queryWords(terms, phrases);
    const phraseWords = new Set(phrases.flat());
    const multi = terms.length + phrases.length > 1;
    const texts = this.texts(cands.map((c) => c.rowid));
    const analyses = cands.map((_, i) => analyze(words, texts[i]!.title, texts[i]!.heading, texts[i]!.text));
    const adjusted = cands.map((c, i) =>
      multi ? c.raw * (1 + s.coverage_boost * analyses[i]!.coverage) - s.proximity_boost * analyses[i]!.proximity : c.raw,
    );
    if (feedback && cands.length >= 3) {
      const order = cands.map((_, i) => i).sort((a, b) => adjusted[a]! - adjusted[b]! || cands[a]!.rowid - cands[b]!.rowid);
      const model = expansionModel(this, order.slice(0, s.feedback_docs).map((i) => analyses[i]!), s.feedback_terms);
      if (model.length > 0) {
        // RM3 interpolation, in bm25 units: the query's terms carry (1 - λ), the expansion model λ.
        const mix = (s.feedback_weight / (1 - s.feedback_weight)) * terms.length;
        const avg = this.avgLength();
        analyses.forEach((a, i) => {
          adjusted[i] = adjusted[i]! - mix * expansionScore(model, a, avg);
        });
      }
    }
    const hits: LexicalHit[] = cands.map((c, i) => {
      const a = analyses[i]!;
      const matched = [...a.matched].map((j) => words[j]!.text).filter((w) => !phraseWords.has(w));
      for (const p of phrases) if (p.every((w) => a.matched.has(words.findIndex((x) => x.text === w)))) matched.push(p.join(' '));
      return {
        rowid: c.rowid,
        score: normalise(adjusted[i]!),
        bm25: c.raw,
        coverage: multi ? a.coverage : null,
        proximity: multi ? a.proximity : null,
        matched,
        spans: a.spans,
      };
    });
    hits.sort((a, b) => b.score - a.score || a.rowid - b.rowid);
    return { hits: hits.slice(0, limit), total, ftsQuery: expr, strategy: 'fts' };
  }

  private raw(expr: string, typed: string[], filters: Filters, limit: number): LexicalResult {
    const cands = this.candidates(expr, filters, limit);
    const total = cands.length < limit ? cands.length : this.count(expr, filters);
    const words: QueryWord[] = typed
      .filter((w) => !FTS_OPERATORS.has(w))
      .map((w) => ({ text: w, form: w, prefix: true, weight: 1 }));
    const texts = this.texts(cands.map((c) => c.rowid));
    const hits = cands.map((c, i) => {
      const t = texts[i]!;
      const a = analyze(words, t.title, t.heading, t.text);
      return {
        rowid: c.rowid,
        score: normalise(c.raw),
        bm25: c.raw,
        coverage: null,
        proximity: null,
        matched: [...a.matched].map((j) => words[j]!.text),
        spans: a.spans,
      };
    });
    return { hits, total, ftsQuery: expr, strategy: 'raw' };
  }

  /** Substring matching on the trigram index: a hit scores the idf of the words it contains. */
  private substring(words: string[], filters: Filters, limit: number): LexicalResult {
    const f = filterSql(filters);
    const sql = `SELECT t.rowid AS rowid FROM chunks_tri t JOIN chunks c ON c.rowid = t.rowid JOIN documents d ON d.id = c.doc_id
      WHERE t.text LIKE ? ESCAPE '\\' ${f.where} LIMIT ${SUBSTRING_CAP}`;
    const byRow = new Map<number, { score: number; matched: string[] }>();
    for (const w of words) {
      const rows = this.prep(sql).all(`%${escapeLike(w)}%`, ...f.params) as { rowid: number }[];
      const idf = this.idf(rows.length);
      for (const r of rows) {
        const e = byRow.get(r.rowid) ?? { score: 0, matched: [] };
        e.score += idf;
        e.matched.push(w);
        byRow.set(r.rowid, e);
      }
    }
    const ranked = [...byRow.entries()].sort((a, b) => b[1].score - a[1].score || a[0] - b[0]).slice(0, limit);
    const texts = this.texts(ranked.map(([rowid]) => rowid));
    const hits: LexicalHit[] = ranked.map(([rowid, e], i) => ({
      rowid,
      score: e.score / (1 + e.score),
      bm25: null,
      coverage: e.matched.length / words.length,
      proximity: null,
      matched: e.matched,
      spans: substringSpans(texts[i]!.text, e.matched),
    }));
    return { hits, total: byRow.size, ftsQuery: null, strategy: 'substring' };
  }
}

function substringSpans(text: string, words: string[]): [number, number][] {
  const lower = text.toLowerCase();
  const spans: [number, number][] = [];
  for (const w of words) {
    const needle = w.toLowerCase();
    for (let i = lower.indexOf(needle); i >= 0 && spans.length < 200; i = lower.indexOf(needle, i + needle.length)) {
      spans.push([i, i + needle.length]);
    }
  }
  return spans.sort((a, b) => a[0] - b[0]);
}

function merge(a: LexicalResult, b: LexicalResult, limit: number): LexicalResult {
  const byRow = new Map<number, LexicalHit>();
  for (const h of [...a.hits, ...b.hits]) {
    const prev = byRow.get(h.rowid);
    if (!prev) byRow.set(h.rowid, { ...h });
    else {
      prev.score += h.score;
      prev.matched = [...new Set([...prev.matched, ...h.matched])];
      prev.spans = [...prev.spans, ...h.spans].sort((x, y) => x[0] - y[0]);
    }
  }
  const hits = [...byRow.values()].sort((x, y) => y.score - x.score || x.rowid - y.rowid).slice(0, limit);
  return { hits, total: Math.max(a.total, b.total, hits.length), ftsQuery: a.ftsQuery, strategy: 'fts' };
}

/** SQLite/FTS5 varints: big-endian 7-bit groups, a 9th byte carries 8 bits. */
function readVarints(buf: Uint8Array): number[] {
  const out: number[] = [];
  let i = 0;
  while (i < buf.length) {
    let v = 0;
    let n = 0;
    for (;;) {
      const byte = buf[i++] ?? 0;
      if (n === 8) {
        v = v * 256 + byte;
        break;
      }
      v = v * 128 + (byte & 0x7f);
      n++;
      if ((byte & 0x80) === 0 || i >= buf.length) break;
    }
    out.push(v);
  }
  return out;
}

// A model-based test of the index: random sequences of what people do — ingest good and failing files
// alone and in batches, edit, remove, re-ingest a folder, cancel half-way, kill -9 an ingest in
// another process, restart, doctor, doctor --fix, gc, a library big enough for a pack dictionary,
// searches while an ingest writes, the background upkeep of a long-lived host (merges, tops), an index
// an older kb wrote being upgraded meanwhile — checked after every step against a model of what the index must
// hold. Seeded and reproducible: a failure names its seed and step. test/index-model.test.ts runs a
// short sequence on each store; `npm run bench -- soak` a long one.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Engine } from '../../src/worker/index.js';
import { PARSER_VERSION } from '../../src/worker/version.js';
import { docx } from './format-fixtures.js';
import { Rng } from './fuzz.js';
import { makePdf } from './make-test-pdf.js';
import { schema10At } from './old-index.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

type Kind = 'md' | 'txt' | 'html' | 'pdf' | 'docx' | 'big';
const GOOD_KINDS: Kind[] = ['md', 'txt', 'html', 'pdf', 'docx'];
const BAD_KINDS = ['random.docx', 'broken.pdf', 'binary.md', 'zip.pdf'] as const;

/** What one file on disk holds now. */
interface DiskFile {
  /** The unique word of its current content; null for a file no reader can take. */
  word: string | null;
}

/** What the index must hold for a path. */
interface Indexed {
  /** The word it must be found by (the version indexed last), or null: no passage of it is searchable. */
  word: string | null;
  status: 'indexed' | 'failed';
}

export interface ModelOptions {
  seed: number;
  steps: number;
  /** Where the files and the data dir go (emptied by the caller). */
  dir: string;
  /** Opens the engine on the data dir (SQLite, or a PostgreSQL URL in its config). */
  open: (dataDir: string) => Promise<Engine>;
  /** The environment a `kb` child process needs to reach the same index (KB_STORE for PostgreSQL). */
  childEnv: Record<string, string>;
  /** Ops this run never does (a store that cannot, a run that must be short). */
  without?: string[];
  /**
   * SQLite: start from an index an older kb wrote (schema 10) holding one document of this many
   * passages, which kb upgrades — at open when small, a batch at a time in the background once the
   * steps keep up (past store/upgrades' AT_OPEN) — while the steps go on.
   */
  old?: number;
  /** Said after each step. */
  log?: (line: string) => void;
}

export interface ModelReport {
  steps: number;
  ops: Record<string, number>;
  documents: number;
}

const STEP_LIMIT_MS = 120_000;

/** Letters only, so no tokenizer splits it: a word no other document holds. */
function wordFor(seed: number, n: number): string {
  let x = n * 7919 + seed * 104729;
  let s = '';
  for (let i = 0; i < 7; i++) {
    s += String.fromCharCode(97 + (x % 26));
    x = Math.floor(x / 26) + 3;
  }
  return `zq${s}${String.fromCharCode(97 + (n % 26))}`;
}

const FILLER = [
  'The culvert under the lane floods each spring when the meltwater comes down.',
  'Samples from the weir were cloudy, and the turbidity rose after rain.',
  'Newts breed in the pond by the old mill, under the reeds.',
  'Chlorine residual was measured at the tap before and after flushing.',
];

export class IndexModel {
  private readonly r: Rng;
  private readonly src: string;
  private readonly dataDir: string;
  private engine!: Engine;
  private n = 0;
  private readonly disk = new Map<string, DiskFile>();
  private readonly index = new Map<string, Indexed>();
  /** Words no document may be found by any more (old versions, removed documents). */
  private readonly retired = new Set<string>();
  private readonly ops: Record<string, number> = {};

  constructor(private readonly o: ModelOptions) {
    this.r = new Rng(o.seed);
    this.src = join(o.dir, 'files');
    this.dataDir = join(o.dir, 'data');
  }

  async run(): Promise<ModelReport> {
    await mkdir(this.src, { recursive: true });
    if (this.o.old) await this.startOld(this.o.old);
    this.engine = await this.o.open(this.dataDir);
    try {
      for (let step = 1; step <= this.o.steps; step++) {
        // The walk's batch early on; from an old index, a host's upkeep soon after, so its upgrade runs
        // in the background under the steps that follow.
        const op = step === 2 && !this.skip('big') ? 'big' : step === 3 && this.o.old ? 'keep-up' : this.pickOp();
        this.ops[op] = (this.ops[op] ?? 0) + 1;
        try {
          await within(STEP_LIMIT_MS, this.do(op), `${op} did not finish`);
          await within(STEP_LIMIT_MS, this.check(), 'the checks did not finish');
        } catch (e) {
          throw new Error(`seed ${this.o.seed}, step ${step} (${op}): ${(e as Error).message}`, { cause: e });
        }
        this.o.log?.(`step ${step} ${op}: ${this.index.size} documents`);
      }
    } finally {
      await this.engine.close();
    }
    return { steps: this.o.steps, ops: this.ops, documents: this.index.size };
  }

  private skip(op: string): boolean {
    return this.o.without?.includes(op) ?? false;
  }

  private pickOp(): string {
    const weights: [string, number][] = [
      ['add', 18],
      ['add-mixed', 14],
      ['edit', 14],
      ['edit-bad', 5],
      ['remove', 9],
      ['folder', 6],
      ['cancel', 8],
      ['search-while-ingesting', 8],
      ['restart', 5],
      ['kill', 4],
      ['gc', 4],
      ['fix', 3],
      ['keep-up', 3],
      ['big', 1],
    ];
    const live = weights.filter(([op]) => !this.skip(op));
    const total = live.reduce((a, [, w]) => a + w, 0);
    let x = this.r.next() * total;
    for (const [op, w] of live) if ((x -= w) < 0) return op;
    return 'add';
  }

  private async do(op: string): Promise<void> {
    switch (op) {
      case 'add':
        return this.ingestAll(await this.newFiles(1 + this.r.int(5), false));
      case 'add-mixed':
        return this.ingestAll(await this.newFiles(2 + this.r.int(5), true));
      case 'big':
        // The walk of issue 49: a huge one-line file, then a PDF that fails once its old passages are
        // cleared, then good files; the index's first pack dictionary is due in the middle of it.
        return this.ingestAll([
          ...(await this.newFiles(1, true)),
          await this.newFile('big'),
          await this.newFile(null, 'broken.pdf'),
          ...(await this.newFiles(3, false)),
        ]);
      case 'edit':
        return this.ingestSome(await this.editSome(false));
      case 'edit-bad':
        return this.ingestSome(await this.editSome(true));
      case 'remove':
        return this.removeSome();
      case 'folder':
        return this.ingestAll([...this.disk.keys()], [this.src]);
      case 'cancel':
        return this.cancelled();
      case 'search-while-ingesting':
        return this.ingestAll(await this.newFiles(3 + this.r.int(4), true), undefined, true);
      case 'restart':
        await this.engine.close();
        this.engine = await this.o.open(this.dataDir);
        return;
      case 'kill':
        return this.killed();
      case 'gc':
        await this.engine.gc();
        return;
      case 'keep-up':
        // As the app's worker: from now on this engine merges the word indexes, updates the tops and
        // reads what waits in the background, between and during the steps that follow.
        this.engine.keepUp();
        await this.engine.backgroundWork();
        return;
      case 'fix': {
        const fixed = await this.engine.fix();
        const repairs = fixed.actions.filter((a) => a.name === 'passages' || a.name === 'full-text index');
        if (repairs.length > 0) throw new Error(`doctor --fix repaired a sound index: ${JSON.stringify(repairs)}`);
        return;
      }
      default:
        throw new Error(`no op ${op}`);
    }
  }

  /** The data dir as an older kb left it: one text file's lines, each a passage, the first holding its word. */
  private async startOld(rows: number): Promise<void> {
    const path = join(this.src, 'd0', 'f0-txt.txt');
    const word = wordFor(this.o.seed, 0);
    const line = (i: number): string =>
      `${i === 0 ? `${word} ` : ''}plain note number ${i} about ${FILLER[i % FILLER.length]!.toLowerCase()}`;
    await mkdir(dirname(path), { recursive: true });
    const text = Array.from({ length: rows }, (_, i) => line(i)).join('\n') + '\n';
    await writeFile(path, text);
    await mkdir(this.dataDir, { recursive: true });
    // Taken for unchanged by a folder's ingest: its old passages stay until the file is edited.
    const st = await stat(path);
    schema10At(join(this.dataDir, 'kb.sqlite'), line, rows, {
      path,
      root: this.src,
      hash: createHash('sha256').update(text).digest('hex'),
      size: st.size,
      mtime: Math.floor(st.mtimeMs),
      parser: PARSER_VERSION,
    });
    this.disk.set(path, { word });
    this.index.set(path, { word, status: 'indexed' });
  }

  /** New files, some of which (mixed) no reader can take. */
  private async newFiles(count: number, mixed: boolean): Promise<string[]> {
    const out: string[] = [];
    for (let i = 0; i < count; i++) out.push(await this.newFile(mixed && this.r.next() < 0.4 ? null : this.r.pick(GOOD_KINDS)));
    return out;
  }

  private async newFile(kind: Kind | null, bad?: (typeof BAD_KINDS)[number]): Promise<string> {
    const n = ++this.n;
    const ext = kind === null ? (bad ?? this.r.pick(BAD_KINDS)) : kind === 'big' ? 'txt' : kind;
    const path = join(this.src, `d${n % 7}`, `f${n}-${kind ?? 'bad'}.${ext.split('.').pop()}`);
    await this.write(path, kind);
    return path;
  }

  /** Writes a version of the file: a good one with a new word, or one no reader can take. */
  private async write(path: string, kind: Kind | null): Promise<void> {
    await mkdir(dirname(path), { recursive: true });
    if (kind === null) {
      await writeFile(path, badBytes(path, this.r));
      this.disk.set(path, { word: null });
      return;
    }
    const word = wordFor(this.o.seed, ++this.n);
    await writeFile(path, await goodBytes(kind, word, this.r));
    this.disk.set(path, { word });
  }

  /** Writes new versions of some files (good ones, or ones that turned bad); their paths. */
  private async editSome(bad: boolean): Promise<string[]> {
    const paths = [...this.disk.keys()].filter((p) => !p.includes('-big.'));
    const out: string[] = [];
    for (let i = 0; i < Math.min(paths.length, 1 + this.r.int(3)); i++) {
      const path = this.r.pick(paths);
      if (out.includes(path)) continue;
      const kind = kindOf(path);
      await this.write(path, bad || kind === null ? null : kind);
      out.push(path);
    }
    return out;
  }

  private async removeSome(): Promise<void> {
    const paths = [...this.index.keys()];
    for (let i = 0; i < Math.min(paths.length, 1 + this.r.int(2)); i++) {
      const path = this.r.pick(paths);
      if (!this.index.has(path)) continue;
      const removed = await this.engine.remove(path);
      if (!removed.removed.some((d) => d.path === path)) throw new Error(`remove ${path} removed ${JSON.stringify(removed.removed)}`);
      await rm(path, { force: true });
      this.disk.delete(path);
      this.retire(this.index.get(path)?.word ?? null);
      this.index.delete(path);
    }
  }

  private async ingestSome(paths: string[]): Promise<void> {
    if (paths.length > 0) await this.ingestAll(paths);
  }

  /** An ingest run to its end: each file indexed as it is now, or failed keeping what was indexed before. */
  private async ingestAll(paths: string[], asked = paths, searching = false): Promise<void> {
    const searches: Promise<unknown>[] = [];
    const known = [...this.index.values()].map((d) => d.word).filter((w): w is string => w !== null);
    const summary = await this.engine.ingest(asked, {
      ...(searching
        ? {
            onProgress: () => {
              // What a person types while the files land: the engine answers between documents.
              if (known.length > 0) searches.push(this.engine.search({ query: this.r.pick(known), mode: 'lexical', top: 5 }));
            },
          }
        : {}),
    });
    await Promise.all(searches);
    if (summary.not_read) throw new Error(`${summary.not_read} files not read by an ingest nobody cancelled`);
    for (const path of paths) this.settled(path);
  }

  /** A file an ingest finished with: the model follows what was on disk. */
  private settled(path: string): void {
    const now = this.disk.get(path);
    if (!now) return;
    const before = this.index.get(path);
    if (now.word !== null) {
      if (before?.word && before.word !== now.word) this.retire(before.word);
      this.index.set(path, { word: now.word, status: 'indexed' });
    } else {
      // A file that turned bad keeps its last good passages, and says it failed.
      this.index.set(path, { word: before?.word ?? null, status: 'failed' });
    }
  }

  private retire(word: string | null): void {
    if (word) this.retired.add(word);
  }

  /** An ingest cancelled half-way: each file is whole as it is now, whole as it was, or not in the index. */
  private async cancelled(): Promise<void> {
    const paths = await this.newFiles(3 + this.r.int(6), true);
    const edited = await this.editSome(this.r.next() < 0.3);
    const ctl = new AbortController();
    const after = this.r.int(3);
    let finished = 0;
    await this.engine.ingest([...paths, ...edited], {
      signal: ctl.signal,
      onProgress: (p) => {
        if (p.finished && ++finished > after) ctl.abort();
      },
    });
    await this.learn([...paths, ...edited]);
  }

  /** `kb ingest` in a process of its own, killed with SIGKILL at a random moment. */
  private async killed(): Promise<void> {
    const paths = await this.newFiles(4 + this.r.int(8), true);
    const edited = await this.editSome(false);
    const child = spawn(process.execPath, [join(repoRoot, 'bin/kb.js'), 'ingest', ...paths, ...edited], {
      env: { ...process.env, ...this.o.childEnv, KB_DATA_DIR: this.dataDir, NO_COLOR: '1' },
      stdio: 'ignore',
    });
    const exited = new Promise((r) => child.once('exit', r));
    await new Promise((r) => setTimeout(r, 300 + this.r.int(1500)));
    child.kill('SIGKILL');
    await exited;
    // The engine here stayed open beside it: what the other process committed, it reads.
    await this.learn([...paths, ...edited]);
  }

  /** After an ingest that did not finish: which version of each file the index holds, checked to be one it may. */
  private async learn(paths: string[]): Promise<void> {
    const docs = new Map((await this.engine.list()).map((d) => [d.path, d]));
    for (const path of paths) {
      const now = this.disk.get(path);
      const before = this.index.get(path);
      const doc = docs.get(path);
      if (!doc) {
        if (before) throw new Error(`${path} was indexed, and an unfinished ingest took it out`);
        continue;
      }
      if (now?.word && (await this.finds(now.word)).includes(path)) {
        if (before?.word && before.word !== now.word) this.retire(before.word);
        this.index.set(path, { word: now.word, status: 'indexed' });
      } else if (now?.word === null && doc.status === 'failed') {
        this.index.set(path, { word: before?.word ?? null, status: 'failed' });
      } else if (before) {
        // Not read again yet: the version indexed before stands, whole (checked below).
        if (now?.word) this.retire(now.word);
      } else if (doc.status === 'failed' || doc.chunks === 0) {
        this.index.set(path, { word: null, status: doc.status === 'failed' ? 'failed' : 'indexed' });
      } else {
        throw new Error(`${path} is in the index (${doc.status}, ${doc.chunks} passages) but its word ${now?.word} finds nothing`);
      }
      if (now?.word && !this.index.has(path)) this.retire(now.word);
    }
    // A word of a version the index never took is not to be found either, until a later ingest takes it.
    for (const path of paths) {
      const w = this.disk.get(path)?.word;
      if (w && this.index.get(path)?.word !== w) this.retired.add(w);
    }
  }

  private async finds(word: string): Promise<string[]> {
    return (await this.engine.search({ query: word, mode: 'lexical', top: 5, correct: false })).results.map((h) => h.citation.path);
  }

  /** The invariants, after every step. */
  private async check(): Promise<void> {
    for (const [path, d] of this.index) {
      if (!d.word) continue;
      const hits = await this.finds(d.word);
      if (hits.includes(path)) continue;
      const row = (await this.engine.list()).find((x) => x.path === path);
      if (process.env.DEBUG_MODEL) {
        const doc = await this.engine.inspectDoc(path);
        console.log(JSON.stringify(doc).slice(0, 1500));
        console.log(JSON.stringify(await this.engine.search({ query: d.word, mode: 'lexical', top: 5 })).slice(0, 1500));
        console.log(JSON.stringify(await this.engine.search({ query: 'record', mode: 'lexical', top: 100 })).includes(path));
      }
      throw new Error(
        `${path} is not found by its word ${d.word} (it finds ${hits.join(', ') || 'nothing'}; the document is ${row ? `${row.status}, ${row.chunks} passages` : 'not listed'})`,
      );
    }
    for (const w of this.retired) {
      // A word may come back: a later ingest read the version that holds it.
      if ([...this.index.values()].some((d) => d.word === w)) continue;
      const hits = await this.finds(w);
      if (hits.length > 0) throw new Error(`${w}, of a version no longer indexed, still finds ${hits.join(', ')}`);
    }
    const listed = new Map((await this.engine.list()).map((d) => [d.path, d]));
    for (const [path, d] of this.index) {
      const row = listed.get(path);
      if (!row) throw new Error(`${path} is missing from the list`);
      if (row.status === 'waiting') continue;
      if (row.status !== d.status) throw new Error(`${path} is ${row.status}, not ${d.status}: ${row.reason ?? ''}`);
    }
    for (const path of listed.keys())
      if (!this.index.has(path) && !this.disk.has(path)) throw new Error(`${path} is listed, but was removed`);
    const report = await this.engine.doctor();
    const failing = report.checks.filter((c) => c.status === 'fail' && c.name !== 'language model');
    if (failing.length > 0) throw new Error(`kb doctor: ${failing.map((c) => `${c.name}: ${c.detail}`).join('; ')}`);
    const counts = await this.engine.documentCounts();
    const failed = [...listed.values()].filter((d) => d.status === 'failed').length;
    if (counts.documents + counts.failed !== listed.size || counts.failed !== failed)
      throw new Error(`the counts say ${JSON.stringify(counts)}, the list ${listed.size} with ${failed} failed`);
  }
}

function kindOf(path: string): Kind | null {
  const m = /-(md|txt|html|pdf|docx|big|bad)\.\w+$/.exec(path);
  return m && m[1] !== 'bad' ? (m[1] as Kind) : null;
}

async function goodBytes(kind: Kind, word: string, r: Rng): Promise<Uint8Array | string> {
  const filler = FILLER[r.int(FILLER.length)]!;
  const sentence = `${filler} The record ${word} was written down.`;
  switch (kind) {
    case 'md':
      return `# Note\n\n${filler}\n\n## Record\n\nThe record ${word} was written down.\n`;
    case 'txt':
      return `${sentence}\n`;
    case 'html':
      return `<!doctype html><html><head><title>Page</title></head><body><main><h1>Page</h1><p>${sentence}</p></main></body></html>`;
    case 'pdf':
      return makePdf({ pages: [{ lines: [filler.slice(0, 60), `The record ${word} was written down.`] }] });
    case 'docx':
      return docx([{ text: 'Report', heading: 1 }, { text: sentence }]);
    case 'big': {
      // One line of ~3 MB: over a thousand passages, enough for the index's first pack dictionary.
      const words = ['turbidity', 'river', 'sample', 'meadow', 'water', 'flow', 'stone', 'bank', 'reed', 'heron'];
      const out: string[] = [];
      for (let i = 0; i < 450_000; i++) out.push(words[(i * 7 + (i >> 3)) % words.length]!);
      out.push(word);
      return out.join(' ');
    }
  }
}

function badBytes(path: string, r: Rng): Uint8Array | string {
  if (path.endsWith('.md')) return new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]);
  if (path.includes('-bad.pdf') && r.next() < 0.3) return 'PK\u0003\u0004 a zip named .pdf';
  if (path.endsWith('.pdf')) return '%PDF-1.4\n1 0 obj << /Broken true >> garbage\n';
  return new Uint8Array(2000).map(() => r.int(256));
}

async function within<T>(ms: number, p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} within ${ms / 1000} s`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

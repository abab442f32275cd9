// Crash safety, as the reliability tests and `npm run bench -- crash` prove it: a mixed corpus is
// ingested by a `kb ingest` process that is killed (SIGKILL) at a random moment; the data dir is then
// checked (doctor clean; every document whole or visibly pending; no half-written rows), the ingest
// is run again to the end, and the index compared with one built by a run never interrupted.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { openEngine } from '../../src/worker/index.js';
import { makePdf } from './make-test-pdf.js';

const root = resolve(import.meta.dirname, '../..');
const KB = join(root, 'bin', 'kb.js');

const WORDS = 'river stone lantern copper meadow signal harbor quiet orbit maple velvet canyon thunder pepper cobalt willow'.split(' ');
const words = (seed: number, n: number): string => Array.from({ length: n }, (_, i) => WORDS[(seed * 31 + i * 7) % WORDS.length]).join(' ');

/** Markdown, code, PDFs and images: `n` files, the same every time for the same n. */
export async function mixedCorpus(dir: string, n: number, corpora: string | null): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const pdfs = Math.round(n * 0.05);
  const images = corpora ? Math.min(4, Math.round(n * 0.004)) : 0;
  const code = Math.round(n * 0.12);
  for (let i = 0; i < n - pdfs - images - code; i++) {
    const sub = join(dir, `notes${i % 10}`);
    mkdirSync(sub, { recursive: true });
    // Most notes are one chunk, some two: embedding every round stays affordable.
    const body =
      i % 4 === 0 ? `## Part one\n\n${words(i, 120)} item${i}.\n\n## Part two\n\n${words(i + 1, 160)}.\n` : `${words(i, 50)} item${i}.\n`;
    writeFileSync(join(sub, `note${i}.md`), `# Note ${i}\n\n${body}`);
  }
  mkdirSync(join(dir, 'code'), { recursive: true });
  for (let i = 0; i < code; i++) {
    writeFileSync(
      join(dir, 'code', `mod${i}.ts`),
      `// Module ${i}\nexport function handler${i}(x: number): number {\n  // ${words(i, 12)}\n  return x * ${i};\n}\n\nexport class Store${i} {\n  get(k: string): string { return k + '${i}'; }\n}\n`,
    );
  }
  mkdirSync(join(dir, 'pdf'), { recursive: true });
  for (let i = 0; i < pdfs; i++) {
    writeFileSync(
      join(dir, 'pdf', `doc${i}.pdf`),
      await makePdf({ pages: [0, 1, 2].map((p) => ({ lines: [`Document ${i} page ${p + 1}`, words(i + p, 20), `marker${i}p${p}`] })) }),
    );
  }
  if (corpora) {
    mkdirSync(join(dir, 'img'), { recursive: true });
    for (let i = 0; i < images; i++)
      copyFileSync(join(corpora, 'images/tesseract.js', i % 2 ? 'simple.png' : 'testocr.png'), join(dir, 'img', `scan${i}.png`));
  }
}

export interface Fingerprint {
  documents: string[];
  chunks: string[];
  fts: number;
  vectors: string[] | null;
}

/** What the index holds: documents (path, hash, status), chunk ids, word-index rows, vector ids. */
export async function fingerprint(dataDir: string): Promise<Fingerprint> {
  const db = new Database(join(dataDir, 'kb.sqlite'), { readonly: true });
  try {
    const documents = (
      db.prepare('SELECT path, content_hash, status FROM documents ORDER BY path').all() as {
        path: string;
        content_hash: string;
        status: string;
      }[]
    ).map((d) => `${d.path} ${d.content_hash} ${d.status}`);
    const chunks = (db.prepare('SELECT id FROM chunks ORDER BY id').all() as { id: string }[]).map((c) => c.id);
    const fts = (db.prepare('SELECT count(*) AS n FROM chunks_fts').get() as { n: number }).n;
    const engine = await openEngine({ dataDir });
    const vectors = (await engine.vectorIds())?.sort() ?? null;
    engine.close();
    return { documents, chunks, fts, vectors };
  } finally {
    db.close();
  }
}

export interface AfterKill {
  doctorOk: boolean;
  doctorFailures: string[];
  /** Documents marked indexed that have no chunks and nothing pending or recorded to explain it. */
  halfPresent: string[];
  /** Chunks without their word-index row (or the other way round). */
  ftsMismatch: number;
}

/** The checks after a kill, before anything else touches the data dir. */
export function checkAfterKill(dataDir: string, env: NodeJS.ProcessEnv): AfterKill {
  const doctor = spawnSync(process.execPath, [KB, 'doctor', '--json', '--data-dir', dataDir], { env, encoding: 'utf8' });
  let doctorOk = false;
  let doctorFailures: string[] = [];
  try {
    const r = JSON.parse(doctor.stdout) as { ok: boolean; checks: { name: string; status: string; detail: string }[] };
    doctorOk = r.ok;
    doctorFailures = r.checks.filter((c) => c.status === 'fail').map((c) => `${c.name}: ${c.detail}`);
  } catch {
    doctorFailures = [`doctor printed no report: ${doctor.stdout.slice(0, 200)} ${doctor.stderr.slice(0, 200)}`];
  }
  const db = new Database(join(dataDir, 'kb.sqlite'), { readonly: true });
  try {
    const halfPresent = (
      db
        .prepare(
          `SELECT d.path FROM documents d
           WHERE d.status = 'indexed' AND d.error IS NULL
             AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.doc_id = d.id)
             AND NOT EXISTS (SELECT 1 FROM ocr_pages o WHERE o.doc_id = d.id AND o.status = 'pending')
             AND NOT EXISTS (SELECT 1 FROM transcripts t WHERE t.doc_id = d.id AND t.status IN ('pending', 'waiting'))`,
        )
        .all() as { path: string }[]
    ).map((r) => r.path);
    const chunks = (db.prepare('SELECT count(*) AS n FROM chunks').get() as { n: number }).n;
    const fts = (db.prepare('SELECT count(*) AS n FROM chunks_fts').get() as { n: number }).n;
    return { doctorOk, doctorFailures, halfPresent, ftsMismatch: Math.abs(chunks - fts) };
  } finally {
    db.close();
  }
}

/** Runs `kb ingest corpus` and kills it after `afterMs` (SIGKILL); resolves whether it was still running. */
export function ingestAndKill(
  corpus: string,
  dataDir: string,
  env: NodeJS.ProcessEnv,
  afterMs: number,
): Promise<{ killed: boolean; ms: number }> {
  return new Promise((resolvePromise) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [KB, 'ingest', corpus, '--data-dir', dataDir, '--json'], { env, stdio: 'ignore' });
    let done = false;
    const timer = setTimeout(() => {
      if (!done) child.kill('SIGKILL');
    }, afterMs);
    child.on('exit', (_code, signal) => {
      done = true;
      clearTimeout(timer);
      resolvePromise({ killed: signal === 'SIGKILL', ms: performance.now() - t0 });
    });
  });
}

/** Runs `kb ingest corpus` to the end. */
export function ingestAll(corpus: string, dataDir: string, env: NodeJS.ProcessEnv): { code: number; ms: number } {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [KB, 'ingest', corpus, '--data-dir', dataDir, '--json'], { env, encoding: 'utf8' });
  return { code: r.status ?? -1, ms: performance.now() - t0 };
}

export interface CrashRun {
  kills: number;
  recovered: number;
  failures: string[];
  cleanMs: number;
}

/**
 * The whole harness: a clean reference run, then `kills` rounds of ingest → SIGKILL at a random moment
 * of a clean run's length → checks → ingest to the end → compare with the reference.
 */
export async function crashRounds(
  work: string,
  corpus: string,
  kills: number,
  env: NodeJS.ProcessEnv,
  prepare: (dataDir: string) => void = () => undefined,
  seed = 7,
): Promise<CrashRun> {
  let s = seed;
  const rand = (): number => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const ref = join(work, 'reference');
  rmSync(ref, { recursive: true, force: true });
  prepare(ref);
  const clean = ingestAll(corpus, ref, env);
  if (clean.code !== 0 && clean.code !== 3) throw new Error(`the reference ingest failed (${clean.code})`);
  const want = await fingerprint(ref);
  const failures: string[] = [];
  let recovered = 0;
  for (let i = 0; i < kills; i++) {
    const dir = join(work, `round${i}`);
    rmSync(dir, { recursive: true, force: true });
    prepare(dir);
    // Process start and opening the index take the first few hundred ms: kill inside the real work.
    // A run that happens to finish first is redone with a fresh directory and another moment.
    // A run that ends before its kill shows how long runs take now: the next moment is drawn inside that.
    let at = 0;
    let killed = false;
    let span = 0.9 * clean.ms;
    for (let tries = 0; tries < 10 && !killed; tries++) {
      if (tries > 0) {
        rmSync(dir, { recursive: true, force: true });
        prepare(dir);
      }
      at = 300 + rand() * Math.max(0, span - 300);
      const k = await ingestAndKill(corpus, dir, env, at);
      killed = k.killed;
      if (!killed) span = Math.min(span, 0.8 * k.ms);
    }
    if (!killed) {
      failures.push(`round ${i}: ten ingests in a row ended before their kill`);
      rmSync(dir, { recursive: true, force: true });
      continue;
    }
    const after = existsSync(join(dir, 'kb.sqlite'))
      ? checkAfterKill(dir, env)
      : { doctorOk: true, doctorFailures: [], halfPresent: [], ftsMismatch: 0 };
    const again = ingestAll(corpus, dir, env);
    const got = await fingerprint(dir);
    const problems = [
      ...(after.doctorOk ? [] : [`doctor: ${after.doctorFailures.join('; ')}`]),
      ...(after.halfPresent.length ? [`half-present after the kill: ${after.halfPresent.slice(0, 3).join(', ')}`] : []),
      ...(after.ftsMismatch ? [`${after.ftsMismatch} chunks and word-index rows disagree after the kill`] : []),
      ...(again.code === 0 || again.code === 3 ? [] : [`the re-run ended with ${again.code}`]),
      ...(JSON.stringify(got.documents) === JSON.stringify(want.documents) ? [] : ['documents differ from the uninterrupted run']),
      ...(JSON.stringify(got.chunks) === JSON.stringify(want.chunks) ? [] : ['chunk ids differ from the uninterrupted run']),
      ...(got.fts === want.fts ? [] : [`word-index rows ${got.fts} ≠ ${want.fts}`]),
      ...(JSON.stringify(got.vectors) === JSON.stringify(want.vectors) ? [] : ['vector ids differ from the uninterrupted run']),
    ];
    if (problems.length) failures.push(`round ${i} (killed at ${at.toFixed(0)} ms): ${problems.join('; ')}`);
    else recovered++;
    rmSync(dir, { recursive: true, force: true });
  }
  return { kills, recovered, failures, cleanMs: clean.ms };
}

// The libraries of `npm run bench -- vocabularies`: three that the word index's thresholds were never
// tuned on (the scale bench's generator was), each written once into .bench/vocab-<name>/notes.
// - docs: real text every such machine has — the Markdown and text files under node_modules (READMEs,
//   changelogs, licences) and Debian's package changelogs and READMEs under /usr/share/doc;
// - ir-mix: Cranfield's and CACM's real sentences recombined into notes of both fields at once;
// - zipf: generated words with another distribution — made-up words, a heavier head (Zipf s = 1.15)
//   and no bigram chains, so common words meet at random.
// Seeded and sorted: a machine writes the same library every run.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Rng } from './corpus.js';
import { loadCranfield } from './cranfield.js';
import { loadSmart } from './smart.js';
import { corporaDir, repoRoot } from './util.js';

export interface VocabCorpus {
  name: string;
  /** What it is, for the report. */
  about: string;
  /** Writes notes of about `bytes` bytes in all into `dir`; returns the bytes written. */
  write(dir: string, bytes: number): Promise<number>;
}

const FILE_BYTES = 400_000;

/** Writes texts as notes, a long one cut at paragraph ends into files of about FILE_BYTES, until `budget`. */
async function writeTexts(dir: string, texts: Iterable<{ name: string; text: string }>, budget: number): Promise<number> {
  await mkdir(dir, { recursive: true });
  let written = 0;
  let n = 0;
  for (const { name, text } of texts) {
    for (let at = 0; at < text.length && written < budget;) {
      let end = Math.min(text.length, at + FILE_BYTES);
      if (end < text.length) {
        const para = text.lastIndexOf('\n\n', end);
        if (para > at + FILE_BYTES / 2) end = para;
      }
      const part = text.slice(at, end);
      at = end;
      if (part.trim().length < 200) continue;
      const file = join(dir, `${String(n++).padStart(6, '0')}-${name}`);
      await writeFile(file, part);
      written += Buffer.byteLength(part);
    }
    if (written >= budget) break;
  }
  return written;
}

function* walk(dir: string, keep: (path: string) => boolean): Generator<string> {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return;
  }
  for (const name of names) {
    const p = join(dir, name);
    let st;
    try {
      st = statSync(p, { throwIfNoEntry: false });
    } catch {
      continue;
    }
    if (!st) continue;
    if (st.isDirectory()) yield* walk(p, keep);
    else if (st.isFile() && keep(p)) yield p;
  }
}

const TEXT_EXT = new Set(['.md', '.markdown', '.txt', '.rst']);
const DEBIAN_DOC = /^(changelog|news|readme|history|changes)([.-].*)?(\.gz)?$/i;

function* realDocs(): Generator<{ name: string; text: string }> {
  const sources: [string, (p: string) => boolean][] = [
    [join(repoRoot, 'node_modules'), (p) => TEXT_EXT.has(extname(p).toLowerCase()) && !p.includes('.kb-scratch')],
    ['/usr/share/doc', (p) => DEBIAN_DOC.test(basename(p))],
  ];
  for (const [root, keep] of sources)
    for (const p of walk(root, keep)) {
      let bytes: Buffer;
      try {
        bytes = readFileSync(p);
        if (p.endsWith('.gz')) bytes = gunzipSync(bytes);
      } catch {
        continue;
      }
      if (bytes.length < 200 || bytes.includes(0)) continue;
      const name = basename(p).replace(/\.gz$/, '');
      yield { name: /\.(md|markdown|txt|rst)$/i.test(name) ? name : `${name}.txt`, text: bytes.toString('utf8') };
    }
}

function* recombined(rng: Rng): Generator<{ name: string; text: string }> {
  const ir = join(corporaDir(), 'ir');
  const texts = [...loadCranfield(join(ir, 'cranfield')).docs, ...loadSmart(join(ir, 'cacm'), 'cacm').docs].map((d) => d.text);
  const sentences = texts.flatMap((t) => t.split(/(?<=[.?!])\s+/).filter((s) => s.length > 20));
  for (let i = 0; ; i++) {
    const paras: string[] = [];
    const want = 2 + rng.int(12);
    for (let p = 0; p < want; p++) paras.push(Array.from({ length: 2 + rng.int(6) }, () => rng.pick(sentences)).join(' '));
    yield { name: `mix-${i}.md`, text: `# ${rng.pick(sentences).slice(0, 60)}\n\n${paras.join('\n\n')}\n` };
  }
}

/** Zipf over `size` made-up words with exponent `s`: the n-th most frequent ∝ 1/n^s. */
function zipfSampler(rng: Rng, size: number, s: number): () => string {
  const syll = ['ka', 'lo', 'mi', 'ne', 'ru', 'ta', 'vo', 'zi', 'pe', 'sha', 'dro', 'glen', 'qua', 'thi', 'bex', 'fon', 'yar', 'wil'];
  const seen = new Set<string>();
  while (seen.size < size) {
    let w = '';
    for (let i = 1 + rng.int(4); i >= 0; i--) w += rng.pick(syll);
    seen.add(w);
  }
  const words = [...seen];
  const cumulative = new Float64Array(size);
  let sum = 0;
  for (let i = 0; i < size; i++) cumulative[i] = sum += 1 / Math.pow(i + 1, s);
  return () => {
    const x = rng.next() * sum;
    let lo = 0;
    let hi = size - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return words[lo]!;
  };
}

function* generated(rng: Rng): Generator<{ name: string; text: string }> {
  const word = zipfSampler(rng, 150_000, 1.15);
  const sentence = (): string => {
    const ws = Array.from({ length: 5 + rng.int(16) }, word);
    ws[0] = ws[0]!.charAt(0).toUpperCase() + ws[0]!.slice(1);
    return `${ws.join(' ')}.`;
  };
  for (let i = 0; ; i++) {
    const paras = Array.from({ length: 1 + rng.int(10) }, () => Array.from({ length: 2 + rng.int(6) }, sentence).join(' '));
    yield { name: `gen-${i}.md`, text: `# ${word()} ${word()}\n\n${paras.join('\n\n')}\n` };
  }
}

export const VOCAB_CORPORA: readonly VocabCorpus[] = [
  {
    name: 'docs',
    about: "real READMEs, changelogs and docs under node_modules and Debian's /usr/share/doc",
    write: (dir, bytes) => writeTexts(dir, realDocs(), bytes),
  },
  {
    name: 'ir-mix',
    about: "Cranfield's and CACM's sentences recombined into notes",
    write: (dir, bytes) => writeTexts(dir, recombined(new Rng(5151)), bytes),
  },
  {
    name: 'zipf',
    about: 'made-up words, Zipf s = 1.15 over 150,000 of them, no word pairs',
    write: (dir, bytes) => writeTexts(dir, generated(new Rng(6161)), bytes),
  },
];

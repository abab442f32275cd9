// The library of `npm run bench -- scale`: a heavy personal library generated on this machine — notes
// of very different sizes, source files, a few real PDFs — written as parts of about 100,000 passages
// each, so the bench can measure as it grows. Text comes from word-bigram chains over two real
// collections of different fields (Cranfield's aeronautics, CACM's computing), and a tenth of its
// words from a long Zipfian tail of made-up words, names and numbers: real libraries have hundreds of
// thousands of rare terms, and prefix expansion and the word index's size depend on that tail.
// Seeded: every run writes the same library.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makePdf } from '../test/support/make-test-pdf.js';
import { Rng, TAGS, type TextModel, note, paragraph, sentence, trainModelOn } from './corpus.js';
import { loadCranfield } from './cranfield.js';
import { loadSmart } from './smart.js';

/** Made-up words of 2–4 syllables, sampled with Zipf's law (the n-th most frequent ∝ 1/n). */
export class LongTail {
  readonly words: string[];
  private readonly cumulative: Float64Array;

  constructor(rng: Rng, size: number) {
    const onsets = [
      'b',
      'br',
      'c',
      'ch',
      'd',
      'f',
      'g',
      'gr',
      'h',
      'k',
      'l',
      'm',
      'n',
      'p',
      'pl',
      'r',
      's',
      'st',
      't',
      'tr',
      'v',
      'w',
      'z',
    ];
    const vowels = ['a', 'e', 'i', 'o', 'u', 'ai', 'ea', 'ou', 'y'];
    const codas = ['', '', '', 'n', 'r', 's', 'l', 'x', 'nd', 'rt', 'm'];
    const seen = new Set<string>();
    while (seen.size < size) {
      const syllables = 2 + rng.int(3);
      let w = '';
      for (let i = 0; i < syllables; i++) w += rng.pick(onsets) + rng.pick(vowels) + rng.pick(codas);
      seen.add(w);
    }
    this.words = [...seen];
    this.cumulative = new Float64Array(size);
    let sum = 0;
    for (let i = 0; i < size; i++) this.cumulative[i] = sum += 1 / (i + 1);
    for (let i = 0; i < size; i++) this.cumulative[i]! /= sum;
  }

  pick(rng: Rng): string {
    const x = rng.next();
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return this.words[lo]!;
  }
}

export interface Library {
  models: TextModel[];
  tail: LongTail;
}

export function library(corpora: string): Library {
  const cran = loadCranfield(join(corpora, 'ir', 'cranfield')).docs.map((d) => `${d.title} ${d.text}`);
  // CACM writes punctuation against its words; the chain ends a sentence at a "." of its own.
  const cacm = loadSmart(join(corpora, 'ir', 'cacm'), 'cacm').docs.map((d) => d.text.replace(/([.,;:])(?=\s|$)/g, ' $1'));
  return { models: [trainModelOn(cran), trainModelOn(cacm)], tail: new LongTail(new Rng(99), 200_000) };
}

/** A tenth of the words swapped for the long tail: names, rare terms, now and then a number or a code. */
function spice(text: string, lib: Library, rng: Rng): string {
  return text.replace(/\b[a-z]{3,}\b/g, (w) => {
    const r = rng.next();
    if (r >= 0.1) return w;
    if (r < 0.008) return String(rng.int(r < 0.004 ? 100 : 100_000));
    if (r < 0.012) return `${lib.tail.pick(rng).toUpperCase().slice(0, 3)}-${rng.int(1000)}`;
    const t = lib.tail.pick(rng);
    return r < 0.02 ? t.charAt(0).toUpperCase() + t.slice(1) : t;
  });
}

/** Note sizes as a library has them: mostly short, a long tail of long ones (log-normal, 300 B – 60 KB). */
function noteBytes(rng: Rng): number {
  const normal = Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
  return Math.round(Math.min(60_000, Math.max(300, Math.exp(Math.log(2500) + 1.0 * normal))));
}

function identifier(words: string[], style: number): string {
  if (style === 0) return words.join('_');
  return words.map((w, i) => (i === 0 ? w : w.charAt(0).toUpperCase() + w.slice(1))).join('');
}

/** A source file: functions named from the text's words (camelCase or snake_case), commented. */
function sourceFile(m: TextModel, lib: Library, rng: Rng): { ext: string; text: string } {
  const py = rng.next() < 0.4;
  const seed = rng.pick(m.seeds);
  const word = (): string => (rng.next() < 0.3 ? lib.tail.pick(rng) : (rng.pick(seed.length > 0 ? seed : m.vocabulary) ?? 'value'));
  const out: string[] = [];
  const functions = 3 + rng.int(12);
  for (let f = 0; f < functions; f++) {
    const name = identifier([word(), word(), ...(rng.next() < 0.5 ? [word()] : [])], py ? 0 : 1);
    const args = Array.from({ length: 1 + rng.int(3) }, () => identifier([word(), word()], py ? 0 : 1));
    const comment = spice(sentence(m, rng, seed), lib, rng);
    const body = Array.from({ length: 2 + rng.int(8) }, () => {
      const v = identifier([word(), word()], py ? 0 : 1);
      return py ? `    ${v} = ${rng.pick(args)} + ${rng.int(100)}` : `  const ${v} = ${rng.pick(args)} * ${rng.int(100)};`;
    });
    if (py) out.push(`def ${name}(${args.join(', ')}):`, `    """${comment}"""`, ...body, `    return ${rng.pick(args)}`, '');
    else out.push(`// ${comment}`, `export function ${name}(${args.join(', ')}) {`, ...body, `  return ${rng.pick(args)};`, '}', '');
  }
  return { ext: py ? 'py' : 'ts', text: out.join('\n') };
}

/** About how many passages kb makes of this many bytes of prose (a passage is about 700 bytes). */
const BYTES_PER_PASSAGE = 700;

/**
 * Writes part `index` (0-based) of the library into `dir`: files until about `passages` passages,
 * 200 files per folder. Of the files, 87% are Markdown notes, 12% source files, 1% PDFs of 5–40
 * pages. Returns the bytes written and the files.
 */
export async function writePart(dir: string, lib: Library, index: number, passages: number): Promise<{ bytes: number; files: number }> {
  const rng = new Rng(1000 + index);
  let bytes = 0;
  let files = 0;
  let estimate = 0;
  while (estimate < passages) {
    const folder = join(dir, `f${String(Math.floor(files / 200)).padStart(4, '0')}`);
    if (files % 200 === 0) await mkdir(folder, { recursive: true });
    const m = rng.pick(lib.models);
    const r = rng.next();
    const name = join(folder, `p${index}-${String(files).padStart(6, '0')}`);
    if (r < 0.01) {
      const seed = rng.pick(m.seeds);
      const pages = Array.from({ length: 5 + rng.int(36) }, () => ({
        // The standard fonts write Latin-1 only.
        lines: wrap(spice(paragraph(m, rng, seed, 2200), lib, rng).replace(/[^\x20-\x7e]/g, ' '), 90).slice(0, 40),
      }));
      const pdf = await makePdf({ pages, header: 'Technical report', footer: 'Page {n} of {total}' });
      await writeFile(`${name}.pdf`, pdf);
      bytes += pages.reduce((n, p) => n + p.lines.join('\n').length, 0);
      estimate += pages.length * 3;
    } else if (r < 0.13) {
      const f = sourceFile(m, lib, rng);
      await writeFile(`${name}.${f.ext}`, f.text);
      bytes += Buffer.byteLength(f.text);
      estimate += Math.max(1, Math.round(f.text.length / BYTES_PER_PASSAGE));
    } else {
      const written = note(m, rng, noteBytes(rng), TAGS);
      // The front matter as written (its keys and tags); the body spiced.
      const body = written.indexOf('\n---\n') + 5;
      const text = written.slice(0, body) + spice(written.slice(body), lib, rng);
      await writeFile(`${name}.md`, text);
      bytes += Buffer.byteLength(text);
      estimate += Math.max(1, Math.round(text.length / BYTES_PER_PASSAGE));
    }
    files++;
  }
  return { bytes, files };
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const w of text.split(' ')) {
    if (line.length + w.length + 1 > width && line) {
      lines.push(line);
      line = w;
    } else line = line ? `${line} ${w}` : w;
  }
  if (line) lines.push(line);
  return lines;
}

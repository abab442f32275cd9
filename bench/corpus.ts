// A generated corpus of realistic text: Markdown notes written by a word-bigram Markov chain trained
// on real English (the Cranfield abstracts), each note leaning on the vocabulary of one seed abstract
// so that notes have topics, as real collections do. Seeded, so every run writes the same corpus.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadCranfield } from './cranfield.js';

export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0 || 1;
  }
  next(): number {
    // xorshift32
    let x = this.s;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.s = x >>> 0;
    return this.s / 0x100000000;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
}

export interface TextModel {
  next: Map<string, string[]>;
  starts: string[];
  seeds: string[][];
  vocabulary: string[];
}

export function trainModel(cranfieldDir: string): TextModel {
  return trainModelOn(loadCranfield(cranfieldDir).docs.map((d) => `${d.title} ${d.text}`));
}

/** A word-bigram model of these texts (each text one topic seed). */
export function trainModelOn(texts: readonly string[]): TextModel {
  const next = new Map<string, string[]>();
  const starts: string[] = [];
  const seeds: string[][] = [];
  const vocab = new Set<string>();
  for (const t of texts) {
    const words = t.split(/\s+/).filter((w) => w.length > 0);
    seeds.push(words.filter((w) => /^[a-z]{4,}$/.test(w)));
    for (let i = 0; i < words.length; i++) {
      const w = words[i]!;
      vocab.add(w);
      if (i === 0 || words[i - 1] === '.') starts.push(w);
      const n = words[i + 1];
      if (n) {
        const list = next.get(w) ?? [];
        list.push(n);
        next.set(w, list);
      }
    }
  }
  return { next, starts, seeds, vocabulary: [...vocab].filter((w) => /^[a-z]{3,}$/.test(w)) };
}

export function sentence(m: TextModel, rng: Rng, seed: string[]): string {
  let w = rng.pick(m.starts);
  const out = [w];
  for (let i = 0; i < 40; i++) {
    const options = m.next.get(w);
    // Lean on the note's topic: a third of the time, jump to one of its seed words.
    w = rng.next() < 0.3 && seed.length > 0 ? rng.pick(seed) : options ? rng.pick(options) : rng.pick(m.starts);
    if (w === '.') break;
    out.push(w);
  }
  const s = out.join(' ').replace(/ ([,;:])/g, '$1');
  return s.charAt(0).toUpperCase() + s.slice(1) + '.';
}

export function paragraph(m: TextModel, rng: Rng, seed: string[], chars: number): string {
  const parts: string[] = [];
  let n = 0;
  while (n < chars) {
    const s = sentence(m, rng, seed);
    parts.push(s);
    n += s.length + 1;
  }
  return parts.join(' ');
}

/** One Markdown note of about `bytes`: title, front-matter tags, sections with paragraphs. */
export function note(m: TextModel, rng: Rng, bytes: number, tags: readonly string[]): string {
  const seed = rng.pick(m.seeds);
  const title = sentence(m, rng, seed)
    .slice(0, 60)
    .replace(/[.,;:]+$/, '');
  const lines = ['---', `title: ${JSON.stringify(title)}`, `tags: [${rng.pick(tags)}, ${rng.pick(tags)}]`, '---', `# ${title}`, ''];
  let size = lines.join('\n').length;
  let section = 0;
  while (size < bytes) {
    if (section % 2 === 0) {
      const h = `## ${sentence(m, rng, seed)
        .split(' ')
        .slice(0, 4)
        .join(' ')
        .replace(/[.,;:]+$/, '')}`;
      lines.push(h, '');
      size += h.length + 2;
    }
    const p = paragraph(m, rng, seed, 350 + rng.int(400));
    lines.push(p, '');
    size += p.length + 2;
    section++;
  }
  return lines.join('\n');
}

export const TAGS = ['work', 'personal', 'research', 'ideas', 'reading', 'project-x', 'meetings', 'archive'] as const;

/** Writes `files` notes of about `bytes` each into dir/<folder>/…, 200 per folder. Returns total bytes. */
export async function writeCorpus(dir: string, m: TextModel, files: number, bytes: number, seed = 42): Promise<number> {
  const rng = new Rng(seed);
  let total = 0;
  for (let i = 0; i < files; i++) {
    const folder = join(dir, `folder-${String(Math.floor(i / 200)).padStart(3, '0')}`);
    if (i % 200 === 0) await mkdir(folder, { recursive: true });
    const text = note(m, rng, bytes, TAGS);
    total += Buffer.byteLength(text);
    await writeFile(join(folder, `note-${String(i).padStart(6, '0')}.md`), text);
  }
  return total;
}

import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../src/shared/config.js';
import { parseCode } from '../src/worker/ingest/formats/code.js';
import { parseMarkdown } from '../src/worker/ingest/formats/markdown.js';
import { parseNote } from '../src/worker/ingest/formats/text.js';
import type { ParsedChunk } from '../src/worker/ingest/types.js';

const opts = defaultConfig().chunking;

/** Every chunk's text must be exactly the lines its anchor cites. */
function expectExactLines(source: string, chunks: ParsedChunk[]): void {
  const lines = source.split('\n');
  for (const c of chunks) {
    if (c.anchor.kind !== 'lines') throw new Error('expected a line anchor');
    expect(c.text).toBe(lines.slice(c.anchor.start - 1, c.anchor.end).join('\n'));
  }
}

/** A paragraph wrapped at one sentence per line, as prose in Markdown sources often is. */
const para = (n: number, word: string): string =>
  Array.from({ length: n }, (_, i) => `${word} sentence number ${i} says something.`).join('\n');

describe('Markdown chunking', () => {
  it('carries heading paths and exact line ranges', () => {
    const md = [
      '# Guide',
      '',
      para(8, 'intro'),
      '',
      '## Setup',
      '',
      para(6, 'setup'),
      '',
      '### Linux',
      '',
      para(10, 'apt'),
      '',
      '## Usage',
      '',
      para(10, 'usage'),
    ].join('\n');
    const doc = parseMarkdown(md, 'guide', opts);
    expect(doc.title).toBe('Guide');
    expectExactLines(md, doc.chunks);
    const linux = doc.chunks.find((c) => c.text.includes('apt sentence'));
    expect(linux?.heading).toMatch(/^Guide > Setup( > Linux)?$/);
    const usage = doc.chunks.find((c) => c.text.includes('usage sentence number 9'));
    expect(usage?.heading).toBe('Guide > Usage');
  });

  it('merges sections that are too small', () => {
    const md = ['# A', '', 'one', '', '## B', '', 'two', '', '## C', '', 'three'].join('\n');
    const doc = parseMarkdown(md, 'x', opts);
    expect(doc.chunks).toHaveLength(1);
    expect(doc.chunks[0]!.anchor).toEqual({ kind: 'lines', start: 1, end: 11 });
    // Merged, it is labelled with what its sections share: not with the first section's heading alone.
    expect(doc.chunks[0]!.heading).toBe('A');
  });

  it('labels a chunk of merged sections by the heading they share, and a piece of one section by its own', () => {
    const md = [
      '# Setup',
      '',
      para(12, 'intro'),
      '',
      '## Linux',
      '',
      'apt-get install kb',
      '',
      '## macOS',
      '',
      'brew install kb',
      '',
      '## Windows',
      '',
      'winget install kb',
    ].join('\n');
    const doc = parseMarkdown(md, 'x', opts);
    const installs = doc.chunks.find((c) => c.text.startsWith('## Linux'))!;
    expect(installs.text).toContain('winget');
    // Not "Setup > Linux": two thirds of it are about macOS and Windows.
    expect(installs.heading).toBe('Setup');
    // A big section after a small one: the pieces wholly inside it carry its own heading.
    const big = [
      '# Guide',
      '',
      '## Intro',
      '',
      'short intro',
      '',
      '## Install',
      '',
      ...Array.from({ length: 8 }, (_, i) => para(6, `inst${i}`) + '\n'),
    ].join('\n');
    const chunks = parseMarkdown(big, 'g', opts).chunks;
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.at(-1)!.heading).toBe('Guide > Install');
    expect(chunks[0]!.heading).toBe('Guide');
  });

  it('splits a big section at paragraphs, with overlap, and never inside a code fence or a table', () => {
    const fence = ['```ts', ...Array.from({ length: 60 }, (_, i) => `const v${i} = ${i}; // keep me together`), '```'];
    const table = ['| a | b |', '|---|---|', ...Array.from({ length: 40 }, (_, i) => `| row ${i} | value ${i} |`)];
    const parts = ['# Big', ''];
    for (let i = 0; i < 6; i++) parts.push(para(6, `p${i}`), '');
    parts.push(...fence, '', para(6, 'after'), '', ...table, '', para(3, 'end'));
    const md = parts.join('\n');
    const doc = parseMarkdown(md, 'big', opts);
    expectExactLines(md, doc.chunks);
    expect(doc.chunks.length).toBeGreaterThan(3);
    const fenceStart = md.split('\n').indexOf('```ts') + 1;
    const withFence = doc.chunks.filter((c) => c.text.includes('const v0 ='));
    expect(withFence.length).toBeGreaterThan(0);
    for (const c of withFence) expect(c.text).toContain('const v59 =');
    for (const c of doc.chunks) {
      if (c.anchor.kind !== 'lines') continue;
      // no chunk starts or ends strictly inside the fence
      const inside = (l: number): boolean => l > fenceStart && l < fenceStart + fence.length - 1;
      expect(inside(c.anchor.start) || inside(c.anchor.end)).toBe(false);
    }
    for (const c of doc.chunks.filter((x) => x.text.includes('| row 0 |'))) expect(c.text).toContain('| row 39 |');
    // overlap: some paragraph appears in two consecutive chunks
    const starts = doc.chunks.map((c) => (c.anchor.kind === 'lines' ? c.anchor.start : 0));
    const ends = doc.chunks.map((c) => (c.anchor.kind === 'lines' ? c.anchor.end : 0));
    expect(starts.slice(1).some((s, i) => s <= ends[i]!)).toBe(true);
  });

  it('honours front-matter title and tags and keeps it out of chunks', () => {
    const md = ['---', 'title: Real Title', 'tags: [Work, "#ideas"]', '---', '# Heading', '', 'Body text.'].join('\n');
    const doc = parseMarkdown(md, 'file', opts);
    expect(doc.title).toBe('Real Title');
    expect(doc.tags).toEqual(['Work', 'ideas']);
    expect(doc.chunks[0]!.anchor).toEqual({ kind: 'lines', start: 5, end: 7 });
    expect(doc.chunks.some((c) => c.text.includes('title:'))).toBe(false);
  });

  it('survives broken front matter', () => {
    const doc = parseMarkdown('---\ntitle: [unclosed\n---\ntext', 'f', opts);
    expect(doc.title).toBe('f');
    expect(doc.chunks).toHaveLength(1);
  });
});

describe('plain-text notes', () => {
  it('keeps a short note as one chunk, trimmed of blank lines', () => {
    const doc = parseNote('\n\nBuy milk\nand eggs\n\n', 'groceries.txt', opts);
    expect(doc.title).toBe('Buy milk');
    expect(doc.chunks).toEqual([expect.objectContaining({ text: 'Buy milk\nand eggs', anchor: { kind: 'lines', start: 3, end: 4 } })]);
  });

  it('splits a long text at paragraphs', () => {
    const text = Array.from({ length: 12 }, (_, i) => para(5, `para${i}`)).join('\n\n');
    const doc = parseNote(text, 'long.txt', opts);
    expect(doc.chunks.length).toBeGreaterThan(2);
    expectExactLines(text, doc.chunks);
    for (const c of doc.chunks) expect(c.text.length).toBeLessThanOrEqual(opts.max_chars);
  });

  it('cuts one enormous line into bounded windows, each citing that line and its own characters', () => {
    const text = Array.from({ length: opts.max_chars }, (_, i) => `w${i}`).join(' ');
    const doc = parseNote(text, 'one.txt', opts);
    expect(doc.chunks.length).toBeGreaterThanOrEqual(3);
    let next = 1;
    for (const c of doc.chunks) {
      expect(c.text.length).toBeLessThanOrEqual(opts.max_chars);
      if (c.anchor.kind !== 'lines' || c.anchor.col_start === undefined || c.anchor.col_end === undefined) throw new Error('no columns');
      expect([c.anchor.start, c.anchor.end, c.anchor.col_start]).toEqual([1, 1, next]);
      // The characters cited are the chunk's text, exactly, and the windows tile the line.
      expect(text.slice(c.anchor.col_start - 1, c.anchor.col_end)).toBe(c.text);
      next = c.anchor.col_end + 1;
    }
    expect(next).toBe(text.length + 1);
  });

  it('gives an empty file no chunks', () => {
    expect(parseNote('', 'e.txt', opts).chunks).toEqual([]);
  });
});

describe('code chunking', () => {
  it('TypeScript: one chunk per function, class and method; doc comments belong to them', async () => {
    const src = [
      "import { x } from './x.js';",
      '',
      '/** Adds two numbers. */',
      'export function add(a: number, b: number): number {',
      '  return a + b;',
      '}',
      '',
      '// A store of things.',
      'export class Store {',
      '  get(k: string) { return k; }',
      '}',
      '',
      'export const arrow = (n: number) => n * 2;',
      'const plain = 3;',
    ].join('\n');
    const doc = await parseCode(src, 'a.ts', '.ts', 'typescript', opts);
    expectExactLines(src, doc.chunks);
    const add = doc.chunks.find((c) => c.heading === 'add');
    expect(add?.anchor).toEqual({ kind: 'lines', start: 3, end: 6 });
    expect(add?.text).toContain('Adds two numbers');
    expect(doc.chunks.find((c) => c.heading === 'Store')?.anchor).toEqual({ kind: 'lines', start: 8, end: 11 });
    expect(doc.chunks.find((c) => c.heading === 'arrow')).toBeDefined();
    expect(doc.chunks.some((c) => c.text.includes('import { x }'))).toBe(true);
    expect(doc.lang).toBe('typescript');
  });

  it('cuts a big class into its methods, labelled Class.method', async () => {
    const methods = Array.from(
      { length: 30 },
      (_, i) => `  /** Method ${i}. */\n  m${i}(x: number): number {\n    return x + ${i}; // ${'pad '.repeat(10)}\n  }`,
    );
    const src = `export class Big {\n  field = 1;\n${methods.join('\n')}\n}\n`;
    const doc = await parseCode(src, 'big.ts', '.ts', 'typescript', opts);
    expectExactLines(src, doc.chunks);
    expect(doc.chunks.find((c) => c.heading === 'Big.m7')?.text).toContain('Method 7.');
    expect(doc.chunks.find((c) => c.heading === 'Big')?.text).toContain('field = 1');
  });

  it.each([
    [
      'py',
      'python',
      'import os\n\n# Loads it.\ndef load(path):\n    """Doc."""\n    return 1\n\n\nclass Thing:\n    def go(self):\n        pass\n',
      ['load', 'Thing'],
    ],
    [
      'go',
      'go',
      'package main\n\n// Hello says hi.\nfunc Hello() string {\n\treturn "hi"\n}\n\ntype T struct{}\n\nfunc (t *T) Run() {}\n',
      ['Hello', 'T', 'T.Run'],
    ],
    [
      'rs',
      'rust',
      '/// Adds.\nfn add(a: i32) -> i32 { a }\n\nstruct P { x: i32 }\n\nimpl P {\n    fn new() -> P { P { x: 1 } }\n}\n',
      ['add', 'P', 'impl P'],
    ],
    ['sh', 'bash', '#!/bin/sh\n\n# Greets.\ngreet() {\n  echo hi\n}\n\ngreet\n', ['greet']],
    ['js', 'javascript', '// util\nfunction f() { return 1; }\nclass K { m() {} }\n', ['f', 'K']],
  ])('.%s: symbols %j', async (ext, lang, src, symbols) => {
    const doc = await parseCode(src, `x.${ext}`, `.${ext}`, lang, opts);
    expectExactLines(src, doc.chunks);
    for (const s of symbols as string[]) expect(doc.chunks.map((c) => c.heading)).toContain(s);
  });

  it('attaches the leading comment to its function (Go, Rust, shell)', async () => {
    const go = await parseCode('package m\n\n// Hello says hi.\nfunc Hello() {}\n', 'a.go', '.go', 'go', opts);
    expect(go.chunks.find((c) => c.heading === 'Hello')?.text.startsWith('// Hello says hi.')).toBe(true);
    const rs = await parseCode('/// Adds.\nfn add() {}\n', 'a.rs', '.rs', 'rust', opts);
    expect(rs.chunks.find((c) => c.heading === 'add')?.text.startsWith('/// Adds.')).toBe(true);
  });

  it('falls back to line windows for other languages', async () => {
    const src = Array.from({ length: 200 }, (_, i) => `line ${i} of some lua code`).join('\n');
    const doc = await parseCode(src, 'x.lua', '.lua', 'lua', opts);
    expectExactLines(src, doc.chunks);
    expect(doc.chunks.length).toBeGreaterThan(1);
    for (const c of doc.chunks) expect(c.heading).toBe('');
  });
});

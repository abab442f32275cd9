// Fuzzing: adversarial queries for the query parser, and mutated files (bit flips, truncations, zeroed
// and repeated ranges) of real corpus files for ingest. Deterministic for a seed, so a failure can be
// replayed. Used by test/fuzz.test.ts (a slice) and `npm run bench -- fuzz` (the full counts).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, extname, join } from 'node:path';

export class Rng {
  constructor(private s: number) {}
  next(): number {
    this.s = (this.s * 1103515245 + 12345) % 2 ** 31;
    return this.s / 2 ** 31;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
}

const PIECES = [
  // FTS5 syntax, whole and broken
  'AND',
  'OR',
  'NOT',
  'NEAR(',
  'NEAR(a b, 5)',
  '(',
  ')',
  '"',
  '""',
  '*',
  '^',
  ':',
  '{',
  '}',
  '+',
  '-',
  "'",
  "''",
  'title:',
  'text:',
  '{title text}:',
  'a*',
  '"unterminated',
  "'raw NEAR/3 fts'",
  'NEAR/99999',
  '^^^',
  '***',
  '(((',
  ')))',
  '""""',
  'col:"x"',
  '-"y"',
  // SQL and shell-ish
  "'; DROP TABLE chunks; --",
  '%',
  '_',
  '\\',
  '/*',
  '*/',
  '$(rm -rf /)',
  '`id`',
  '<script>alert(1)</script>',
  '../../etc/passwd',
  // Unicode: CJK, Korean, RTL, combining marks, emoji, zero-width, a lone surrogate
  '한국어 검색',
  '中文搜索',
  'יִשְׂרָאֵל',
  'العربية',
  'e\u0301\u0301\u0301',
  '👩‍👩‍👧‍👦',
  '\u200b\u200d\ufeff',
  '\ud800',
  '\udfff',
  'ﬁ',
  'ǅ',
  'ß',
  'İ',
  // numbers, words
  '0',
  '-1',
  '1e308',
  'NaN',
  'null',
  'boundary',
  'layer',
  'flow',
  'git',
  'install',
];

/** One adversarial query. */
export function fuzzQuery(r: Rng): string {
  const kind = r.int(10);
  if (kind === 0) return Array.from({ length: 1 + r.int(40) }, () => String.fromCharCode(r.int(0x20))).join(''); // control characters
  if (kind === 1) return 'x'.repeat(1 + r.int(20_000)); // huge
  if (kind === 2) return Array.from({ length: 1 + r.int(300) }, () => r.pick(PIECES)).join(r.pick([' ', '', '  ', '\t', '\n']));
  if (kind === 3) return Array.from({ length: r.int(60) }, () => String.fromCodePoint(r.int(0x30000))).join(''); // any code point
  return Array.from({ length: 1 + r.int(8) }, () => r.pick(PIECES)).join(' ');
}

/** A mutated copy of `bytes`: bit flips, a truncation, a zeroed range or a repeated range. */
export function mutate(bytes: Uint8Array, r: Rng): Uint8Array {
  const b = new Uint8Array(bytes);
  switch (r.int(4)) {
    case 0: {
      const n = 1 + r.int(32);
      for (let i = 0; i < n; i++) {
        const at = r.int(b.length);
        b[at] = (b[at] ?? 0) ^ (1 << r.int(8));
      }
      return b;
    }
    case 1:
      return b.subarray(0, r.int(b.length));
    case 2: {
      const at = r.int(b.length);
      b.fill(0, at, Math.min(b.length, at + 1 + r.int(4096)));
      return b;
    }
    default: {
      const at = r.int(b.length);
      const piece = b.subarray(at, Math.min(b.length, at + 1 + r.int(2048)));
      return new Uint8Array([...b.subarray(0, at), ...piece, ...piece, ...b.subarray(at)]);
    }
  }
}

/** Writes `n` mutated files from the seeds, round robin, named after their seed (the extension kept). */
export function fuzzFiles(dir: string, seeds: string[], n: number, r: Rng): string[] {
  mkdirSync(dir, { recursive: true });
  const originals = seeds.map((s) => ({ name: basename(s, extname(s)), ext: extname(s), bytes: new Uint8Array(readFileSync(s)) }));
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const s = originals[i % originals.length]!;
    const file = join(dir, `${s.name}-${i}${s.ext}`);
    writeFileSync(file, mutate(s.bytes, r));
    out.push(file);
  }
  return out;
}

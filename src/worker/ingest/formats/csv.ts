// CSV and TSV: the first row is the header, repeated at the top of every chunk; rows are cited by
// their RFC 7111 number (`#row=12-40`, the header being row 1).
import { parse } from 'csv-parse/sync';
import { KbError } from '../../../shared/errors.js';
import type { BlockDoc, DocBlock } from './blocks.js';
import { decodeText } from '../decode-text.js';

export function rowsToBlocks(rows: string[][], group: number, firstRow = 1): DocBlock[] {
  const out: DocBlock[] = [];
  rows.forEach((cells, i) => {
    const text = cells.map((c) => c.replace(/\s+/g, ' ').trim()).join(' | ');
    if (i > 0 || firstRow > 1) out.push({ text: text.replace(/^[| ]+$/, ''), html: '', unit: firstRow + i, group });
  });
  return out;
}

export async function readCsv(bytes: Uint8Array, format: 'csv' | 'tsv'): Promise<BlockDoc> {
  const { text } = decodeText(bytes);
  let rows: string[][];
  try {
    rows = parse(text, {
      delimiter: format === 'tsv' ? '\t' : sniffDelimiter(text),
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: false,
      bom: true,
    }) as string[][];
  } catch (e) {
    throw new KbError('PARSE_FAILED', `not a readable ${format.toUpperCase()} file: ${(e as Error).message}`);
  }
  const header = rows[0] ?? [];
  return {
    title: null,
    author: null,
    date: null,
    tags: [],
    blocks: rowsToBlocks(rows, 0),
    groups: [{ name: '', header }],
    cite: 'rows',
  };
}

/** Comma, semicolon (spreadsheets in many European locales) or tab, by the first line. */
function sniffDelimiter(text: string): string {
  const first = text.slice(0, text.indexOf('\n') >>> 0 || 4096);
  const count = (c: string): number => first.split(c).length - 1;
  const best = [',', ';', '\t', '|'].map((c) => [c, count(c)] as const).sort((a, b) => b[1] - a[1])[0]!;
  return best[1] > 0 ? best[0] : ',';
}

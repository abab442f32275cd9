// A document row for the store tests: indexed, with the fields each test does not care about filled.
import type { DocRow } from '../../src/worker/store/rows.js';

export function docRow(id: string, path: string, over: Partial<DocRow> = {}): DocRow {
  return {
    id,
    path,
    root: null,
    title: `Title of ${id}`,
    type: 'markdown',
    lang: 'en',
    content_hash: `hash-${id}`,
    size: 100,
    mtime: 1_700_000_000_000,
    page_count: null,
    duration: null,
    parser_version: 1,
    status: 'indexed',
    error: null,
    original: 'copy',
    added_at: 1,
    updated_at: 1,
    author: null,
    created: null,
    ...over,
  };
}

// The Library a page at a time (documents.page): the engine sorts, filters and counts, and what it
// says of each document is what kb ls says.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Engine } from '../src/worker/index.js';
import { localClient } from '../src/worker/loop.js';
import { engineIn, tempDir, writeTree } from './helpers.js';

async function library(): Promise<{ kb: ReturnType<typeof localClient>; dir: string; engine: Engine }> {
  const dir = await tempDir();
  const files: Record<string, string | Uint8Array> = {};
  // Sizes grow with the number; titles sort as "Note 000" … "Note 139".
  for (let i = 0; i < 140; i++) files[`n/note-${i}.md`] = `# Note ${String(i).padStart(3, '0')}\n\n${'walrus '.repeat(i + 1)}\n`;
  files['tagged/Zebra crossing.md'] = '---\ntags: [stripes]\n---\n# Zebra crossing\n\nblack and white\n';
  // Not a PDF at all: it fails, and says why.
  files['broken.pdf'] = '%PDF-1.7 this is not really a PDF';
  await writeTree(dir, files);
  const engine = await engineIn();
  await engine.ingest([dir]);
  return { kb: localClient(engine, 'test'), dir, engine };
}

describe('documents.page', () => {
  it('pages through every document in the chosen order, counting them all and the failed', async () => {
    const { kb, engine } = await library();
    const first = await kb['documents.page']({ limit: 50 });
    expect(first.total).toBe(142);
    expect(first.counts).toEqual({ all: 142, failed: 1, waiting: 0 });
    expect(first.documents).toHaveLength(50);
    const seen = [...first.documents];
    for (let offset = 50; offset < first.total; offset += 50) seen.push(...(await kb['documents.page']({ limit: 50, offset })).documents);
    // Every document once, and the same words for each as kb ls.
    const ls = await engine.list();
    expect(seen.map((d) => d.doc_id).sort()).toEqual(ls.map((d) => d.doc_id).sort());
    const byId = new Map(ls.map((d) => [d.doc_id, d]));
    for (const d of seen) expect(d).toEqual(byId.get(d.doc_id));
    // By name, case folded: "broken.pdf" < "Note 000" < … < "Zebra crossing".
    const titles = seen.map((d) => d.title);
    expect(titles[1]).toBe('Note 000');
    expect(titles.at(-1)).toBe('Zebra crossing');
    expect(titles).toEqual([...titles].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())));
  });

  it('sorts by size, passages and status both ways, the name breaking ties', async () => {
    const { kb } = await library();
    const bigFirst = await kb['documents.page']({ limit: 3, sort: 'size', down: true });
    expect(bigFirst.documents.map((d) => d.title)).toEqual(['Note 139', 'Note 138', 'Note 137']);
    const failedFirst = await kb['documents.page']({ limit: 2, sort: 'status' });
    expect(failedFirst.documents[0]).toMatchObject({ status: 'failed', reason: expect.any(String) });
    expect(failedFirst.documents[1]!.status).toBe('indexed');
    const failedLast = await kb['documents.page']({ limit: 1, offset: 141, sort: 'status', down: true });
    expect(failedLast.documents[0]!.status).toBe('failed');
    const passages = (await kb['documents.page']({ limit: 142, sort: 'chunks' })).documents.map((d) => d.chunks);
    expect(passages).toEqual([...passages].sort((a, b) => a - b));
  });

  it('filters by name, path or tag and by status; the counts stay those of the whole library', async () => {
    const { kb, dir } = await library();
    const tag = await kb['documents.page']({ limit: 10, filter: 'STRIPES' });
    expect(tag.documents.map((d) => d.title)).toEqual(['Zebra crossing']);
    expect(tag.counts?.all).toBe(142);
    const path = await kb['documents.page']({ limit: 10, filter: join(dir, 'n', 'note-13') });
    expect(path.documents.map((d) => d.title).sort()).toEqual([
      'Note 013',
      'Note 130',
      'Note 131',
      'Note 132',
      'Note 133',
      'Note 134',
      'Note 135',
      'Note 136',
      'Note 137',
      'Note 138',
    ]);
    expect(path.total).toBe(11);
    // LIKE's own characters are letters here.
    expect((await kb['documents.page']({ limit: 10, filter: '%' })).total).toBe(0);
    const failed = await kb['documents.page']({ limit: 10, status: 'failed' });
    expect(failed.documents.map((d) => d.title)).toEqual(['broken.pdf']);
    expect((await kb['documents.page']({ limit: 10, status: 'indexed', filter: 'broken' })).total).toBe(0);
    await expect(kb['documents.page']({ limit: 0 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    const paths = await kb['documents.paths']({});
    expect(paths.paths).toHaveLength(142);
  });

  it('pages by path after the last one seen (kb ls), counting with the first page only', async () => {
    const { kb, engine } = await library();
    const paths: string[] = [];
    let page = await kb['documents.page']({ sort: 'path', limit: 40 });
    expect(page.counts).toEqual({ all: 142, failed: 1, waiting: 0 });
    for (;;) {
      paths.push(...page.documents.map((d) => d.path));
      const last = page.documents.at(-1);
      if (!last || page.documents.length < 40) break;
      page = await kb['documents.page']({ sort: 'path', limit: 40, after: last.path });
      expect(page.counts).toBeUndefined();
    }
    expect(paths).toEqual((await engine.list()).map((d) => d.path));
  });
});

// Issue 49's first finding: an ordinary ingest left an index unreadable after a restart. A pack
// dictionary trained inside a failing document's savepoint was rolled back with it, while the
// connection went on packing the batch's next chunks against it. And what kb doctor makes of an
// index damaged that way: it says so, and --fix reads the documents again from their files.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { Engine } from '../src/worker/index.js';
import { engineIn, tempDir, writeTree } from './helpers.js';
import { makePdf } from './support/make-test-pdf.js';

/** One line of ~3 MB of made-up words: over a thousand chunks, enough for a pack dictionary. */
function oneLongLine(): string {
  const words = ['turbidity', 'river', 'sample', 'meadow', 'water', 'flow', 'stone', 'bank', 'reed', 'heron', 'mill', 'lane'];
  let seed = 7;
  const out: string[] = [];
  for (let i = 0; i < 500_000; i++) {
    seed = (seed * 48271) % 2147483647;
    out.push(words[seed % words.length]!);
  }
  return out.join(' ');
}

/** The batch of the issue: a huge one-line text, a "PDF" that fails once its old chunks are cleared, a good PDF after them. */
async function damagingBatch(dir: string): Promise<void> {
  await writeTree(dir, {
    'notes/a.md': '# A\n\nThe culvert under the lane floods each spring.\n',
    'notes/b.md': '# B\n\nNewts breed in the pond by the mill.\n',
    'batch/a-long.txt': oneLongLine(),
    'batch/b-broken.pdf': '%PDF-1.4\n1 0 obj garbage that no reader can parse\n',
    'batch/c-empty.txt': '',
    'batch/d-random.docx': new Uint8Array(3000).map((_, i) => (i * 7919) % 251),
    'batch/e-good.pdf': await makePdf({ pages: [{ lines: ['The kingfisher nests in the sandbank below the weir.'] }] }),
    // A second ingest: the index now holds enough chunks for a pack dictionary before its batch opens.
    'later/a-broken.pdf': '%PDF-1.7\n%garbage again\n',
    'later/b-good.pdf': await makePdf({ pages: [{ lines: ['A dipper walks along the bed of the stream.'] }] }),
    'later/c-otters.md': '# Otters\n\nOtters slide down the bank at dusk.\n',
  });
}

function dictionaryCount(dataDir: string): number {
  const db = new Database(join(dataDir, 'kb.sqlite'), { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM pack_dictionaries').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

async function hitPath(engine: Engine, query: string): Promise<string | undefined> {
  return (await engine.search({ query, mode: 'lexical' })).results[0]?.citation.path;
}

describe('a failing document in a batch damages nothing', () => {
  it('the pack dictionary the batch packs with is in the index after a restart', async () => {
    const dir = await tempDir();
    await damagingBatch(dir);
    const dataDir = join(dir, 'data');
    const first = await engineIn(dataDir);
    await first.ingest([join(dir, 'notes')]);
    const s = await first.ingest([join(dir, 'batch')]);
    expect(s.errors.map((e) => e.path.split('/').pop()).sort()).toEqual(['b-broken.pdf', 'd-random.docx']);
    expect((await first.ingest([join(dir, 'later')])).failed).toBe(1);
    await first.close();
    expect(dictionaryCount(dataDir)).toBeGreaterThan(0);

    const again = await engineIn(dataDir);
    expect(await hitPath(again, 'kingfisher sandbank')).toBe(join(dir, 'batch/e-good.pdf'));
    expect(await hitPath(again, 'dipper stream')).toBe(join(dir, 'later/b-good.pdf'));
    expect(await hitPath(again, 'otters dusk')).toBe(join(dir, 'later/c-otters.md'));
    expect(await hitPath(again, 'turbidity heron')).toBe(join(dir, 'batch/a-long.txt'));
    expect(await hitPath(again, 'newts')).toBe(join(dir, 'notes/b.md'));
    const doctor = await again.doctor();
    expect(doctor.checks.find((c) => c.name === 'passages')).toMatchObject({ status: 'ok' });
  });
});

describe('kb doctor and passages that do not read back', () => {
  it('finds them, and --fix reads their documents again, saying which files are gone', async () => {
    const dir = await tempDir();
    await damagingBatch(dir);
    const dataDir = join(dir, 'data');
    const engine = await engineIn(dataDir);
    await engine.ingest([join(dir, 'notes')]);
    await engine.ingest([join(dir, 'batch')]);
    await engine.ingest([join(dir, 'later')]);
    await engine.close();
    expect(dictionaryCount(dataDir)).toBeGreaterThan(0);
    // The damage the bug did: the dictionary the chunks name is gone. The long text was packed before
    // there was one; the good PDF after it, and the later notes, with it.
    const raw = new Database(join(dataDir, 'kb.sqlite'));
    raw.exec('DELETE FROM pack_dictionaries');
    raw.close();
    // One damaged document's file is gone too: nothing can read it again.
    rmSync(join(dir, 'later/c-otters.md'));

    const damaged = await engineIn(dataDir);
    await expect(damaged.search({ query: 'dipper', mode: 'lexical' })).rejects.toThrow(/kb doctor --fix/);
    const report = await damaged.doctor();
    const passages = report.checks.find((c) => c.name === 'passages');
    expect(passages?.status).toBe('fail');
    expect(passages?.detail).toMatch(/3 passages of 3 documents cannot be read back/);
    expect(report.ok).toBe(false);

    const fixed = await damaged.fix();
    const action = fixed.actions.find((a) => a.name === 'passages');
    expect(action?.detail).toMatch(/3 passages of 3 documents did not read back: 2 read again from their files; 1 could not be/);
    expect(action?.detail).toContain('c-otters.md');
    expect(fixed.report.checks.find((c) => c.name === 'passages')).toMatchObject({ status: 'ok' });
    expect(fixed.report.checks.find((c) => c.name === 'full-text index')).toMatchObject({ status: 'ok' });
    expect(await hitPath(damaged, 'dipper stream')).toBe(join(dir, 'later/b-good.pdf'));
    expect(await hitPath(damaged, 'kingfisher sandbank')).toBe(join(dir, 'batch/e-good.pdf'));
    // What was never damaged is as it was.
    expect(await hitPath(damaged, 'turbidity heron')).toBe(join(dir, 'batch/a-long.txt'));
    expect(await hitPath(damaged, 'newts')).toBe(join(dir, 'notes/b.md'));
    expect(await hitPath(damaged, 'culvert')).toBe(join(dir, 'notes/a.md'));
    const gone = (await damaged.list()).find((d) => d.path.endsWith('c-otters.md'));
    expect(gone).toMatchObject({ status: 'failed', chunks: 0 });
    expect(gone?.error).toMatch(/could not be read back.*add it again/);
  });
});

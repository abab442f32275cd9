// Issue 49: what Remove and kb gc give back. A removed document's stored copy goes at once (unless
// another document keeps the same bytes); a dropped file's copy in uploads/ is kb's own, so it is kept
// once (no second copy in blobs/) and goes with its document; gc deletes copies nothing is read from.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { engineIn, tempDir, writeTree } from './helpers.js';
import { makePdf } from './support/make-test-pdf.js';

/** Every file under dir, relative. */
function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

describe('Remove and kb gc give the space back', () => {
  it('a removed document takes its stored copy with it, unless another keeps the same bytes', async () => {
    const dir = await tempDir();
    const pdf = await makePdf({ pages: [{ lines: ['The heron stands in the shallows.'] }] });
    const other = await makePdf({ pages: [{ lines: ['The kingfisher dives from the alder.'] }] });
    await writeTree(dir, { 'a/heron.pdf': pdf, 'a/heron-copy.pdf': pdf, 'a/kingfisher.pdf': other });
    const dataDir = join(dir, 'data');
    const engine = await engineIn(dataDir);
    await engine.ingest([join(dir, 'a')]);
    expect(files(join(dataDir, 'blobs'))).toHaveLength(2);
    await engine.remove(join(dir, 'a/kingfisher.pdf'));
    expect(files(join(dataDir, 'blobs'))).toHaveLength(1);
    // The heron's bytes are kept by two documents: removing one keeps them.
    await engine.remove(join(dir, 'a/heron.pdf'));
    expect(files(join(dataDir, 'blobs'))).toHaveLength(1);
    await engine.remove(join(dir, 'a/heron-copy.pdf'));
    expect(files(join(dataDir, 'blobs'))).toEqual([]);
    expect((await engine.gc()).removed_blobs).toBe(0);
  });

  it('a drop cut short (kb serve killed while it read the files) is found by kb doctor, and --fix reads what it left', async () => {
    const dir = await tempDir();
    const dataDir = join(dir, 'data');
    const engine = await engineIn(dataDir);
    const up = join(dataDir, 'uploads');
    await writeTree(up, {
      '5555555555555555/drop/read.md': '# Read\n\nthe heron was read\n',
      '6666666666666666/drop/left.md': '# Left\n\nthe bittern was left behind\n',
    });
    const minuteAgo = new Date(Date.now() - 2 * 60_000);
    utimesSync(join(up, '6666666666666666/drop/left.md'), minuteAgo, minuteAgo);
    await engine.ingest([join(up, '5555555555555555/drop/read.md')]);
    const said = (await engine.doctor()).checks.find((c) => c.name === 'dropped files');
    expect(said).toMatchObject({
      status: 'warn',
      detail: expect.stringMatching(/^1 file dropped in a browser was never read .*left\.md.*kb doctor --fix reads them/),
    });
    const fixed = await engine.fix();
    expect(fixed.actions).toContainEqual({ name: 'dropped files', detail: expect.stringMatching(/read 1 file .*: 1 added/) });
    expect((await engine.search({ query: 'bittern' })).results[0]?.citation.path).toBe(join(up, '6666666666666666/drop/left.md'));
    expect(fixed.report.checks.find((c) => c.name === 'dropped files')?.status).toBe('ok');
  });

  it.skipIf(process.platform === 'win32')('Status says what du says the data dir takes, every part named', async () => {
    const dir = await tempDir();
    const notes: Record<string, string | Uint8Array> = {};
    for (let i = 0; i < 40; i++) notes[`in/n${i}.md`] = `# Note ${i}\n\nThe heron number ${i} stands in the shallows.\n`;
    notes['in/report.pdf'] = await makePdf({ pages: [{ lines: ['A report on the weir.'] }] });
    await writeTree(dir, notes);
    const dataDir = join(dir, 'data');
    const engine = await engineIn(dataDir);
    await engine.ingest([join(dir, 'in')]);
    const disk = (await engine.status()).disk;
    if (!disk) throw new Error('no disk figures');
    const du = Number(execFileSync('du', ['-s', '-B1', dataDir], { encoding: 'utf8' }).split(/\s/)[0]);
    // The logs and the write-ahead log move a little between the two looks.
    expect(Math.abs(disk.total - du)).toBeLessThan(Math.max(64 * 1024, du * 0.02));
    expect(disk.index + disk.vectors + disk.originals + disk.models + (disk.uploads ?? 0) + (disk.ocr ?? 0) + (disk.other ?? 0)).toBe(
      disk.total,
    );
  });

  it('a dropped file is kept once, in uploads/; Remove deletes it; gc deletes copies no document is read from', async () => {
    const dir = await tempDir();
    const dataDir = join(dir, 'data');
    const engine = await engineIn(dataDir);
    const up = join(dataDir, 'uploads');
    await writeTree(up, {
      '1111111111111111/scan.pdf': await makePdf({ pages: [{ lines: ['A dropped report on the weir.'] }] }),
      '2222222222222222/notes/todo.md': '# Todo\n\nmend the sluice gate\n',
      // A cancelled drop's copy, and one whose ingest has not started yet.
      '3333333333333333/left.txt': 'nobody reads this',
      '4444444444444444/fresh.txt': 'about to be read',
    });
    const old = new Date(Date.now() - 20 * 60_000);
    utimesSync(join(up, '3333333333333333/left.txt'), old, old);
    await engine.ingest([join(up, '1111111111111111/scan.pdf'), join(up, '2222222222222222/notes')]);
    expect(files(join(dataDir, 'blobs'))).toEqual([]);
    expect((await engine.inspectDoc(join(up, '1111111111111111/scan.pdf'))).original?.mode).toBe('reference');
    expect((await engine.search({ query: 'sluice' })).results[0]?.citation.path).toBe(join(up, '2222222222222222/notes/todo.md'));

    // Cited by its path in the drop, as the app copies it: kb get finds kb's copy.
    expect((await engine.get('notes/todo.md#L3')).text).toBe('mend the sluice gate');
    expect((await engine.get('notes%2Ftodo.md#L3')).text).toBe('mend the sluice gate');
    await expect(engine.get('todo.md#L3')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await engine.remove(join(up, '1111111111111111/scan.pdf'));
    expect(existsSync(join(up, '1111111111111111'))).toBe(false);

    const gc = await engine.gc();
    expect(gc.removed_uploads).toBe(1);
    expect(files(up)).toEqual(['2222222222222222/notes/todo.md', '4444444444444444/fresh.txt']);
    await engine.remove(join(up, '2222222222222222/notes/todo.md'));
    expect(files(up)).toEqual(['4444444444444444/fresh.txt']);
  });
});

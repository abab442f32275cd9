import { existsSync, writeFileSync } from 'node:fs';
import { rename, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { engineIn, searchDuringIngest, tempDir, writeTree } from './helpers.js';

const note = (topic: string): string => `# ${topic}\n\nThis note explains ${topic} in some detail.\n`;

describe('ingest', () => {
  it('walks folders, skipping .git, node_modules, hidden folders and ignored files', async () => {
    const dir = await tempDir();
    await writeTree(dir, {
      'a.md': note('alpha'),
      'sub/b.txt': 'bravo note',
      'sub/c.py': 'def charlie():\n    return 1\n',
      '.git/config.md': note('git internals'),
      'node_modules/pkg/readme.md': note('dependency'),
      '.hidden/secret.md': note('secret'),
      '.gitignore': 'build/\n*.log\n',
      'build/out.md': note('built'),
      'debug.log': 'log line',
      'sub/.kbignore': 'private.md\n',
      'sub/private.md': note('private'),
      'pic.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]),
      'blob.bin': new Uint8Array([0, 1, 2, 3, 0, 0, 5, 6]),
    });
    const engine = await engineIn();
    const s = await engine.ingest([dir]);
    // pic.png is only a PNG signature: an image kb cannot read, so a failed document.
    expect(s).toMatchObject({ added: 3, updated: 0, unchanged: 0, failed: 1 });
    expect(s.errors).toEqual([
      { path: join(dir, 'pic.png'), code: 'PARSE_FAILED', message: expect.stringMatching(/not a readable image/) },
    ]);
    const paths = (await engine.list())
      .filter((d) => d.status === 'indexed')
      .map((d) => d.path.slice(dir.length + 1))
      .sort();
    expect(paths).toEqual(['a.md', 'sub/b.txt', 'sub/c.py']);
    expect(s.skipped.map((x) => x.path.slice(dir.length + 1)).sort()).toEqual(['blob.bin']);
    expect(s.skipped.find((x) => x.path.endsWith('blob.bin'))?.reason).toMatch(/binary/);
    expect((await engine.list()).map((d) => d.type).sort()).toEqual(['code', 'image', 'markdown', 'note']);
  });

  it("never indexes kb's own data folder, even inside an ingested folder", async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'a.md': note('own data') });
    const engine = await engineIn(join(dir, 'kb-data'));
    await engine.ingest([dir]);
    const s = await engine.ingest([dir]);
    expect((await engine.list()).map((d) => d.path)).toEqual([join(dir, 'a.md')]);
    expect(s.skipped.some((x) => x.path === join(dir, 'kb-data'))).toBe(true);
  });

  it("never reads kb's own data through a link, named or walked: its config, its stored copies, its token", async () => {
    const dir = await tempDir();
    const data = join(dir, 'kb-data');
    const engine = await engineIn(data);
    await writeTree(dir, { 'notes/a.md': note('walrus'), 'kb-data/config.yaml': 'store:\n  url: postgres://kb:secret@db/kb\n' });
    await engine.ingest([join(dir, 'notes/a.md')]);
    await symlink(join(data, 'config.yaml'), join(dir, 'notes/config-link.yaml'));
    await symlink(join(data, 'kb.sqlite'), join(dir, 'notes/index-link.txt'));
    await symlink(data, join(dir, 'notes/data-link'));
    const named = await engine.ingest([join(dir, 'notes/config-link.yaml'), join(dir, 'notes/index-link.txt')]);
    expect(named.skipped.map((x) => x.reason)).toEqual(["kb's own data", "kb's own data"]);
    const walked = await engine.ingest([join(dir, 'notes')], { force: true });
    expect(walked.errors).toEqual([]);
    expect((await engine.list()).map((d) => d.path)).toEqual([join(dir, 'notes/a.md')]);
    expect((await engine.search({ query: 'secret', mode: 'lexical' })).results).toEqual([]);
  });

  it('never serves a file kept by reference that became a link after it was read: not to its token, not to another collection (issue 50)', async () => {
    const dir = await tempDir();
    const data = join(dir, 'kb-data');
    const engine = await engineIn(data, { store_originals: 'reference' });
    await writeTree(dir, {
      'mine/big.md': note('walrus'),
      'theirs/secret.md': '# Secret\n\nThe vault code is hunter2.\n',
      'mine/ok.md': note('heron'),
    });
    await engine.addCollection(join(dir, 'mine'), { name: 'mine' });
    await engine.addCollection(join(dir, 'theirs'), { name: 'theirs' });
    const doc = (await engine.list()).find((d) => d.path === join(dir, 'mine/big.md'))!;
    expect((await engine.get(doc.doc_id)).text).toContain('walrus');
    writeFileSync(join(data, 'serve-token'), 'owner-token-never-served\n');
    for (const target of [join(data, 'serve-token'), join(data, 'config.yaml'), join(dir, 'theirs/secret.md')]) {
      await rm(join(dir, 'mine/big.md'), { force: true });
      await symlink(target, join(dir, 'mine/big.md'));
      const got = await engine.get(doc.doc_id).then(
        (s) => JSON.stringify(s),
        (e: { code: string }) => e.code,
      );
      expect(got).toBe('VANISHED');
      await expect(engine.source(doc.doc_id)).rejects.toMatchObject({ code: 'VANISHED' });
    }
    // A file left in place is served as before.
    const ok = (await engine.list()).find((d) => d.path === join(dir, 'mine/ok.md'))!;
    expect((await engine.get(ok.doc_id)).text).toContain('heron');
  });

  it('takes a file named explicitly even if it is hidden', async () => {
    const dir = await tempDir();
    await writeTree(dir, { '.notes.md': note('explicit') });
    const engine = await engineIn();
    expect((await engine.ingest([join(dir, '.notes.md')])).added).toBe(1);
  });

  it('is idempotent: unchanged files are skipped, edits replace chunks', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'a.md': note('alpha'), 'b.md': note('bravo') });
    const engine = await engineIn();
    await engine.ingest([dir]);
    expect(await engine.ingest([dir])).toMatchObject({ added: 0, updated: 0, unchanged: 2 });
    await writeFile(join(dir, 'a.md'), '# alpha\n\nNow about zeppelins instead.\n');
    expect(await engine.ingest([dir])).toMatchObject({ added: 0, updated: 1, unchanged: 1 });
    expect((await engine.search({ query: 'zeppelins' })).results).toHaveLength(1);
    expect((await engine.search({ query: 'explains' })).results.map((r) => r.citation.path)).toEqual([join(dir, 'b.md')]);
    expect(await engine.list()).toHaveLength(2);
  });

  it('reports a file another ingest added since it was asked for (a drop the folder watcher saw too) as added', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'dropped.md': note('dropped') });
    const engine = await engineIn();
    const file = join(dir, 'dropped.md');
    // The clock stands still: the second ingest is asked for the moment the first adds the file.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(1_800_000_000_000);
      expect((await engine.ingest([file])).added).toBe(1);
      expect(await engine.ingest([file])).toMatchObject({ added: 1, unchanged: 0 });
      // Asked for a second later: it was in the index already.
      vi.setSystemTime(1_800_000_001_000);
      expect(await engine.ingest([file])).toMatchObject({ added: 0, unchanged: 1 });
    } finally {
      vi.useRealTimers();
    }
    expect(await engine.list()).toHaveLength(1);
  });

  it('cites a passage of a one-line dump by its characters, and kb get and search agree on them', async () => {
    const dir = await tempDir();
    // A minified bundle's worth of one line; one word deep inside it is the needle.
    const words = Array.from({ length: 30_000 }, (_, i) => (i === 21_000 ? 'zanzibarquill' : `tok${i % 997}`));
    const line = words.join(' ');
    await writeFile(join(dir, 'dump.txt'), line);
    const engine = await engineIn();
    await engine.ingest([dir]);
    const [hit] = (await engine.search({ query: 'zanzibarquill', top: 1 })).results;
    if (hit?.citation.kind !== 'lines' || hit.citation.col_start === undefined || hit.citation.col_end === undefined)
      throw new Error(`no character range: ${JSON.stringify(hit?.citation)}`);
    expect(hit.citation.uri).toMatch(/#L1C\d+-L1C\d+$/);
    expect(hit.citation.col_start).toBeGreaterThan(100_000);
    expect(line.slice(hit.citation.col_start - 1, hit.citation.col_end)).toBe(hit.text);
    const span = await engine.get(hit.citation.uri);
    expect(span.text).toBe(hit.text);
    expect(span.citation.uri).toBe(hit.citation.uri);
    expect(span.citation.label).toMatch(/^dump\.txt · L1 chars \d+–\d+$/);
    await expect(engine.get(`${join(dir, 'dump.txt')}#L1C999999999-L1C999999999`)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('keeps the id and chunks of a moved file', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'old/a.md': note('moving') });
    const engine = await engineIn();
    await engine.ingest([dir]);
    const before = await engine.inspectDoc(join(dir, 'old/a.md'));
    await rename(join(dir, 'old'), join(dir, 'new'));
    const s = await engine.ingest([dir]);
    expect(s).toMatchObject({ moved: 1, added: 0 });
    const after = await engine.inspectDoc(join(dir, 'new/a.md'));
    expect(after.document.id).toBe(before.document.id);
    expect(after.chunks.map((c) => c.id)).toEqual(before.chunks.map((c) => c.id));
    const hit = (await engine.search({ query: 'moving' })).results[0];
    expect(hit?.citation.path).toBe(join(dir, 'new/a.md'));
  });

  it('indexes a copy as its own document', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'a.md': note('twin'), 'b.md': note('twin') });
    const engine = await engineIn();
    expect((await engine.ingest([dir])).added).toBe(2);
    expect((await engine.search({ query: 'twin' })).results).toHaveLength(2);
  });

  it('adds tags from --tags and front matter, and filters on them', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'a.md': '---\ntags: [Project]\n---\nshared words here\n', 'b.md': 'shared words here too\n' });
    const engine = await engineIn();
    await engine.ingest([dir], { tags: ['Work', ' work ', 'home'] });
    const a = (await engine.list()).find((d) => d.path.endsWith('a.md'))!;
    expect(a.tags).toEqual(['home', 'project', 'work']);
    const r = await engine.search({ query: 'shared words', tags: ['work', 'project'] });
    expect(r.results.map((x) => x.citation.path)).toEqual([join(dir, 'a.md')]);
    expect(r.results[0]!.source.tags).toEqual(['home', 'project', 'work']);
  });

  it('keeps a copy of the original, so a citation still opens after the file is deleted; gc removes orphans', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'keep.md': note('kept') });
    const engine = await engineIn();
    await engine.ingest([dir]);
    const doc = await engine.inspectDoc(join(dir, 'keep.md'));
    expect(doc.original?.mode).toBe('copy');
    expect(existsSync(doc.original!.blob_path!)).toBe(true);
    await rm(join(dir, 'keep.md'));
    expect((await engine.inspectDoc(doc.document.id)).original?.available).toBe(true);
    expect((await engine.list())[0]!.original_available).toBe(true);
    expect((await engine.gc()).removed_blobs).toBe(0);
    // Removing it gives the copy back at once; gc finds what a crash or an older kb left behind.
    const orphan = join(dirname(doc.original!.blob_path!), 'f'.repeat(64));
    await writeFile(orphan, 'left behind');
    await engine.remove(doc.document.id);
    expect(existsSync(doc.original!.blob_path!)).toBe(false);
    const gc = await engine.gc();
    expect(gc.removed_blobs).toBe(1);
    expect(existsSync(orphan)).toBe(false);
  });

  it('references files above copy_max_bytes and in reference mode', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'big.txt': 'large '.repeat(200), 'small.txt': 'tiny' });
    const engine = await engineIn(undefined, { ingest: { copy_max_bytes: 100 } });
    await engine.ingest([dir]);
    const byName = Object.fromEntries((await engine.list()).map((d) => [d.path.split('/').pop(), d]));
    expect(byName['big.txt']!.original).toBe('reference');
    expect(byName['small.txt']!.original).toBe('copy');
    const ref = await engineIn(undefined, { store_originals: 'reference' });
    await ref.ingest([dir]);
    expect((await ref.list()).every((d) => d.original === 'reference')).toBe(true);
    await rm(join(dir, 'big.txt'));
    expect((await ref.list()).find((d) => d.path.endsWith('big.txt'))?.original_available).toBe(false);
  });

  it('removes a folder of documents', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'x/a.md': note('a'), 'x/b.md': note('b'), 'y.md': note('y') });
    const engine = await engineIn();
    await engine.ingest([dir]);
    expect((await engine.remove(join(dir, 'x'))).removed).toHaveLength(2);
    expect((await engine.list()).map((d) => d.path)).toEqual([join(dir, 'y.md')]);
    await expect(engine.remove(join(dir, 'nothing'))).rejects.toThrow(/nothing indexed/);
  });

  it('does not loop on symlink cycles and follows symlinked folders once', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'real/a.md': note('looped') });
    await symlink(join(dir, 'real'), join(dir, 'real/again'));
    await symlink(join(dir, 'real'), join(dir, 'alias'));
    const engine = await engineIn();
    const s = await engine.ingest([dir]);
    expect(s.added).toBe(1);
    expect(s.skipped.some((x) => /loop|already visited/.test(x.reason))).toBe(true);
  });

  it('answers searches while an ingest is running', async () => {
    const dir = await tempDir();
    await writeTree(
      dir,
      Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`n${i}.md`, `${note(`topic${i}`)}\nshared marker words\n`])),
    );
    const engine = await engineIn();
    // A search asked halfway through the files (as its progress says), answered before the ingest ends.
    const r = await searchDuringIngest(engine, [dir], (p) => p.phase === 'ingest' && p.done === 150, { query: 'marker' });
    expect(r.summary.added).toBe(300);
    expect(r.answeredFirst).toBe(true);
    expect(r.found).toBeGreaterThan(0);
    expect(r.found).toBeLessThan(300);
    expect((await engine.search({ query: 'marker' })).total_matches).toBe(300);
  });

  it('reports progress and stops when cancelled', async () => {
    const dir = await tempDir();
    await writeTree(dir, Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`n${i}.md`, note(`topic${i}`)])));
    const engine = await engineIn();
    const ctl = new AbortController();
    const seen: number[] = [];
    const finished: string[] = [];
    const s = await engine.ingest([dir], {
      signal: ctl.signal,
      onProgress: (p) => {
        if (p.phase !== 'ingest') return;
        // Each file as it is finished, with what became of it; the file being read next apart.
        if (p.finished) return void finished.push(p.finished.outcome);
        seen.push(p.done);
        if (p.done === 5) ctl.abort();
      },
    });
    expect(s).toMatchObject({ added: 5, cancelled: true, not_read: 15 });
    // The summary names what it did not read, so the person can add it again.
    expect(s.not_read_paths).toHaveLength(15);
    const unread = new Set(s.not_read_paths);
    for (const d of await engine.list()) expect(unread.has(d.path)).toBe(false);
    expect(seen.slice(0, 6)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(finished).toEqual(['added', 'added', 'added', 'added', 'added']);
    expect((await engine.ingest([dir])).added).toBe(15);
  });
});

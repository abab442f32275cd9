// Collections on real temp folders: kb add / collections / forget, reconciling with the disk on
// start, and the watcher (create, edit, rename, delete, an editor's save, a burst of 1,000 files).
// After each change settles, the index must match the disk.
import { mkdirSync, readdirSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CollectionWatcher, Engine } from '../src/worker/index.js';
import { engineIn, kb, tempDir, writeTree } from './helpers.js';

const until = async (cond: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> => {
  const t0 = Date.now();
  while (!(await cond())) {
    if (Date.now() - t0 > ms) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
};

/** Every file under dir (relative paths), as the index should hold them. */
function onDisk(dir: string, sub = ''): string[] {
  return readdirSync(join(dir, sub), { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? onDisk(dir, join(sub, e.name)) : [join(sub, e.name)]))
    .sort();
}
const indexed = async (engine: Engine, root: string): Promise<string[]> =>
  (await engine.list())
    .map((d) => relative(root, d.path))
    .filter((p) => !p.startsWith('..'))
    .sort();
const top = async (engine: Engine, q: string): Promise<string | undefined> =>
  (await engine.search({ query: q, mode: 'lexical', top: 1 })).results[0]?.citation.path;

describe('collections', () => {
  it('kb add indexes a folder (glob, tags) and remembers it; kb collections lists it; kb forget removes its documents, not the files', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'notes/a.md': '# A\n\nalpha\n', 'notes/b.txt': 'bravo\n', 'notes/sub/c.md': '# C\n\ncharlie\n' });
    const env = { KB_DATA_DIR: join(dir, 'data'), KB_CONFIG: join(dir, 'none.yaml') };
    const add = kb(['add', join(dir, 'notes'), '--name', 'notes', '--tags', 'work', '--glob', '**/*.md', '--json'], { env });
    expect(add.code).toBe(0);
    expect(add.json()).toMatchObject({
      collection: { name: 'notes', documents: 2, tags: ['work'], glob: '**/*.md' },
      reconciled: { ingested: 2, removed: 0 },
    });
    expect(kb(['collections', '--json'], { env }).json()).toMatchObject({ collections: [{ name: 'notes', documents: 2 }] });
    expect(kb(['search', 'alpha', '--tags', 'work', '--json'], { env }).json()).toMatchObject({ returned: 1 });
    expect(kb(['add', join(dir, 'notes', 'sub')], { env }).stderr).toMatch(/overlaps the collection notes/);
    expect(kb(['add', join(dir, 'nowhere')], { env }).stderr).toMatch(/no folder at/);
    expect(kb(['add', join(dir, 'notes', 'a.md')], { env }).stderr).toMatch(/a\.md is a file, not a folder/);
    const forget = kb(['forget', 'notes', '--json'], { env });
    expect(forget.json()).toMatchObject({ collection: 'notes', removed: 2 });
    expect(onDisk(join(dir, 'notes'))).toEqual(['a.md', 'b.txt', join('sub', 'c.md')]);
    expect(kb(['forget', 'notes'], { env }).stderr).toMatch(/no collection named notes/);
  });

  it('on start, picks up what changed while kb was closed — without reading unchanged files', async () => {
    const dir = await tempDir();
    const root = join(dir, 'notes');
    const files: Record<string, string> = {};
    for (let i = 0; i < 50; i++) files[`notes/n${i}.md`] = `# Note ${i}\n\nplain words ${i}\n`;
    await writeTree(dir, files);
    const engine = await engineIn(join(dir, 'data'));
    await engine.addCollection(root);
    // kb is "closed": edits, an addition, a deletion, a rename, and a touch that changes nothing.
    writeFileSync(join(root, 'n1.md'), '# Note 1\n\nthe zeppelin arrives\n');
    writeFileSync(join(root, 'new.md'), '# New\n\na quokka appears\n');
    rmSync(join(root, 'n2.md'));
    renameSync(join(root, 'n3.md'), join(root, 'moved.md'));
    utimesSync(join(root, 'n4.md'), new Date(), new Date(Date.now() + 5000));
    const [r] = await engine.reconcileCollections();
    expect(r).toMatchObject({ collection: 'notes', files: 50, removed: 1, errors: 0 });
    // Only the four changed stamps were read: the other 46 files were judged by size and mtime.
    expect(r!.unchanged).toBe(46);
    expect(await indexed(engine, root)).toEqual(onDisk(root));
    expect(await top(engine, 'zeppelin')).toBe(join(root, 'n1.md'));
    expect(await top(engine, 'quokka')).toBe(join(root, 'new.md'));
    // The renamed file kept its document (a move, not a delete and an add).
    expect((await engine.list()).find((d) => d.path.endsWith('moved.md'))).toBeDefined();
    const again = await engine.reconcileCollections();
    expect(again[0]).toMatchObject({ ingested: 0, removed: 0, unchanged: 50 });
    // A file of the collection dropped onto the app (added by its path) is the same document, not a copy.
    const count = (await engine.list()).length;
    expect(await engine.ingest([join(root, 'n5.md')])).toMatchObject({ added: 0, unchanged: 1 });
    expect(await engine.list()).toHaveLength(count);
  });
});

describe('what a collection owns (issue 49)', () => {
  it('forget takes out only what the folder brought in: a file added on its own before, and dropped files in the data dir, stay', async () => {
    const dir = await tempDir();
    const root = join(dir, 'home');
    // The data dir inside the folder, as ~/.local/share/kb is inside ~.
    const dataDir = join(root, '.local', 'share', 'kb');
    await writeTree(root, { 'notes/a.md': '# A\n\nthe alder grows by the ford\n' });
    const engine = await engineIn(dataDir);
    await engine.ingest([join(root, 'notes/a.md')]);
    // A file dropped into the app: its copy lives in the data dir's uploads/.
    await writeTree(dataDir, { 'uploads/0123456789abcdef/dropped.md': '# Dropped\n\na dropped note about lapwings\n' });
    await engine.ingest([join(dataDir, 'uploads/0123456789abcdef/dropped.md')]);
    await writeTree(root, { 'notes/b.md': '# B\n\nthe birch stands alone\n', 'other/c.txt': 'a clump of comfrey\n' });
    await engine.addCollection(root, { name: 'whole' });
    expect(await top(engine, 'comfrey')).toBe(join(root, 'other/c.txt'));

    const leaving = await engine.leavingCollection('whole');
    expect(leaving).toMatchObject({ documents: 2, names: expect.arrayContaining(['b.md', 'c.txt']) });
    expect((await engine.forgetCollection('whole')).removed).toBe(2);
    expect(await top(engine, 'alder')).toBe(join(root, 'notes/a.md'));
    expect(await top(engine, 'lapwings')).toBe(join(dataDir, 'uploads/0123456789abcdef/dropped.md'));
    expect(await top(engine, 'birch')).toBeUndefined();
    expect(await top(engine, 'comfrey')).toBeUndefined();
  });

  it("refuses /, the system's folders, pseudo-filesystems and kb's own data dir, as a folder to add or to ingest", async () => {
    const dir = await tempDir();
    const dataDir = join(dir, 'data');
    const engine = await engineIn(dataDir);
    await writeTree(dataDir, { 'uploads/x/n.md': 'n' });
    for (const [folder, said] of [
      ['/', /is a system folder/],
      ['/usr', /is a system folder/],
      ['/proc', /\/proc \(live tables of the kernel/],
      ['/proc/self', /\/proc/],
      ['/sys/kernel', /\/sys/],
      ['/dev', /\/dev/],
      [join(dataDir, 'uploads'), /inside kb's own data dir/],
    ] as const) {
      await expect(engine.addCollection(folder), folder).rejects.toThrow(said);
    }
    expect(await engine.collections()).toEqual([]);
    const s = await engine.ingest(['/proc', '/']);
    expect(s.errors.map((e) => [e.path, e.code])).toEqual([
      ['/proc', 'INVALID_ARGUMENT'],
      ['/', 'INVALID_ARGUMENT'],
    ]);
    expect(s.added + s.skipped.length).toBe(0);
    expect(await engine.list()).toEqual([]);
  });

  it('asks before a folder of more than 5,000 files, saying how many', async () => {
    const dir = await tempDir();
    const files: Record<string, string> = {};
    for (let i = 0; i < 5003; i++) files[`big/d${i % 50}/n${i}.txt`] = `note ${i}`;
    await writeTree(dir, files);
    const engine = await engineIn(join(dir, 'data'));
    await expect(engine.addCollection(join(dir, 'big'))).rejects.toThrow(/holds 5,003 files .*kb add --yes/);
    expect(await engine.collections()).toEqual([]);
    const cli = kb(['add', join(dir, 'big')], { env: { KB_DATA_DIR: join(dir, 'data2'), KB_CONFIG: join(dir, 'none.yaml') } });
    expect(cli.code).not.toBe(0);
    expect(cli.stderr).toMatch(/5,003 files/);
  });

  it('a folder cancelled while it is added, or forgotten meanwhile, leaves nothing behind', async () => {
    const dir = await tempDir();
    const files: Record<string, string> = {};
    for (let i = 0; i < 300; i++) files[`many/n${i}.md`] = `# Note ${i}\n\nwillow ${i} by the water\n`;
    await writeTree(dir, files);
    await writeTree(dir, { 'alone.md': '# Alone\n\nthe willow warbler sings\n' });
    const engine = await engineIn(join(dir, 'data'));
    await engine.ingest([join(dir, 'alone.md')]);
    const ctl = new AbortController();
    let seen = 0;
    const add = engine.addCollection(join(dir, 'many'), {
      signal: ctl.signal,
      onProgress: (p) => {
        if (p.phase === 'ingest' && p.finished && ++seen === 5) ctl.abort();
      },
    });
    await expect(add).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(await engine.collections()).toEqual([]);
    expect((await engine.list()).map((d) => relative(dir, d.path))).toEqual(['alone.md']);

    let forgot: Promise<unknown> | null = null;
    const second = engine.addCollection(join(dir, 'many'), {
      name: 'many',
      onProgress: (p) => {
        if (p.phase === 'ingest' && p.finished && !forgot) forgot = engine.forgetCollection('many');
      },
    });
    await expect(second).rejects.toMatchObject({ code: 'CANCELLED' });
    await forgot;
    expect(await engine.collections()).toEqual([]);
    expect((await engine.list()).map((d) => relative(dir, d.path))).toEqual(['alone.md']);

    // Cancelled while its files are still being counted: heard at once, nothing added.
    const early = new AbortController();
    const third = engine.addCollection(join(dir, 'many'), {
      signal: early.signal,
      onProgress: (p) => {
        if (p.phase === 'scan') early.abort();
      },
    });
    await expect(third).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(await engine.collections()).toEqual([]);
    expect((await engine.list()).map((d) => relative(dir, d.path))).toEqual(['alone.md']);
  });
});

describe('watching a collection', () => {
  async function watched(files: Record<string, string>): Promise<{ root: string; engine: Engine; w: CollectionWatcher }> {
    const dir = await tempDir();
    await writeTree(dir, files);
    const root = join(dir, 'notes');
    const engine = await engineIn(join(dir, 'data'));
    await engine.addCollection(root);
    const w = await engine.watchCollections({ debounceMs: 100 });
    return { root, engine, w };
  }

  it('follows create, edit, an editor-style save, rename and delete; the index matches the disk', async () => {
    const { root, engine, w } = await watched({ 'notes/a.md': '# A\n\nalpha words\n', 'notes/b.md': '# B\n\nbravo words\n' });
    try {
      writeFileSync(join(root, 'c.md'), '# C\n\ncharlie walrus\n');
      await until(async () => (await top(engine, 'walrus')) === join(root, 'c.md'));

      writeFileSync(join(root, 'a.md'), '# A\n\nalpha now speaks of narwhals\n');
      await until(async () => (await top(engine, 'narwhals')) === join(root, 'a.md'));

      // An editor's save: the new text goes to a temp file, which is renamed over the original.
      writeFileSync(join(root, '.b.md.swp'), '# B\n\nbravo rewritten about pelicans\n');
      renameSync(join(root, '.b.md.swp'), join(root, 'b.md'));
      await until(async () => (await top(engine, 'pelicans')) === join(root, 'b.md'));

      const before = await engine.inspectDoc(join(root, 'c.md'));
      renameSync(join(root, 'c.md'), join(root, 'renamed.md'));
      await until(async () => (await top(engine, 'walrus')) === join(root, 'renamed.md'));
      const after = await engine.inspectDoc(join(root, 'renamed.md'));
      // A move: the same document and the same chunks (nothing embedded again).
      expect(after.document.id).toBe(before.document.id);
      expect(after.chunks.map((c) => c.id)).toEqual(before.chunks.map((c) => c.id));

      rmSync(join(root, 'a.md'));
      await until(async () => (await top(engine, 'narwhals')) === undefined);
      mkdirSync(join(root, 'sub'));
      writeFileSync(join(root, 'sub', 'd.md'), '# D\n\ndelta flamingo\n');
      await until(async () => (await top(engine, 'flamingo')) === join(root, 'sub', 'd.md'));
      rmSync(join(root, 'sub'), { recursive: true });
      await until(async () => (await top(engine, 'flamingo')) === undefined);
      await w.settle();
      expect(await indexed(engine, root)).toEqual(onDisk(root));
    } finally {
      await w.close();
    }
  }, 30_000);

  it('never indexes what the walk leaves out: a file written later into a hidden folder, or one its .gitignore ignores (issue 49)', async () => {
    const { root, engine, w } = await watched({
      'notes/a.md': '# A\n\nalpha words\n',
      'notes/.config/keep': '',
      'notes/.gitignore': 'private/\n*.secret\n',
    });
    try {
      writeFileSync(join(root, '.config', 'x.txt'), 'password=hunter2\n');
      writeFileSync(join(root, '.env'), 'TOKEN=hunter3\n');
      mkdirSync(join(root, 'private'));
      writeFileSync(join(root, 'private', 'diary.md'), '# Diary\n\nhunter4 was here\n');
      writeFileSync(join(root, 'keys.secret'), 'hunter5\n');
      writeFileSync(join(root, 'seen.md'), '# Seen\n\nkingfisher by the weir\n');
      await until(async () => (await top(engine, 'kingfisher')) === join(root, 'seen.md'));
      await w.settle();
      for (const word of ['hunter2', 'hunter3', 'hunter4', 'hunter5']) expect(await top(engine, word), word).toBeUndefined();
      expect((await engine.list()).map((d) => relative(root, d.path)).sort()).toEqual(['a.md', 'seen.md']);
    } finally {
      await w.close();
    }
  });

  it('takes a burst of 1,000 new files, then their deletion', async () => {
    const { root, engine, w } = await watched({ 'notes/keep.md': '# Keep\n\nkept\n' });
    try {
      mkdirSync(join(root, 'burst'));
      for (let i = 0; i < 1000; i++) writeFileSync(join(root, 'burst', `f${i}.md`), `# File ${i}\n\nburst item number${i}\n`);
      await until(async () => (await engine.list()).length === 1001, 60_000);
      await w.settle();
      expect(await indexed(engine, root)).toEqual(onDisk(root));
      expect(await top(engine, 'number777')).toBe(join(root, 'burst', 'f777.md'));
      rmSync(join(root, 'burst'), { recursive: true });
      await until(async () => (await engine.list()).length === 1, 60_000);
      expect(await indexed(engine, root)).toEqual(['keep.md']);
    } finally {
      await w.close();
    }
  }, 120_000);
});

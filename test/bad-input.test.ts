import { readFileSync, rmSync } from 'node:fs';
import { chmod, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCitationUri } from '../src/shared/citation.js';
import type { Engine } from '../src/worker/index.js';
import { engineIn, kb, tempDir, writeTree } from './helpers.js';

const GOOD = { 'good/alpha.md': '# Alpha\n\nThe alpha document talks about lighthouses.\n', 'good/beta.txt': 'Beta is about submarines.' };

/** An engine with two good documents indexed, and a check that they are still intact. */
async function withBaseline(): Promise<{ engine: Engine; dir: string; intact: () => Promise<void> }> {
  const dir = await tempDir();
  await writeTree(dir, GOOD);
  const engine = await engineIn();
  expect((await engine.ingest([join(dir, 'good')])).added).toBe(2);
  const intact = async (): Promise<void> => {
    expect((await engine.search({ query: 'lighthouses' })).results[0]?.citation.path).toBe(join(dir, 'good/alpha.md'));
    expect((await engine.search({ query: 'submarines' })).results[0]?.citation.path).toBe(join(dir, 'good/beta.txt'));
    const doctor = await engine.doctor();
    expect(doctor.checks.find((c) => c.name === 'database integrity')?.status).toBe('ok');
    expect(doctor.checks.find((c) => c.name === 'full-text index')?.status).toBe('ok');
  };
  return { engine, dir, intact };
}

describe('bad input never loses what is indexed', () => {
  it('a binary file named .md fails clearly; the rest of the batch goes on', async () => {
    const { engine, dir, intact } = await withBaseline();
    await writeTree(dir, {
      'bad/fake.md': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]),
      'bad/ok.md': 'fine content about kites',
    });
    const s = await engine.ingest([join(dir, 'bad')]);
    expect(s).toMatchObject({ added: 1, failed: 1 });
    expect(s.errors[0]).toMatchObject({ path: join(dir, 'bad/fake.md'), code: 'NOT_TEXT' });
    expect(s.errors[0]!.message).toMatch(/image\/png/);
    const failed = (await engine.list()).find((d) => d.path.endsWith('fake.md'))!;
    expect(failed).toMatchObject({ status: 'failed', chunks: 0 });
    expect((await engine.inspectDoc(failed.doc_id)).errors[0]?.code).toBe('NOT_TEXT');
    await intact();
  });

  it('a good file that turns bad keeps its last good chunks and says what went wrong', async () => {
    const { engine, dir, intact } = await withBaseline();
    await writeFile(join(dir, 'good/alpha.md'), new Uint8Array([0, 1, 2, 0, 0, 0, 9, 9]));
    const s = await engine.ingest([join(dir, 'good')]);
    expect(s).toMatchObject({ failed: 1, unchanged: 1 });
    const doc = (await engine.list()).find((d) => d.path.endsWith('alpha.md'))!;
    // Its latest read failed (the word kb ls and the Library show), and what was indexed before stays.
    expect(doc.status).toBe('failed');
    expect(doc.error).toMatch(/NOT_TEXT/);
    expect(doc.reason).toMatch(/NOT_TEXT.*\(the version indexed before is still searchable\)/);
    expect(doc.chunks).toBeGreaterThan(0);
    await intact();
  });

  it('random bytes named like a web page, a table or a mail fail as NOT_TEXT; UTF-16 text with its mark is read', async () => {
    const { engine, dir, intact } = await withBaseline();
    const noise = new Uint8Array(3000).map((_, i) => (i * 7919 + 13) % 251);
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Le héron guette la truite.', 'utf16le')]);
    await writeTree(dir, { 'bad/page.html': noise, 'bad/table.csv': noise, 'bad/letter.eml': noise, 'bad/heron.txt': utf16 });
    const s = await engine.ingest([join(dir, 'bad')]);
    expect(s.errors.map((e) => [e.path.split('/').pop(), e.code]).sort()).toEqual([
      ['letter.eml', 'NOT_TEXT'],
      ['page.html', 'NOT_TEXT'],
      ['table.csv', 'NOT_TEXT'],
    ]);
    expect((await engine.search({ query: 'truite' })).results[0]?.citation.path).toBe(join(dir, 'bad/heron.txt'));
    await intact();
  });

  it('invalid UTF-8 is decoded with the detected legacy encoding', async () => {
    const { engine, dir, intact } = await withBaseline();
    // "Le café est très bon. Crème brûlée à volonté." in Latin-1
    await writeFile(join(dir, 'latin1.txt'), Buffer.from('Le café est très bon. Crème brûlée à volonté, déjà servie.', 'latin1'));
    const s = await engine.ingest([join(dir, 'latin1.txt')]);
    expect(s).toMatchObject({ added: 1, failed: 0 });
    const hit = (await engine.search({ query: 'café brûlée' })).results[0];
    expect(hit?.text).toContain('Crème brûlée');
    await intact();
  });

  it('an empty file is indexed with no chunks', async () => {
    const { engine, dir, intact } = await withBaseline();
    await writeFile(join(dir, 'empty.md'), '');
    expect(await engine.ingest([join(dir, 'empty.md')])).toMatchObject({ added: 1, failed: 0 });
    expect((await engine.list()).find((d) => d.path.endsWith('empty.md'))).toMatchObject({
      status: 'indexed',
      chunks: 0,
      reason: expect.stringMatching(/empty/),
    });
    await intact();
  });

  it('a 50 MB single-line file fails with TOO_LARGE; a 3 MB one is cut into bounded chunks', async () => {
    const { engine, dir, intact } = await withBaseline();
    await writeFile(join(dir, 'huge.txt'), Buffer.alloc(50_000_000, 'a'));
    await writeFile(join(dir, 'wide.txt'), 'needle ' + 'b'.repeat(3 * 1024 * 1024));
    const s = await engine.ingest([join(dir, 'huge.txt'), join(dir, 'wide.txt')]);
    expect(s).toMatchObject({ added: 1, failed: 1 });
    expect(s.errors[0]).toMatchObject({ code: 'TOO_LARGE' });
    expect(s.errors[0]!.message).toMatch(/50\.0 MB.*max_text_bytes/);
    const wide = await engine.inspectDoc(join(dir, 'wide.txt'));
    expect(wide.chunks.length).toBeGreaterThan(100);
    expect(Math.max(...wide.chunks.map((c) => c.text.length))).toBeLessThanOrEqual(2400);
    expect((await engine.search({ query: 'needle' })).results[0]?.citation).toMatchObject({ start: 1, end: 1 });
    await intact();
  });

  it('a symlink loop is skipped with a reason', async () => {
    const { engine, dir, intact } = await withBaseline();
    await mkdir(join(dir, 'loop'));
    await symlink(join(dir, 'loop'), join(dir, 'loop/self'));
    await symlink(join(dir, 'loop/a'), join(dir, 'loop/b'));
    await symlink(join(dir, 'loop/b'), join(dir, 'loop/a'));
    const s = await engine.ingest([join(dir, 'loop')]);
    expect(s.failed).toBe(0);
    expect(s.skipped.map((x) => x.reason).join(' ')).toMatch(/loop/);
    await intact();
  });

  it('a file deleted mid-run is reported as VANISHED', async () => {
    const { engine, dir, intact } = await withBaseline();
    await writeTree(dir, Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`run/${String(i).padStart(2, '0')}.md`, `note ${i}`])));
    const victim = join(dir, 'run/15.md');
    const s = await engine.ingest([join(dir, 'run')], {
      onProgress: (p) => {
        // Files are read a few ahead of the one being written; 15 is well past that when 01 is written.
        if (p.phase === 'ingest' && p.path?.endsWith('01.md')) rmSync(victim);
      },
    });
    expect(s).toMatchObject({ added: 19, failed: 1 });
    expect(s.errors[0]).toMatchObject({ path: victim, code: 'VANISHED' });
    await intact();
  });

  it('a path that does not exist is an error, not a crash', async () => {
    const { engine, dir, intact } = await withBaseline();
    const s = await engine.ingest([join(dir, 'nope')]);
    expect(s.errors[0]).toMatchObject({ code: 'NOT_FOUND' });
    await intact();
  });

  it('paths with spaces, #, % and non-ASCII round-trip through the citation URI', async () => {
    const { engine, dir, intact } = await withBaseline();
    const names = ['my notes/a b.md', 'c#sharp/100% done.md', '한국어/노트 #1.md', 'ünï cödé/ß?&=.txt'];
    await writeTree(dir, Object.fromEntries(names.map((n) => [`odd/${n}`, `content about pelicans in ${n}`])));
    expect((await engine.ingest([join(dir, 'odd')])).added).toBe(4);
    const r = await engine.search({ query: 'pelicans', top: 10 });
    expect(r.results).toHaveLength(4);
    for (const h of r.results) {
      const back = parseCitationUri(h.citation.uri);
      expect(back.path).toBe(h.citation.path);
      expect(readFileSync(back.path, 'utf8')).toContain('pelicans');
      expect(h.citation.uri).not.toMatch(/[ %](?![0-9A-F]{2})/);
    }
    await intact();
  });

  it('an unreadable file fails with UNREADABLE (run as an unprivileged user when tests run as root)', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'docs/open.md': 'readable walruses', 'docs/locked.md': 'secret walruses' });
    await chmod(join(dir, 'docs'), 0o755);
    await chmod(join(dir, 'docs/open.md'), 0o644);
    await chmod(join(dir, 'docs/locked.md'), 0o000);
    const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    const env = { KB_DATA_DIR: join(dir, 'data'), KB_CONFIG: join(dir, 'none.yaml'), HOME: dir };
    await mkdir(join(dir, 'data'), { mode: 0o777 });
    await chmod(join(dir, 'data'), 0o777);
    const r = kb(['ingest', join(dir, 'docs'), '--json'], { env, ...asUser });
    expect(r.code).toBe(3);
    expect(r.json()).toMatchObject({ added: 1, failed: 1, errors: [{ path: join(dir, 'docs/locked.md'), code: 'UNREADABLE' }] });
    const s = kb(['search', 'walruses', '--json'], { env, ...asUser }).json() as { results: { citation: { path: string } }[] };
    expect(s.results.map((h) => h.citation.path)).toEqual([join(dir, 'docs/open.md')]);
  });
});

// Hostile input: bombs that must hit a limit with a clear error, symlinks that would lead out of a
// folder, spans asked for outside the index, and oversized messages to the web host.
import { statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { makePdf } from './support/make-test-pdf.js';
import { servedFrom } from '../tools/serve-output.js';
import { engineIn, kb, kbServe, tempDir, writeTree } from './helpers.js';

/** A real PNG header claiming width × height, with one tiny compressed row: a decompression bomb's shape. */
function bombPng(width: number, height: number): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (b: Buffer): number => {
    let c = 0xffffffff;
    for (const x of b) c = crcTable[(c ^ x) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer): Buffer => {
    const t = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const out = Buffer.alloc(8 + data.length + 4);
    out.writeUInt32BE(data.length, 0);
    t.copy(out, 4);
    out.writeUInt32BE(crc(t), 8 + data.length);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.alloc(width + 1))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('bombs', () => {
  it('a 30,000 × 30,000 image fails with TOO_LARGE before it is decoded; the rest is indexed', async () => {
    const dir = await tempDir();
    writeFileSync(join(dir, 'bomb.png'), bombPng(30_000, 30_000));
    await writeTree(dir, { 'ok.md': '# OK\n\nstill here\n' });
    const engine = await engineIn(join(dir, 'data'));
    const s = await engine.ingest([dir]);
    expect(s.errors).toEqual([
      {
        path: join(dir, 'bomb.png'),
        code: 'TOO_LARGE',
        message: '30000 × 30000 pixels is over the limit of 100 megapixels (ingest.max_image_pixels)',
      },
    ]);
    expect(s.added).toBe(1);
    expect(s.ocr).toBeUndefined(); // nothing was queued for OCR
  });

  it('a PDF of thousands of blank pages is read quickly, and OCR is capped, saying so', async () => {
    const dir = await tempDir();
    writeFileSync(join(dir, 'blank.pdf'), await makePdf({ pages: Array.from({ length: 3000 }, () => ({ lines: [] })) }));
    const engine = await engineIn(join(dir, 'data'), { ocr: { max_pages: 2 } });
    const t0 = Date.now();
    const s = await engine.ingest([join(dir, 'blank.pdf')]);
    expect(Date.now() - t0).toBeLessThan(60_000);
    expect(s.ocr).toMatchObject({ pages: 2 });
    const doc = await engine.inspectDoc(join(dir, 'blank.pdf'));
    expect(doc.document.page_count).toBe(3000);
    expect(doc.ocr_pages).toHaveLength(2);
    expect(doc.document.error).toMatch(/TOO_LARGE: OCR reads only the first 2 of its 3000 pages without text \(ocr\.max_pages\)|EMPTY/);
  }, 90_000);
});

describe('paths', () => {
  it('does not follow a symlink out of the folder (by default); one inside it adds no duplicate', async () => {
    const dir = await tempDir();
    const outside = await tempDir();
    await writeTree(outside, { 'secret.md': '# Secret\n\nthe private salary table\n' });
    await writeTree(dir, { 'notes/real.md': '# Real\n\nordinary notes\n', 'notes/inner/deep.md': '# Deep\n\ninner text\n' });
    symlinkSync(outside, join(dir, 'notes', 'escape'));
    symlinkSync(join(outside, 'secret.md'), join(dir, 'notes', 'secret-link.md'));
    symlinkSync(join(dir, 'notes', 'inner'), join(dir, 'notes', 'inside-link'));
    const env = { KB_DATA_DIR: join(dir, 'data'), KB_CONFIG: join(dir, 'none.yaml') };
    const s = kb(['ingest', join(dir, 'notes'), '--json'], { env }).json() as {
      added: number;
      skipped: { path: string; reason: string }[];
    };
    expect(s.skipped.map((x) => [x.path, x.reason]).sort()).toEqual([
      [join(dir, 'notes', 'escape'), 'a symlink to outside the folder (ingest.follow_symlinks_outside)'],
      [join(dir, 'notes', 'inside-link'), 'symlink loop or folder already visited'],
      [join(dir, 'notes', 'secret-link.md'), 'a symlink to outside the folder (ingest.follow_symlinks_outside)'],
    ]);
    expect(s.added).toBe(2);
    expect(kb(['search', 'salary', '--json'], { env }).json()).toMatchObject({ returned: 0 });
    // kb get serves only what is indexed: not the file behind the link, not a traversal.
    for (const t of [
      join(dir, 'notes', 'escape', 'secret.md'),
      join(dir, 'notes', 'secret-link.md'),
      `${join(dir, 'notes')}/../../${outside.split('/').pop()}/secret.md`,
      join(outside, 'secret.md'),
    ]) {
      const r = kb(['get', t], { env });
      expect([t, r.code]).toEqual([t, 1]);
      expect(r.stdout + r.stderr).not.toMatch(/salary/);
    }
  });
});

describe('the web host', () => {
  it('closes a connection that sends an oversized message, and goes on serving', async () => {
    const dir = await tempDir();
    const host = await kbServe(join(dir, 'data'));
    const url = `ws://127.0.0.1:${host.port}/ws?token=${host.token}`;
    const origin = `http://127.0.0.1:${host.port}`;
    const closed = await new Promise<number>((resolve) => {
      const ws = new WebSocket(url, { origin });
      ws.on('open', () =>
        ws.send(JSON.stringify({ type: 'request', id: 1, method: 'search', params: { query: 'x'.repeat(2 * 1024 * 1024) } })),
      );
      ws.on('close', (code) => resolve(code));
      ws.on('error', () => undefined);
    });
    expect(closed).toBe(1009); // message too big
    const answer = await new Promise<unknown>((resolve) => {
      const ws = new WebSocket(url, { origin });
      ws.on('open', () => ws.send(JSON.stringify({ type: 'request', id: 2, method: 'status', params: {} })));
      ws.on('message', (d) => {
        resolve(JSON.parse(String(d)));
        ws.close();
      });
    });
    expect(answer).toMatchObject({ type: 'response', id: 2, result: { ready: true } });
  });
});

describe('logs', () => {
  it('kb serve writes neither its token nor document text to its logs', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'notes/private.md': '# Private\n\nthe secret albatross password is hunter2\n' });
    const { spawn } = await import('node:child_process');
    const { repoRoot } = await import('./helpers.js');
    const child = spawn(process.execPath, [join(repoRoot, 'bin/kb.js'), 'serve', '--json', '--data-dir', join(dir, 'data')], {
      env: { ...process.env, KB_CONFIG: join(dir, 'none.yaml'), KB_OLLAMA_HOST: 'http://127.0.0.1:1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const first = await new Promise<string>((resolve) =>
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()).includes('\n}') && resolve(stdout)),
    );
    const { port, token } = servedFrom(first);
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${token}`, { origin: `http://127.0.0.1:${port}` });
    await new Promise((r) => ws.on('open', r));
    const call = (id: number, method: string, params: unknown): Promise<unknown> =>
      new Promise((resolve) => {
        ws.on('message', (d) => {
          const m = JSON.parse(String(d)) as { id?: number; type: string };
          if (m.type === 'response' && m.id === id) resolve(m);
        });
        ws.send(JSON.stringify({ type: 'request', id, method, params }));
      });
    await call(1, 'ingest', { paths: [join(dir, 'notes')] });
    await call(2, 'search', { query: 'albatross password' });
    await call(3, 'ask', { question: 'what is the albatross password?' });
    await call(4, 'source', { doc_id: 'not-an-id' });
    await fetch(`http://127.0.0.1:${port}/?token=wrong`);
    ws.close();
    child.kill();
    await new Promise((r) => child.on('exit', r));
    expect(stderr).not.toContain(token);
    // Nor to its output: a service's stdout is a journal (issue 50); it names the 0600 file instead.
    expect(stdout).not.toContain(token);
    expect(JSON.parse(first)).toMatchObject({ token_file: join(dir, 'data', 'serve-token') });
    expect(statSync(join(dir, 'data', 'serve-token')).mode & 0o777).toBe(0o600);
    expect(stderr).not.toMatch(/albatross|hunter2/);
    expect(stdout.slice(first.length)).not.toMatch(/albatross|hunter2/);
  });
});

describe('hostile requests (issue 50, item 4)', () => {
  const notes = {
    'notes/alpha.md': '# Alpha\n\nThe heron waded through the reeds at dawn.\n',
    'notes/deep/beta.md': '# Beta\n\nA heron and a kingfisher shared the river.\n',
    'notes/gamma.txt': 'Herons nest in colonies called heronries.\n',
    'other/delta.md': '# Delta\n\nNo birds here, only a heron painted on a mug.\n',
    [`other/${'heron-'.repeat(9)}notes.txt`]: 'A heron with a long name.\n',
  };
  const found = async (engine: Awaited<ReturnType<typeof engineIn>>, path: string): Promise<string[]> =>
    [
      ...new Set(
        (await engine.search({ query: 'heron', mode: 'lexical', path })).results.map((h) => h.citation.path.split('/').slice(-2).join('/')),
      ),
    ].sort();

  it('a path glob is matched in linear time: `*?` forty times answers at once, and globs keep their meaning', async () => {
    const dir = await tempDir();
    await writeTree(dir, notes);
    const engine = await engineIn(join(dir, 'data'));
    await engine.ingest([join(dir, 'notes'), join(dir, 'other')]);
    // A backtracking matcher (picomatch's regular expression) takes hours over the long name here.
    expect(await found(engine, `${'*?'.repeat(12)}x`)).toEqual([]);
    expect(await found(engine, '*?'.repeat(40))).toEqual([`other/${'heron-'.repeat(9)}notes.txt`]);
    expect(await found(engine, `**/${'*a'.repeat(30)}b`)).toEqual([]);
    expect(await found(engine, 'notes/*.md')).toEqual(['notes/alpha.md']);
    expect(await found(engine, 'notes/**')).toEqual(['deep/beta.md', 'notes/alpha.md', 'notes/gamma.txt']);
    expect(await found(engine, '**/*.{md,txt}')).toHaveLength(5);
    expect(await found(engine, '**/[a-c]*.md')).toEqual(['deep/beta.md', 'notes/alpha.md']);
    expect(await found(engine, '**/[!a-c]*.md')).toEqual(['other/delta.md']);
    expect(await found(engine, '**/g?mma.txt')).toEqual(['notes/gamma.txt']);
    expect(await found(engine, '**/{x}.md')).toEqual([]);
    await expect(engine.search({ query: 'heron', path: `${'{a,'.repeat(9)}b${'}'.repeat(9)}` })).rejects.toThrow(
      /nests \{…\} more than 8 deep/,
    );
    await expect(engine.search({ query: 'heron', path: 'x'.repeat(1001) })).rejects.toThrow(/path/);
    await expect(engine.search({ query: 'heron', path: '**/[z-a].md' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('an expression between quotes that could explode is refused, saying why; a long query is cut, saying so', async () => {
    const dir = await tempDir();
    await writeTree(dir, notes);
    const engine = await engineIn(join(dir, 'data'));
    await engine.ingest([join(dir, 'notes')]);
    const refused = async (query: string): Promise<string> => {
      const e = await engine.search({ query, mode: 'lexical' }).then(
        () => null,
        (x: unknown) => x as { code: string; message: string },
      );
      expect(e?.code).toBe('QUERY_INVALID');
      return e!.message;
    };
    expect(await refused("'a* OR heron'")).toMatch(/prefix a\*.*needs 3 letters/);
    expect(await refused("'her* OR kin* OR ree*'")).toMatch(/more than 2 prefixes/);
    expect(await refused(`'${'('.repeat(17)}heron${')'.repeat(17)}'`)).toMatch(/more than 16 deep/);
    expect(await refused(`'${Array.from({ length: 33 }, () => 'heron').join(' OR ')}'`)).toMatch(/33 words; at most 32/);
    expect(await refused("'!heron & !(reeds)'")).toMatch(/only excludes words/);
    // A word of thousands of letters is no word (PostgreSQL refused it with an internal error).
    expect((await engine.search({ query: `${'a'.repeat(3000)} heron`, mode: 'lexical' })).results.length).toBeGreaterThan(0);
    expect((await engine.search({ query: "'her* AND NEAR(heron reeds, 5)'", mode: 'lexical' })).results.length).toBeGreaterThan(0);

    const filler = Array.from({ length: 40 }, (_, i) => `filler${i}`).join(' ');
    const long = await engine.search({ query: `${filler} heron`, mode: 'lexical', correct: false });
    expect(long.notice).toMatch(/words past the first 32 were left out/);
    expect(long.results).toHaveLength(0); // heron is the 41st word: not searched
    const first = await engine.search({ query: `heron ${filler}`, mode: 'lexical', correct: false });
    expect(first.results.length).toBeGreaterThan(0);
    const phrases = await engine.search({ query: Array.from({ length: 9 }, () => '"heron waded"').join(' '), mode: 'lexical' });
    expect(phrases.results.length).toBeGreaterThan(0);
    expect((await engine.search({ query: 'heron waded', mode: 'lexical' })).notice).toBeUndefined();
  });
});

// Logs: what happened is in <data dir>/logs/<process>.log as JSON lines; above debug, never a
// document's text or a user's query.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openLog } from '../src/worker/index.js';
import { engineIn, tempDir, writeTree } from './helpers.js';

interface Line {
  level: number;
  msg: string;
  proc: string;
  [k: string]: unknown;
}

const read = (dataDir: string, proc = 'cli'): Line[] =>
  readFileSync(join(dataDir, 'logs', `${proc}.log`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);

describe('logs', () => {
  it('record each ingest and each file that failed, with no document text or query', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'a.md': '# Secret\n\nthe quokka-sesame plan\n' });
    await writeTree(dir, { 'b.txt': '\u0000\u0001binary' });
    const data = join(dir, 'data');
    const log = openLog(data, 'cli', 'info');
    const engine = await engineIn(data, {}, { log });
    await engine.ingest([dir]);
    expect((await engine.search({ query: 'quokka' })).results).toHaveLength(1);
    expect((await engine.status()).logs).toBe(join(data, 'logs'));
    engine.close();
    await log.close();
    const lines = read(data);
    expect(lines.find((l) => l.msg === 'ingest done')).toMatchObject({ level: 30, proc: 'cli', added: 1, failed: 1 });
    expect(lines.find((l) => l.msg === 'a file was not indexed')).toMatchObject({ level: 40, path: join(dir, 'b.txt'), code: 'NOT_TEXT' });
    const text = readFileSync(join(data, 'logs', 'cli.log'), 'utf8');
    expect(text).not.toMatch(/quokka|sesame|Secret/);
  });

  it('hold queries at debug only', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'a.md': 'the quokka plan\n' });
    const data = join(dir, 'data');
    const log = openLog(data, 'cli', 'debug');
    const engine = await engineIn(data, {}, { log });
    await engine.ingest([dir]);
    await engine.search({ query: 'quokka' });
    engine.close();
    await log.close();
    expect(read(data).find((l) => l.msg === 'search')).toMatchObject({ level: 20, query: 'quokka', hits: 1 });
  });
});

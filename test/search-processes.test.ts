// kb serve's search processes (cli/serve/search-router.ts): a search goes to the least busy process,
// everything else to the main one; whichever process answers, it answers from what every write and
// setting before it left; a search process that dies or whose settings changed is replaced, and the
// main process answers meanwhile.
import { execFileSync } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Caller, Method, Params, Result } from '../src/shared/api.js';
import { SearchRouter } from '../src/cli/serve/search-router.js';
import { SearchResultSchema } from '../src/shared/wire.js';
import { kbServe, tempDir, writeTree } from './helpers.js';
import { connect } from './support/ws-client.js';

/** A process that answers when told to, counting what it was sent. */
class Held {
  sent: string[] = [];
  available = true;
  restarts = 0;
  cancelled: number[] = [];
  private readonly answers: (() => void)[] = [];
  private next = 1;
  request<M extends Method>(method: M, _p: Params<M>, _o?: (d: unknown) => void, _c?: Caller): { id: number; result: Promise<Result<M>> } {
    this.sent.push(method);
    const id = this.next++;
    return { id, result: new Promise<Result<M>>((res) => this.answers.push(() => res({} as Result<M>))) };
  }
  cancel(id: number): void {
    this.cancelled.push(id);
  }
  restart(): void {
    this.restarts++;
  }
  answerAll(): void {
    for (const a of this.answers.splice(0)) a();
  }
}

const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 0));

describe('the search router', () => {
  it('sends a search to the least busy ready process, and everything else to the main one', async () => {
    const main = new Held();
    const s = new Held();
    const r = new SearchRouter(main, [s]);
    r.request('documents.page', { limit: 10 });
    r.request('search', { query: 'a' }); // main has one in flight: the search process takes it
    r.request('search', { query: 'b' }); // one each: a tie goes to the search process
    r.request('search', { query: 'c' }); // the search process has two: main
    expect(main.sent).toEqual(['documents.page', 'search']);
    expect(s.sent).toEqual(['search', 'search']);
    s.available = false; // starting again: main answers
    r.request('search', { query: 'd' });
    expect(s.sent).toHaveLength(2);
    expect(main.sent.at(-1)).toBe('search');
    // The main process restarting: searches go to the search process, however busy.
    s.available = true;
    main.available = false;
    r.request('search', { query: 'e' });
    r.request('search', { query: 'f' });
    expect(s.sent).toHaveLength(4);
  });

  it('cancels on the process that has the call, by the router’s own ids', () => {
    const main = new Held();
    const s = new Held();
    const r = new SearchRouter(main, [s]);
    const a = r.request('search', { query: 'a' });
    const b = r.request('ingest', { paths: ['/x'] });
    expect(a.id).not.toBe(b.id);
    r.cancel(b.id);
    r.cancel(a.id);
    expect(main.cancelled).toEqual([1]);
    expect(s.cancelled).toEqual([1]);
  });

  it('restarts a search process after a settings change, once its searches have ended, and sends it none meanwhile', async () => {
    const main = new Held();
    const s = new Held();
    const r = new SearchRouter(main, [s]);
    void r.request('search', { query: 'a' }).result; // in flight on the search process
    const set = r.request('settings.set', { key: 'search.rerank', value: true }).result;
    // While it runs, searches go to the main process, which alone knows a change under way.
    r.request('search', { query: 'during' });
    expect(main.sent.at(-1)).toBe('search');
    main.answerAll();
    await set;
    expect(s.restarts).toBe(0); // a search still runs there
    r.request('search', { query: 'b' });
    expect(main.sent.at(-1)).toBe('search');
    s.answerAll();
    await settle();
    expect(s.restarts).toBe(1);
    main.answerAll();
    await settle();
    // A search or a read changes nothing: no restart.
    await Promise.all([r.request('search', { query: 'c' }).result, (s.answerAll(), main.answerAll(), Promise.resolve())]);
    await settle();
    expect(s.restarts).toBe(1);
  });
});

/** The pids of kb serve's search processes for this data dir. */
function searchProcesses(dataDir: string): number[] {
  const out = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((l) => l.includes('--searcher') && l.includes(`--data-dir ${dataDir}`))
    .map((l) => Number(l.trim().split(/\s+/)[0]));
}

describe('kb serve with a search process', () => {
  it('answers every search from what the writes before it left, whichever process takes it (random sequences)', async () => {
    const dir = await tempDir();
    const notes = join(dir, 'notes');
    await writeTree(dir, { 'notes/seed.md': '# Seed\n\nnothing to see\n' });
    const dataDir = join(dir, 'data');
    const host = await kbServe(dataDir);
    const c = await connect(host.port, host.token);
    try {
      await c.call('ingest', { paths: [notes] });
      for (let i = 0; i < 100 && searchProcesses(dataDir).length === 0; i++) await new Promise((r) => setTimeout(r, 100));
      expect(searchProcesses(dataDir)).toHaveLength(1);
      // Each note holds one made-up word; the model says which words are indexed now.
      const words = ['quokka', 'axolotl', 'pangolin', 'narwhal', 'okapi', 'tapir'];
      const held = new Map<string, string>(); // word → its note's text
      let seed = 7;
      const rand = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
      for (let step = 0; step < 40; step++) {
        const word = words[rand(words.length)]!;
        const file = join(notes, `${word}.md`);
        const op = rand(3);
        if (op === 0) {
          await writeFile(file, `# Note ${step}\n\nThe ${word} was seen on day ${step}.\n`);
          held.set(word, `day ${step}`);
          await c.call('ingest', { paths: [file] });
        } else if (op === 1 && held.has(word)) {
          await rm(file);
          held.delete(word);
          await c.call('remove', { target: file });
        }
        // Two searches at once, so both processes answer some of them.
        const [a, b] = await Promise.all(words.slice(0, 2).map(() => c.call('search', { query: word, mode: 'lexical' })));
        for (const r of [a, b]) {
          const hits = SearchResultSchema.parse(r!.result).results;
          const want = held.get(word);
          if (want) expect(hits.map((h) => h.text).join(' ')).toContain(want);
          else expect(hits.filter((h) => h.text.includes(word))).toEqual([]);
        }
      }
    } finally {
      c.close();
    }
  });

  it('takes up a changed setting, and searches on when its search process is killed', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'notes/a.md': '# Alpha\n\nThe wombat digs.\n' });
    const dataDir = join(dir, 'data');
    const host = await kbServe(dataDir);
    const c = await connect(host.port, host.token);
    try {
      await c.call('ingest', { paths: [join(dir, 'notes')] });
      for (let i = 0; i < 100 && searchProcesses(dataDir).length === 0; i++) await new Promise((r) => setTimeout(r, 100));
      const before = searchProcesses(dataDir);
      expect(before).toHaveLength(1);
      const search = async (): Promise<{ rerank?: unknown; results: unknown[] }> =>
        SearchResultSchema.parse((await c.call('search', { query: 'wombat' })).result);
      expect((await search()).rerank).toBeUndefined();
      expect((await c.call('settings.set', { key: 'search.rerank', value: true })).error).toBeUndefined();
      // Every search from now on asks for the reranker, on whichever process: the search process
      // was started again with the new setting.
      for (let i = 0; i < 30; i++) {
        const r = await search();
        expect(r.rerank).toBeDefined();
        expect(r.results).toHaveLength(1);
        await new Promise((res) => setTimeout(res, 100));
      }
      const after = searchProcesses(dataDir);
      expect(after).toHaveLength(1);
      expect(after[0]).not.toBe(before[0]);
      // kill -9: the main process answers until another search process is up.
      process.kill(after[0]!, 'SIGKILL');
      for (let i = 0; i < 30; i++) {
        const r = await c.call('search', { query: 'wombat' });
        if (r.error) expect(r.error.message).toMatch(/restarting|stopped/);
        else expect(SearchResultSchema.parse(r.result).results).toHaveLength(1);
        await new Promise((res) => setTimeout(res, 100));
      }
      expect(searchProcesses(dataDir)).toHaveLength(1);
    } finally {
      c.close();
    }
  });
});

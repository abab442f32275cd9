// Setting kb up without a terminal: the RPC methods the app's Models, Folders, Settings and Status
// views call (served by the real loop over an in-process channel, every result checked against the
// contract), and documents found by their file name.
import { copyFileSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type Method, type Params, type Result, type ServerMessage } from '../src/shared/api.js';
import { localClient, serveEngine } from '../src/worker/loop.js';
import type { Engine } from '../src/worker/index.js';
import { makeTestModel } from './support/make-test-model.js';
import { type HubStub, startHubStub } from './support/hub-stub.js';
import { corporaDir, engineIn, tempDir, writeTree } from './helpers.js';

const corpora = corporaDir();

/** The engine behind the real message loop; calls are checked against the contract both ways. */
function served(engine: Engine) {
  let toWorker: (m: unknown) => void = () => undefined;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error & { code?: string }) => void; progress: unknown[] }>();
  const events: { event: string; data: unknown; at: number }[] = [];
  serveEngine(
    engine,
    {
      send: (m: ServerMessage) =>
        setImmediate(() => {
          if (m.type === 'event' && m.id === undefined) events.push({ event: m.event, data: m.data, at: performance.now() });
          else if (m.type === 'event') waiting.get(m.id!)?.progress.push({ data: m.data, at: performance.now() });
          else {
            const w = waiting.get(m.id);
            waiting.delete(m.id);
            if (m.error) w?.reject(Object.assign(new Error(m.error.message), { code: m.error.code }));
            else w?.resolve(m.result);
          }
        }),
      onMessage: (h) => (toWorker = h),
    },
    'test',
  );
  let next = 1;
  function call<M extends Method>(
    method: M,
    params: Params<M>,
  ): { id: number; result: Promise<Result<M>>; progress: { data: unknown; at: number }[]; cancel: () => void } {
    const id = next++;
    const progress: { data: unknown; at: number }[] = [];
    const result = new Promise<unknown>((resolve, reject) => waiting.set(id, { resolve, reject, progress: progress as unknown[] })).then(
      (r) => API[method].result.parse(r) as Result<M>,
    );
    toWorker({ type: 'request', id, method, params });
    return { id, result, progress, cancel: () => toWorker({ type: 'cancel', id }) };
  }
  return { call, events };
}

describe('documents found by their file name and title', () => {
  it('finds a recording that waits for a speech model by its name, first when the name is typed whole, with why it has no passages', async () => {
    if (!corpora) return;
    const dir = await tempDir();
    copyFileSync(join(corpora, 'audio/jfk.mp3'), join(dir, 'jfk.mp3'));
    await writeTree(dir, { 'speech-notes.md': '# Speeches\n\nThe jfk inaugural address notes: ask not what your country can do.\n' });
    const engine = await engineIn(undefined, { audio: { ffmpeg_path: '' } });
    try {
      await engine.ingest([dir]);
      expect((await engine.list()).find((d) => d.path.endsWith('jfk.mp3'))?.status).toBe('waiting');
      const byName = await engine.search({ query: 'jfk.mp3', mode: 'lexical' });
      expect(byName.results[0]).toMatchObject({
        chunk_id: '',
        retrieval: { by_name: true },
        citation: { kind: 'time', start: 0 },
        source: {
          title: 'jfk.mp3',
          type: 'audio',
          total_chunks: 0,
          reason: expect.stringMatching(/waiting for a speech model.*kb models pull whisper-base\.en/),
        },
      });
      // The name without its extension is the name too; the passage that says the word follows.
      const word = await engine.search({ query: 'jfk', mode: 'lexical' });
      expect(word.results.map((r) => r.citation.path.split('/').pop())).toEqual(['jfk.mp3', 'speech-notes.md']);
      expect(word.total_matches).toBe(2);
      // While typing, the last word is a prefix; a type filter still applies.
      expect((await engine.search({ query: 'jfk', prefix: true, mode: 'lexical' })).results.some((r) => r.source.type === 'audio')).toBe(
        true,
      );
      expect(
        (await engine.search({ query: 'jfk', type: 'markdown', mode: 'lexical' })).results.every((r) => r.source.type === 'markdown'),
      ).toBe(true);
    } finally {
      engine.close();
    }
  });

  it('finds a note by a file name its text never says, cited at its start, and follows a rename', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'quarterly-budget.txt': 'Spend less on snacks.\n\nMore on books.\n', 'other.md': '# Other\n\nnothing here\n' });
    const engine = await engineIn();
    try {
      await engine.ingest([dir]);
      const r = await engine.search({ query: 'budget', mode: 'lexical' });
      expect(r.results).toHaveLength(1);
      expect(r.results[0]).toMatchObject({
        retrieval: { by_name: true },
        citation: { kind: 'lines', start: 1 },
        source: { chunk_index: 0 },
      });
      expect(r.results[0]!.text).toContain('snacks');
      // A tag is a word too.
      const tagged = join(dir, 'tagged');
      await writeTree(tagged, { 'x.md': '---\ntags: [holidays]\n---\n# Trip\n\nPack light.\n' });
      await engine.ingest([tagged]);
      expect((await engine.search({ query: 'holidays', mode: 'lexical' })).results.map((h) => h.source.title)).toEqual(['Trip']);
      await rename(join(dir, 'quarterly-budget.txt'), join(dir, 'annual-plan.txt'));
      await engine.ingest([dir]);
      expect((await engine.search({ query: 'budget', mode: 'lexical' })).results).toHaveLength(0);
      expect((await engine.search({ query: 'annual plan', mode: 'lexical' })).results[0]?.citation.path).toBe(join(dir, 'annual-plan.txt'));
    } finally {
      engine.close();
    }
  });
});

describe('a file’s own name typed', () => {
  it('ranks that file first, even when other passages hold its words more often', async () => {
    const dir = await tempDir();
    await writeTree(dir, {
      'gazette.txt': 'BILLING CODE 4910-13-P. Billing code for the bill, png scans of the bill and the billing office.\n',
      'bill.png.txt': 'A note about nothing much.\n',
      'bill.md': '# Receipt\n\nThe bill came on Monday.\n',
    });
    const engine = await engineIn();
    try {
      await engine.ingest([dir]);
      const r = await engine.search({ query: 'bill.md', mode: 'lexical' });
      // bill.md's own passage holds "bill" and is found by it; typed as its name, it goes first.
      expect(r.results[0]).toMatchObject({ citation: { path: join(dir, 'bill.md') } });
      expect(r.results.filter((h) => h.doc_id === r.results[0]!.doc_id)).toHaveLength(1);
      expect(r.results[0]!.score).toBeGreaterThanOrEqual(r.results[1]?.score ?? 0);
      // Not typed as a name: the passages rank as they do.
      expect((await engine.search({ query: 'billing code', mode: 'lexical' })).results[0]!.citation.path).toBe(join(dir, 'gazette.txt'));
    } finally {
      engine.close();
    }
  });
});

describe('names that point at no file in particular', () => {
  it('adds no documents by name when the words are in the names of very many (note-001.md … and "note")', async () => {
    const dir = await tempDir();
    const files: Record<string, string> = { 'about.md': '# About\n\nA note on keeping notes.\n' };
    for (let i = 0; i < 30; i++) files[`note-${String(i).padStart(3, '0')}.md`] = `# Entry ${i}\n\nPlain words number ${i}.\n`;
    await writeTree(dir, files);
    const engine = await engineIn();
    try {
      await engine.ingest([dir]);
      const r = await engine.search({ query: 'note', mode: 'lexical' });
      expect(r.results.map((h) => h.citation.path.split('/').pop())).toEqual(['about.md']);
      // The whole name still finds its file.
      expect((await engine.search({ query: 'note-007.md', mode: 'lexical' })).results[0]).toMatchObject({
        retrieval: { by_name: true },
        citation: { path: join(dir, 'note-007.md') },
      });
    } finally {
      engine.close();
    }
  });
});

describe('the RPC methods behind the Models, Folders, Settings and Status views', () => {
  let hub: HubStub | null = null;
  let slowHub: HubStub | null = null;
  let modelDir = '';
  beforeAll(async () => {
    if (!corpora) return;
    modelDir = makeTestModel({ arch: 'minilm-l6', out: join(await mkdtemp(join(tmpdir(), 'kb-hub-')), 'minilm') });
    hub = await startHubStub(modelDir);
    slowHub = await startHubStub(modelDir, { bytesPerSecond: 16 * 1024 * 1024, speechModelBytes: 50 * 1024 * 1024 });
  });
  afterAll(async () => {
    await hub?.close();
    await slowHub?.close();
    if (modelDir) await rm(dirname(modelDir), { recursive: true, force: true });
  });

  it('adds a folder to keep in sync, lists it with counts, refuses a bad one losing nothing, and forgets it', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'a.md': '# A\n\nalpha words\n', 'b.md': '# B\n\nbeta words\n' });
    const engine = await engineIn();
    const { call } = served(engine);
    try {
      const added = call('collections.add', { path: dir, name: 'notes', tags: ['work'] });
      const r = await added.result;
      expect(r.collection).toMatchObject({ name: 'notes', root: dir, tags: ['work'], documents: 2 });
      expect(added.progress.length).toBeGreaterThan(0);
      expect((await call('collections.list', {}).result).collections.map((c) => c.name)).toEqual(['notes']);
      await expect(call('collections.add', { path: join(dir, 'nope') }).result).rejects.toMatchObject({
        code: expect.stringMatching(/NOT_FOUND|INVALID_ARGUMENT/),
      });
      // The server's working folder means nothing to the person typing: a relative path is refused.
      await expect(call('collections.add', { path: 'notes' }).result).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: expect.stringMatching(/full path.*~\/notes/),
      });
      await expect(call('collections.add', { path: dir, name: 'again' }).result).rejects.toThrow(/overlaps the collection notes/);
      await expect(call('collections.add', { path: dir, bogus: 1 } as never).result).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      expect(await engine.list()).toHaveLength(2);
      expect(await call('collections.forget', { name: 'notes' }).result).toMatchObject({ collection: 'notes', removed: 2 });
      expect((await call('collections.list', {}).result).collections).toEqual([]);
    } finally {
      engine.close();
    }
  });

  it('reads settings with what overrides them, and writes one keeping the comments: live ones at once, checked first', async () => {
    const dataDir = await tempDir();
    writeFileSync(join(dataDir, 'config.yaml'), '# my notes about kb\nask:\n  top: 8 # how many passages\n');
    const engine = await engineIn(dataDir, { ask: { top: 8, ollama_host: 'http://127.0.0.1:9' } });
    const { call } = served(engine);
    try {
      const s = await call('settings.get', {}).result;
      expect(s.values).toMatchObject({
        'ask.top': 8,
        'ui.theme': 'system',
        'ui.editor_uri': 'vscode://file/{path}:{line}',
        'ui.updates': true,
      });
      expect(s.ollama).toMatchObject({
        reachable: false,
        models: [],
        detail: expect.stringMatching(/ollama serve.*ollama\.com\/download/s),
      });
      expect(s.ocr_languages_installed).toContain('eng');
      const set = await call('settings.set', { key: 'ask.top', value: 12 }).result;
      expect(set).toMatchObject({ applied: 'live', value: 12 });
      expect(engine.config.ask.top).toBe(12);
      const text = readFileSync(join(dataDir, 'config.yaml'), 'utf8');
      expect(text).toContain('# my notes about kb');
      expect(text).toMatch(/top: 12 # how many passages/);
      // Wrong values are refused before the file is touched.
      await expect(call('settings.set', { key: 'ask.top', value: 'many' }).result).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
      await expect(call('settings.set', { key: 'ask.ollama_host', value: 'not a url' }).result).rejects.toMatchObject({
        code: 'CONFIG_INVALID',
      });
      // A model's name as Ollama writes them; an editor link that opens an editor, never a script.
      await expect(call('settings.set', { key: 'ask.model', value: 'no such model!!' }).result).rejects.toThrow(/not a model's name/);
      for (const bad of [
        'javascript:alert(1)//{path}',
        'data:text/html,{path}',
        'JavaScript:void({path})',
        '{path}',
        'https://evil.example/?p={path}',
        'file://{path}',
      ])
        await expect(call('settings.set', { key: 'ui.editor_uri', value: bad }).result, bad).rejects.toMatchObject({
          code: 'CONFIG_INVALID',
        });

      await expect(call('settings.set', { key: 'data_dir', value: '/tmp' } as never).result).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
      });
      expect(readFileSync(join(dataDir, 'config.yaml'), 'utf8')).toBe(text);
      expect(await call('settings.set', { key: 'ui.editor_uri', value: 'idea://open?file={path}&line={line}' }).result).toMatchObject({
        applied: 'live',
      });
      // The installed app's updates: a live switch the app reads when a look is due (src/main/updates.ts).
      expect(await call('settings.set', { key: 'ui.updates', value: false }).result).toMatchObject({ applied: 'live' });
      expect(readFileSync(join(dataDir, 'config.yaml'), 'utf8')).toMatch(/updates: false/);
      expect((await call('settings.get', {}).result).values['ui.updates']).toBe(false);
      const restart = await call('settings.set', { key: 'store_originals', value: 'reference' }).result;
      expect(restart).toMatchObject({ applied: 'restart', note: expect.stringMatching(/restart/) });
      expect((await call('settings.get', {}).result).restart_needed).toEqual(['store_originals']);
      // A program that is not there, a hub that is not HTTP: refused now, not found out at the next recording or download.
      await expect(call('settings.set', { key: 'audio.ffmpeg_path', value: '/nonexistent/ffmpeg' }).result).rejects.toThrow(
        /Not saved: no ffmpeg runs at \/nonexistent\/ffmpeg/,
      );
      await expect(call('settings.set', { key: 'models.hub_endpoint', value: 'ftp://evil.example' }).result).rejects.toThrow(/HTTP/);
      expect((await call('settings.set', { key: 'audio.ffmpeg_path', value: '' }).result).note).toBe('Back to the default: in effect now');

      // A person tabbing through the form: changes sent together are all kept, in the file and in effect.
      const burst = await Promise.all([
        call('settings.set', { key: 'ask.ollama_host', value: 'http://127.0.0.1:6' }).result,
        call('settings.set', { key: 'ask.model', value: 'qwen2.5' }).result,
        call('settings.set', { key: 'ask.top', value: 5 }).result,
        call('settings.set', { key: 'ui.editor_uri', value: 'idea://open?file={path}&line={line}&x=1' }).result,
      ]);
      expect(burst.map((b) => b.note)).toEqual([
        expect.stringMatching(/^Saved/),
        expect.stringMatching(/^Saved/),
        expect.stringMatching(/^Saved/),
        expect.stringMatching(/^Saved/),
      ]);
      const after = readFileSync(join(dataDir, 'config.yaml'), 'utf8');
      expect(after).toMatch(/ollama_host: http:\/\/127\.0\.0\.1:6/);
      expect(after).toMatch(/model: qwen2\.5/);
      expect(after).toMatch(/top: 5/);
      expect(after).toMatch(/x=1/);
      expect(engine.config.ask).toMatchObject({ ollama_host: 'http://127.0.0.1:6', model: 'qwen2.5', top: 5 });
    } finally {
      engine.close();
    }
  });

  it('folds the environment into the config once, when the engine opens, and says which key a variable set', async () => {
    const dataDir = await tempDir();
    const saved = { ...process.env };
    Object.assign(process.env, {
      KB_OLLAMA_MODEL: 'qwen2.5:7b',
      KB_OLLAMA_HOST: '',
      KB_LOG_LEVEL: 'loud',
      KB_HF_ENDPOINT: 'http://127.0.0.1:9/mirror',
    });
    const engine = await engineIn(dataDir, { ask: { ollama_host: 'http://127.0.0.1:9' } });
    process.env = saved;
    const { call } = served(engine);
    try {
      // The value in effect is the config's: an empty variable is unset, a log level that is no level ignored.
      expect(engine.config.ask).toMatchObject({ model: 'qwen2.5:7b', ollama_host: 'http://127.0.0.1:9' });
      expect(engine.config.models.hub_endpoint).toBe('http://127.0.0.1:9/mirror');
      expect(engine.config.log.level).toBe('info');
      const s = await call('settings.get', {}).result;
      expect(s.overridden).toEqual({ 'ask.model': 'KB_OLLAMA_MODEL', 'models.hub_endpoint': 'KB_HF_ENDPOINT' });
      expect(s.values['ask.model']).toBe('qwen2.5:7b');
      // The file takes the new value; the variable's stays in effect, and the note says so.
      const set = await call('settings.set', { key: 'ask.model', value: 'llama3.2' }).result;
      expect(set.note).toMatch(/KB_OLLAMA_MODEL is set in kb's environment and still wins/);
      expect(engine.config.ask.model).toBe('qwen2.5:7b');
      expect(readFileSync(join(dataDir, 'config.yaml'), 'utf8')).toMatch(/model: llama3\.2/);
      // A pull that cannot reach the mirror names the variable that chose it.
      await expect(call('models.pull', { name: 'all-MiniLM-L6-v2' }).result).rejects.toMatchObject({
        message: expect.stringMatching(/KB_HF_ENDPOINT is http:\/\/127\.0\.0\.1:9\/mirror/),
      });
    } finally {
      engine.close();
    }
  });

  it('gives the filters and the footer their facets, and opens a Library row at its start', async () => {
    const dir = await tempDir();
    await writeTree(dir, {
      'a.md': '---\ntags: [work]\n---\n# Alpha\n\nfirst words\n\n## Later\n\nmore words\n',
      'b.md': '# Beta\n\nbeta words\n',
      'broken.pdf': 'not a pdf at all',
    });
    const engine = await engineIn();
    const { call } = served(engine);
    try {
      await engine.ingest([dir]);
      const f = await call('facets', {}).result;
      expect(f).toMatchObject({ types: ['markdown'], tags: [{ name: 'work', documents: 1 }], documents: 2, failed: 1 });
      // The same counts the Library shows.
      const listed = (await call('documents.page', { limit: 100 }).result).documents;
      expect(listed.filter((d) => d.status === 'failed')).toHaveLength(f.failed);
      const a = listed.find((d) => d.path.endsWith('a.md'))!;
      const hit = await call('document.open', { doc_id: a.doc_id }).result;
      expect(hit).toMatchObject({ doc_id: a.doc_id, source: { chunk_index: 0 }, citation: { path: a.path, start: 4 } }); // its first passage, after the front matter
      const broken = listed.find((d) => d.path.endsWith('broken.pdf'))!;
      await expect(call('document.open', { doc_id: broken.doc_id }).result).rejects.toMatchObject({
        code: 'NOT_FOUND',
        message: expect.stringMatching(/^broken\.pdf has nothing to show yet: /),
      });
      await expect(call('document.open', { doc_id: 'not-an-id' }).result).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    } finally {
      engine.close();
    }
  });

  it('answers the same contract in-process (kb tui, kb mcp) as over a transport (the app), with the same checks', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'a.md': '# Alpha\n\nthe walrus sings at dawn\n' });
    const engine = await engineIn();
    const { call } = served(engine);
    try {
      await engine.ingest([dir]);
      const local = localClient(engine, 'test');
      const [here, there] = await Promise.all([local.search({ query: 'walrus' }), call('search', { query: 'walrus' }).result]);
      expect(here.results.map((h) => h.citation.uri)).toEqual(there.results.map((h) => h.citation.uri));
      expect(await local.facets({})).toEqual(await call('facets', {}).result);
      const wrong = { query: 'walrus', top: -1 };
      const [a, b] = await Promise.allSettled([local.search(wrong), call('search', wrong).result]);
      expect(a.status === 'rejected' && b.status === 'rejected').toBe(true);
      const [ea, eb] = [(a as PromiseRejectedResult).reason, (b as PromiseRejectedResult).reason] as { code: string; message: string }[];
      expect(ea).toMatchObject({ code: 'INVALID_ARGUMENT', message: eb!.message });
    } finally {
      engine.close();
    }
  });

  it('answers a read past search.deadline_ms TIMEOUT and cancels it; writes have no deadline (issue 50)', async () => {
    const dir = await tempDir();
    await writeTree(
      dir,
      Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`n${i}.md`, `# Note ${i}\n\nthe walrus sings at dawn ${i}\n`])),
    );
    // A millisecond: any search outlives it, an ingest (a write) runs to its end.
    const engine = await engineIn(undefined, { search: { deadline_ms: 1 } });
    const { call } = served(engine);
    try {
      expect((await call('ingest', { paths: [dir] }).result).added).toBe(40);
      const late = await call('search', { query: 'walrus sings', top: 40, explain: true }).result.then(
        () => null,
        (e: { code: string; message: string }) => e,
      );
      expect(late).toMatchObject({ code: 'TIMEOUT', message: expect.stringMatching(/search ran past its deadline .*search\.deadline_ms/) });
      // Nothing was lost and the engine answers the next call (in-process callers have no deadline).
      expect((await localClient(engine, 'test').search({ query: 'walrus' })).results.length).toBeGreaterThan(0);
    } finally {
      engine.close();
    }
  });

  it('says what the index holds and what it takes on disk', async () => {
    const dir = await tempDir();
    // Two files with the same bytes share one stored copy; a third is different.
    await writeTree(dir, { 'a.md': '# A\n\nalpha\n', 'sub/a-again.md': '# A\n\nalpha\n', 'b.md': '# B\n\nbeta, longer\n' });
    const engine = await engineIn();
    const { call } = served(engine);
    try {
      await engine.ingest([dir]);
      const s = await call('index.status', {}).result;
      expect(s).toMatchObject({ documents: 3, chunks: 3, embedding: { installed: false } });
      expect(s.disk!.index).toBeGreaterThan(0);
      expect(s.disk!.total).toBeGreaterThanOrEqual(s.disk!.index + s.disk!.originals);
      // The stored copies as the index counts them are the files in blobs/, each content once, by the
      // blocks each takes (as du counts them), with the folders they sit in.
      const blobs = join(engine.dataDir, 'blobs');
      const copies = readdirSync(blobs, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
      const inBlobs = copies.reduce((n, e) => n + statSync(join(e.parentPath, e.name)).size, 0);
      expect(inBlobs).toBe('# A\n\nalpha\n'.length + '# B\n\nbeta, longer\n'.length);
      const folders = [blobs, ...new Set(copies.map((e) => e.parentPath))];
      expect(s.disk!.originals).toBe(copies.length * 4096 + folders.reduce((n, f) => n + statSync(f).blocks * 512, 0));
    } finally {
      engine.close();
    }
  });

  it('pulls the embedding model with progress at least every 500 ms, then embeds everything in the background: search turns hybrid without a restart', async () => {
    if (!corpora) return;
    const dir = await tempDir();
    await writeTree(dir, { 'a.md': '# Gardening\n\nTomatoes need sun and water.\n' });
    process.env.KB_HF_ENDPOINT = slowHub!.url;
    const engine = await engineIn(undefined, { embedding: { model: 'bge-small-en-v1.5' } });
    const { call, events } = served(engine);
    try {
      await engine.ingest([dir]);
      expect((await engine.search({ query: 'tomatoes' })).vector?.status).toBe('unavailable');
      const pull = call('models.pull', { name: 'bge-small-en-v1.5' });
      const r = await pull.result;
      expect(r.model).toMatchObject({ id: 'bge-small-en-v1.5', installed: true });
      const at = pull.progress.map((p) => p.at);
      expect(at.length).toBeGreaterThan(3);
      for (let i = 1; i < at.length; i++) expect(at[i]! - at[i - 1]!).toBeLessThan(500);
      const last = pull.progress.at(-1)!.data as { done_bytes: number; total_bytes: number | null };
      expect(last.done_bytes).toBe(last.total_bytes);
      for (let i = 0; i < 100 && !events.some((e) => e.event === 'background' && (e.data as { phase: string }).phase === 'done'); i++)
        await new Promise((res) => setTimeout(res, 100));
      expect(events.filter((e) => e.event === 'background').map((e) => (e.data as { task: string; phase: string }).phase)).toContain(
        'done',
      );
      expect((await engine.search({ query: 'tomatoes' })).vector?.status).toBe('ok');
      expect((await call('models.list', {}).result).models.find((m) => m.id === 'bge-small-en-v1.5')?.installed).toBe(true);
      await call('models.remove', { name: 'bge-small-en-v1.5' }).result;
      expect((await call('models.list', {}).result).models.find((m) => m.id === 'bge-small-en-v1.5')?.installed).toBe(false);
    } finally {
      delete process.env.KB_HF_ENDPOINT;
      engine.close();
    }
  }, 60_000);

  it('cancels a pull within a second and installs nothing', async () => {
    if (!corpora) return;
    process.env.KB_HF_ENDPOINT = slowHub!.url;
    const engine = await engineIn();
    const { call } = served(engine);
    try {
      const pull = call('models.pull', { name: 'whisper-tiny.en' });
      while (pull.progress.length < 2) await new Promise((r) => setTimeout(r, 50));
      const t0 = performance.now();
      pull.cancel();
      await expect(pull.result).rejects.toBeTruthy();
      expect(performance.now() - t0).toBeLessThan(1000);
      const speech = (await call('models.list', {}).result).speech_models.find((m) => m.id === 'whisper-tiny.en');
      expect(speech?.installed).toBe(false);
      expect(existsSync(join(engine.dataDir, 'models', 'whisper', 'whisper-tiny.en.bin'))).toBe(false);
      await expect(call('models.pull', { name: '../etc' }).result).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    } finally {
      delete process.env.KB_HF_ENDPOINT;
      engine.close();
    }
  }, 30_000);

  it('imports a model from a path on the serving machine, with the error of a wrong one', async () => {
    if (!corpora) return;
    const engine = await engineIn();
    const { call } = served(engine);
    try {
      await expect(call('models.import', { path: join(modelDir, 'nope') }).result).rejects.toMatchObject({ code: 'NOT_FOUND' });
      const r = await call('models.import', { path: modelDir, as: 'bge-small-en-v1.5' }).result;
      expect(r.model).toMatchObject({ id: 'bge-small-en-v1.5', installed: true });
    } finally {
      engine.close();
    }
  });
});

describe('paths typed into the app', () => {
  it('takes ~ as the home folder and refuses a relative path', async () => {
    const { typedPath } = await import('../src/worker/user-path.js');
    const { homedir } = await import('node:os');
    expect(typedPath('~/notes')).toBe(join(homedir(), 'notes'));
    expect(typedPath(' /srv/docs/ ')).toBe('/srv/docs/');
    expect(() => typedPath('docs')).toThrow(/full path/);
  });
});

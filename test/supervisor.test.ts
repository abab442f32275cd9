// Supervision of the worker process, as Electron's main and the web host use it: calls routed to
// their answers, a crash failing what was in flight with a clear error, restart with backoff.
// The "process" is a real engine served in-process over a message channel that can be made to die.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ClientMessage } from '../src/shared/api.js';
import { Supervisor, type WorkerHandle } from '../src/shared/supervisor.js';
import { RpcCalls } from '../src/shared/rpc-client.js';
import { serveEngine } from '../src/worker/loop.js';
import { openEngine } from '../src/worker/index.js';
import { tempDir, writeTree } from './helpers.js';

/** A worker whose engine is real; `crash()` makes it exit like a dead process, answering nothing more. */
async function fakeProcess(dataDir: string): Promise<{ handle: WorkerHandle; crash: () => void }> {
  const engine = await openEngine({ dataDir });
  let toParent: (m: unknown) => void = () => undefined;
  let toWorker: (m: unknown) => void = () => undefined;
  let onExit: (code: number | null) => void = () => undefined;
  let dead = false;
  serveEngine(engine, { send: (m) => !dead && setImmediate(() => toParent(m)), onMessage: (h) => (toWorker = h) }, 'test');
  const handle: WorkerHandle = {
    send: (m: ClientMessage) => !dead && setImmediate(() => toWorker(m)),
    onMessage: (h) => {
      toParent = h;
      setImmediate(() => h({ type: 'event', event: 'ready', data: { data_dir: dataDir } }));
    },
    onExit: (h) => (onExit = h),
    kill: () => undefined,
  };
  return {
    handle,
    crash: () => {
      dead = true;
      engine.close();
      onExit(139);
    },
  };
}

describe('worker supervision', () => {
  it("hands every caller a call's error in one shape: an Error named KbError with its code", async () => {
    const calls = new RpcCalls();
    const { id, result } = calls.open();
    calls.receive({ type: 'response', id, error: { code: 'NOT_FOUND', message: 'no document with id x' } });
    await expect(result).rejects.toMatchObject({ name: 'KbError', code: 'NOT_FOUND', message: 'no document with id x' });
    await expect(result).rejects.toBeInstanceOf(Error);
    // The supervisor's own (shared/errors.ts KbError) has the same shape.
    const sup = new Supervisor(() => ({
      send: () => undefined,
      onMessage: () => undefined,
      onExit: () => undefined,
      kill: () => undefined,
    }));
    await expect(sup.request('status', {}).result).rejects.toMatchObject({ name: 'KbError', code: 'INTERNAL' });
  });

  it('passes on only the events shared/events.ts names, each in its shape', async () => {
    const got: unknown[] = [];
    let toParent: (m: unknown) => void = () => undefined;
    const handle: WorkerHandle = {
      send: () => undefined,
      onMessage: (h) => {
        toParent = h;
        setImmediate(() => h({ type: 'event', event: 'ready', data: { data_dir: '/d' } }));
      },
      onExit: () => undefined,
      kill: () => undefined,
    };
    const sup = new Supervisor(() => handle, { onEvent: (...e) => got.push(e) });
    await sup.start();
    toParent({ type: 'event', event: 'bogus', data: {} });
    toParent({ type: 'event', event: 'background', data: { task: 'nope', phase: 'running', done: 1, total: 2 } });
    toParent({ type: 'event', event: 'background', data: { task: 'ocr', phase: 'running', done: 1, total: 2 } });
    expect(got).toEqual([
      ['ready', { data_dir: '/d' }],
      ['background', { task: 'ocr', phase: 'running', done: 1, total: 2 }],
    ]);
  });

  it('fails in-flight calls when the worker dies, says it is restarting, and comes back', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'a.md': '# A\n\nalpha words here\n' });
    const events: unknown[] = [];
    // Resolves when the supervisor has said `engine: <state>` n times in all.
    const waiters: (() => void)[] = [];
    const said = (state: string, n: number): Promise<void> =>
      new Promise((resolve) => {
        const check = (): void => {
          if (events.filter((e) => (e as { data: { state?: string } }).data.state === state).length >= n) resolve();
          else waiters.push(check);
        };
        check();
      });
    const procs: Awaited<ReturnType<typeof fakeProcess>>[] = [];
    const sup = new Supervisor(
      () => {
        const p = procsNext.shift()!;
        procs.push(p);
        return p.handle;
      },
      {
        onEvent: (event, data) => {
          events.push({ event, data });
          for (const w of waiters.splice(0)) w();
        },
        backoff: { first: 10, max: 40 },
      },
    );
    const procsNext = [await fakeProcess(join(dir, 'data')), await fakeProcess(join(dir, 'data')), await fakeProcess(join(dir, 'data'))];
    await sup.start();
    expect((await sup.request('ingest', { paths: [join(dir, 'a.md')] }).result).added).toBe(1);

    const inFlight = sup.request('search', { query: 'alpha' });
    procs[0]!.crash();
    await expect(inFlight.result).rejects.toMatchObject({ code: 'INTERNAL', message: expect.stringMatching(/restarting/) });
    await expect(sup.request('status', {}).result).rejects.toThrow(/restarting/);
    await said('ready', 1);
    expect(events).toContainEqual({ event: 'engine', data: { state: 'restarting', in_ms: 10, exit_code: 139 } });
    expect(events).toContainEqual({ event: 'engine', data: { state: 'ready' } });
    expect((await sup.request('search', { query: 'alpha' }).result).results).toHaveLength(1);

    // Dying again soon after a start waits longer.
    procs[1]!.crash();
    await said('ready', 2);
    expect(events.filter((e) => (e as { data: { state: string } }).data.state === 'restarting')).toEqual([
      { event: 'engine', data: { state: 'restarting', in_ms: 10, exit_code: 139 } },
      { event: 'engine', data: { state: 'restarting', in_ms: 20, exit_code: 139 } },
    ]);
    expect((await sup.request('status', {}).result).ready).toBe(true);
    sup.stop();
  });

  it('holds calls made while the worker starts and sends them once it is ready (a window may ask before the engine is open)', async () => {
    const sent: unknown[] = [];
    let toHost: (m: unknown) => void = () => undefined;
    const sup = new Supervisor(() => ({
      send: (m) => {
        sent.push(m);
        if (m.type === 'request') setImmediate(() => toHost({ type: 'response', id: m.id, result: { ok: m.method } }));
      },
      onMessage: (h) => (toHost = h),
      onExit: () => undefined,
      kill: () => undefined,
    }));
    const started = sup.start();
    const early = sup.request('status', {});
    const cancelled = sup.request('ingest', { paths: ['/x'] });
    sup.cancel(cancelled.id);
    expect(sent).toEqual([]); // nothing reaches a worker that cannot listen yet
    toHost({ type: 'event', event: 'ready', data: { data_dir: '/d' } });
    await started;
    await expect(early.result).resolves.toEqual({ ok: 'status' });
    expect(sent).toEqual([
      { type: 'request', id: early.id, method: 'status', params: {} },
      { type: 'request', id: cancelled.id, method: 'ingest', params: { paths: ['/x'] } },
      { type: 'cancel', id: cancelled.id },
    ]);
    sup.stop();
  });

  it('rejects a start when the worker cannot open the engine, with its error', async () => {
    const sup = new Supervisor(() => ({
      send: () => undefined,
      onMessage: (h) =>
        setImmediate(() => h({ type: 'event', event: 'failed', data: { code: 'DATA_DIR', message: 'cannot create the data dir /nope' } })),
      onExit: () => undefined,
      kill: () => undefined,
    }));
    await expect(sup.start()).rejects.toMatchObject({ code: 'DATA_DIR', message: expect.stringMatching(/nope/) });
    sup.stop();
  });

  it('validates every request against the contract before the engine sees it', async () => {
    const dir = await tempDir();
    const p = await fakeProcess(join(dir, 'data'));
    const sup = new Supervisor(() => p.handle);
    await sup.start();
    await expect(sup.request('search', { query: 'x', top: -1 }).result).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(sup.request('remove', {} as never).result).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/target/),
    });
    sup.stop();
  });
});

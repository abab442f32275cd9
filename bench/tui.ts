// kb tui's two figures on the 100k-chunk bench index (hybrid: the test model embeds every query):
// keystroke → the frame holding that query's hits, in-process, through Ink's real renderer (throttled
// as kb tui runs it) into a stand-in terminal; and `kb tui` started in tmux until its first frame is
// on screen.
import { execFileSync, spawnSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import { openEngine } from '../src/worker/index.js';
import { trainModel } from './corpus.js';
import { withVectors } from './hybrid.js';
import { corpusIndex } from './latency.js';
import { corporaDir, percentile, repoRoot, type BenchResult } from './util.js';

/** A terminal for Ink that keeps nothing: 100 × 30, raw mode, keys written in. */
class Screen extends EventEmitter {
  columns = 100;
  rows = 30;
  isTTY = true;
  write = (): boolean => true;
}
class Keys extends EventEmitter {
  isTTY = true;
  private data: string | null = null;
  type(s: string): void {
    this.data = s;
    this.emit('readable');
    this.emit('data', s);
  }
  read = (): string | null => {
    const d = this.data;
    this.data = null;
    return d;
  };
  setEncoding(): void {}
  setRawMode(): void {}
  resume(): void {}
  pause(): void {}
  ref(): void {}
  unref(): void {}
}

/** A typist at 120 words a minute: a key every 100 ms (or once the last key's hits are drawn). */
const KEY_EVERY_MS = 100;

async function keystrokes(dataDir: string, words: string[]): Promise<number[]> {
  // kb tui's bundle runs React's production build (scripts/build.mjs defines NODE_ENV); so must this.
  // React reads it once, when loaded: the benchmarks after this one get the environment back.
  const env = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  const [{ render }, { createElement }, { TuiApp, MAX_FPS }] = await Promise.all([
    import('ink'),
    import('react'),
    import('../src/cli/tui/App.js'),
  ]);
  if (env === undefined) delete process.env.NODE_ENV;
  else process.env.NODE_ENV = env;
  const engine = await openEngine({ dataDir });
  await engine.syncVectors();
  await engine.backgroundWork();
  // Each key waits for the first frame Ink draws once its query's hits are in: drawn during their
  // commit (Ink's leading frame, before onShown runs) or by the throttle's trailing frame after it.
  let want: { query: string; resolved: number; committed: boolean; drawn: (at: number) => void } | null = null;
  let lastFrame = 0;
  const keys = new Keys();
  const app = render(
    createElement(TuiApp, {
      search: async (p) => {
        const r = await engine.search(p);
        if (want?.query === p.query) want.resolved = performance.now();
        return r;
      },
      get: (t) => engine.get(t, 20_000),
      run: async () => undefined,
      copy: () => undefined,
      editor: null,
      onShown: (q) => {
        if (want?.query !== q) return;
        if (lastFrame >= want.resolved) want.drawn(lastFrame);
        else want.committed = true;
      },
    }),
    {
      stdout: new Screen() as unknown as NodeJS.WriteStream,
      stdin: keys as unknown as NodeJS.ReadStream,
      exitOnCtrlC: false,
      patchConsole: false,
      maxFps: MAX_FPS,
      onRender: () => {
        lastFrame = performance.now();
        if (want?.committed) want.drawn(lastFrame);
      },
    },
  );
  const times: number[] = [];
  const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
  try {
    for (let q = 0; q < 24; q++) {
      keys.type('\x15'); // Ctrl-U: a new query
      await pause(KEY_EVERY_MS);
      const text = `${words[(q * 37) % words.length]} ${words[(q * 91 + 7) % words.length]}`;
      let typed = '';
      for (const ch of text) {
        typed += ch;
        const query = typed.trim();
        const t0 = performance.now();
        if (!query || ch === ' ') {
          keys.type(ch);
          await pause(KEY_EVERY_MS);
          continue;
        }
        const drawn = new Promise<number>((r) => (want = { query, resolved: Infinity, committed: false, drawn: r }));
        keys.type(ch);
        times.push((await drawn) - t0);
        want = null;
        if (q < 2) times.pop(); // the first queries load the model and warm the caches
        await pause(KEY_EVERY_MS - (performance.now() - t0));
      }
    }
  } finally {
    app.unmount();
    engine.close();
  }
  return times.sort((a, b) => a - b);
}

/** `kb tui` in tmux: from starting the process to the first frame on screen, 5 times. */
function startups(dataDir: string): number[] | null {
  if (spawnSync('tmux', ['-V']).status !== 0) return null;
  const out: number[] = [];
  for (let i = 0; i < 6; i++) {
    const session = `kbbench${process.pid}${i}`;
    const t0 = performance.now();
    execFileSync('tmux', [
      'new-session',
      '-d',
      '-s',
      session,
      '-x',
      '100',
      '-y',
      '30',
      'env',
      `KB_DATA_DIR=${dataDir}`,
      'NO_COLOR=1',
      process.execPath,
      join(repoRoot, 'bin/kb.js'),
      'tui',
    ]);
    for (;;) {
      const screen = execFileSync('tmux', ['capture-pane', '-t', session, '-p'], { encoding: 'utf8' });
      if (/type to search/.test(screen)) break;
      if (performance.now() - t0 > 20_000) throw new Error(`kb tui drew nothing in 20 s:\n${screen}`);
    }
    if (i > 0) out.push(performance.now() - t0); // the first run fills the OS's file cache
    spawnSync('tmux', ['kill-session', '-t', session]);
  }
  return out.sort((a, b) => a - b);
}

export async function benchTui(): Promise<BenchResult> {
  const model = trainModel(join(corporaDir(), 'ir', 'cranfield'));
  const { dataDir, chunks } = await corpusIndex(model);
  await withVectors(dataDir);
  const times = await keystrokes(
    dataDir,
    model.vocabulary.filter((w) => w.length >= 5),
  );
  const start = startups(dataDir);
  const ms = (n: number): string => `${n.toFixed(0)} ms`;
  return {
    name: 'tui',
    lines: [
      `${chunks} chunks, hybrid (test model); keystroke → the frame with that query's hits (Ink, production React; a key every ${KEY_EVERY_MS} ms, ${times.length} keystrokes): p50 ${ms(percentile(times, 50))}, p95 ${ms(percentile(times, 95))}, max ${ms(times.at(-1)!)}`,
      start
        ? `kb tui started in tmux → first frame (${start.length} runs): p50 ${ms(percentile(start, 50))}, max ${ms(start.at(-1)!)}`
        : 'kb tui start: not measured (no tmux here)',
    ],
    checks: [
      { what: 'keystroke to hits drawn, p95', value: percentile(times, 95), target: 50, better: 'lower', unit: ' ms' },
      ...(start
        ? [{ what: 'kb tui start to first frame, p50', value: percentile(start, 50), target: 500, better: 'lower' as const, unit: ' ms' }]
        : []),
    ],
  };
}

// `kb tui [QUERY]`: the terminal UI (Ink) over the engine in this process, as the other commands use
// it. It needs a terminal; piped, it says so and points at kb search.
import { spawn, spawnSync } from 'node:child_process';
import type { GlobalOptions } from '../context.js';
import { EXIT, line, reportError } from '../output.js';

export async function tuiCommand(words: string[], g: GlobalOptions): Promise<number> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    line('kb tui needs a terminal (stdin and stdout are not one here); kb search QUERY prints hits instead.');
    return EXIT.usage;
  }
  const { KB_VERSION, localClient, openEngine, resolveSettings } = await import('../../worker/index.js');
  let settings;
  try {
    settings = await resolveSettings(g.dataDir, { lenient: false });
  } catch (e) {
    return reportError(e, false);
  }
  for (const p of settings.problems) process.stderr.write(`kb: warning: ${p}\n`);
  // The first frame does not wait for the index: the engine opens while Ink draws, and the first
  // search waits for it.
  const opening = openEngine({
    dataDir: settings.dataDir,
    config: settings.config,
    fromEnv: settings.fromEnv,
    configProblems: settings.problems,
  });
  opening.catch(() => undefined);
  // kb tui asks what the app asks, through the same contract (in-process: no worker, no copying).
  const client = opening.then((engine) => localClient(engine, KB_VERSION));
  client.catch(() => undefined);
  try {
    const [{ render }, { tuiElement, MAX_FPS }, { editorFromEnv }, { osc52 }, { filtersOf }] = await Promise.all([
      import('ink'),
      import('../tui/App.js'),
      import('../tui/editor.js'),
      import('../tui/osc52.js'),
      import('../tui/filters.js'),
    ]);
    const app = render(
      tuiElement({
        search: async (p) => (await client).search(p),
        get: async (target) => (await client).get({ target, max_chars: 20_000 }),
        filters: async () => filtersOf(await (await client).facets({})),
        indexEmpty: async () => (await (await client).facets({})).types.length === 0,
        ask: async (question, { onProgress, signal }) => (await client).ask({ question }, { signal, onProgress }),
        run: async (launch, { wait }) => {
          if (wait) {
            const r = spawnSync(launch.command, launch.args, { stdio: 'inherit' });
            if (r.error) throw r.error;
            return;
          }
          // The system opener returns at once; its app outlives kb tui.
          await new Promise<void>((resolve, reject) => {
            const child = spawn(launch.command, launch.args, { stdio: 'ignore', detached: true });
            child.once('error', reject);
            child.once('spawn', () => {
              child.unref();
              resolve();
            });
          });
        },
        copy: (text) => process.stdout.write(osc52(text)),
        editor: editorFromEnv(process.env, settings.config.ui.editor_command),
        initialQuery: words.join(' '),
      }),
      // Interactive whatever CI says (stdin and stdout are a terminal: checked above); on the
      // alternate screen, so quitting gives the terminal back as it was.
      { exitOnCtrlC: false, maxFps: MAX_FPS, interactive: true, alternateScreen: true },
    );
    await app.waitUntilExit();
    await opening; // a failure to open is the command's error, said after the terminal is back
    return EXIT.ok;
  } catch (e) {
    return reportError(e, false);
  } finally {
    (await opening.catch(() => null))?.close();
  }
}

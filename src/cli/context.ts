// What every command needs: global flags, the resolved settings and an open engine, closed afterwards.
import { type Engine, KB_VERSION, type LocalClient, localClient, openEngine, resolveSettings } from '../worker/index.js';
import { EXIT, reportError } from './output.js';
import { KbError } from '../shared/errors.js';

export interface GlobalOptions {
  dataDir?: string;
  /** A postgresql:// URL: the index a team shares, instead of the data dir's own. */
  store?: string;
  /** A team's kb server (kb serve) to use instead of this machine's index, and the person's token there. */
  server?: string;
  token?: string;
  json?: boolean;
}

/**
 * Opens the engine for one command. `lenientConfig`: a config that cannot be used is reported by the
 * command (kb doctor) instead of stopping it; the defaults stand in.
 */
export async function withEngine(
  g: GlobalOptions,
  fn: (engine: Engine) => Promise<number | void>,
  opts: { lenientConfig?: boolean } = {},
): Promise<number> {
  let engine: Engine | undefined;
  try {
    if (g.server)
      throw new KbError(
        'INVALID_ARGUMENT',
        `this command works on the index itself, on the machine that holds it: run it there, or without --server (${g.server})`,
      );
    const settings = await resolveSettings(g.dataDir, { lenient: opts.lenientConfig === true });
    // Misspelt settings are ignored, never silently: doctor lists them as a failed check.
    if (!opts.lenientConfig) for (const p of settings.problems) process.stderr.write(`kb: warning: ${p}\n`);
    engine = await openEngine({
      dataDir: settings.dataDir,
      config: g.store ? { ...settings.config, store: { ...settings.config.store, url: g.store } } : settings.config,
      fromEnv: settings.fromEnv,
      configProblems: settings.problems,
    });
    return (await fn(engine)) ?? EXIT.ok;
  } catch (e) {
    return reportError(e, g.json === true);
  } finally {
    engine?.close();
  }
}

/**
 * Runs one command as a client of the contract: the very calls, and checks, the app makes of its
 * worker, answered in this process (localClient). Work a call left running (a model's follow-on
 * transcription, the vector index's upkeep) is finished before the engine closes. Only a command
 * that hosts the engine for as long as it runs (kb watch) holds it through withEngine.
 */
export async function withClient(
  g: GlobalOptions,
  fn: (kb: LocalClient) => Promise<number | void>,
  opts: { lenientConfig?: boolean } = {},
): Promise<number> {
  if (g.server) {
    // A team's server: the same calls, answered there, for this person (remote-client.ts).
    const { connectServer } = await import('../worker/index.js');
    let kb: Awaited<ReturnType<typeof connectServer>> | undefined;
    try {
      kb = await connectServer(g.server, g.token);
      return (await fn(kb)) ?? EXIT.ok;
    } catch (e) {
      return reportError(e, g.json === true);
    } finally {
      kb?.close();
    }
  }
  return withEngine(
    g,
    async (engine) => {
      const kb = localClient(engine, KB_VERSION);
      try {
        return await fn(kb);
      } finally {
        await kb.settled();
      }
    },
    opts,
  );
}

export function splitList(v: string | undefined): string[] {
  return (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

// What every command needs: global flags, the resolved settings and an open engine, closed afterwards.
import { type Engine, openEngine, resolveSettings } from '../worker/index.js';
import { EXIT, reportError } from './output.js';

export interface GlobalOptions {
  dataDir?: string;
  json?: boolean;
}

export async function withEngine(g: GlobalOptions, fn: (engine: Engine) => Promise<number | void>): Promise<number> {
  let engine: Engine | undefined;
  try {
    const settings = await resolveSettings(g.dataDir);
    engine = await openEngine({ dataDir: settings.dataDir, config: settings.config });
    return (await fn(engine)) ?? EXIT.ok;
  } catch (e) {
    return reportError(e, g.json === true);
  } finally {
    engine?.close();
  }
}

export function splitList(v: string | undefined): string[] {
  return (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

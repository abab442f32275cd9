import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openLog, resolveSettings, SERVE_APP_NAME, shownUrl } from '../../worker/index.js';
import type { GlobalOptions } from '../context.js';
import { EXIT, dim, line, printJson, reportError } from '../output.js';
import { KbError } from '../../shared/errors.js';
import { PUBLIC_URL } from '../../shared/config.js';
import { serveTokenFile } from '../serve/token.js';

/** The built web UI beside the CLI bundle (dist/renderer), if this copy has one. */
function rendererDir(): string | null {
  const dir = fileURLToPath(new URL('./renderer/', import.meta.url));
  return existsSync(`${dir}/index.html`) ? dir : null;
}

export interface ServeFlags {
  port?: number;
  host?: string;
  publicUrl?: string;
  insecure?: boolean;
}

export async function serveCommand(flags: ServeFlags, g: GlobalOptions): Promise<number> {
  // Its engine's PostgreSQL connections say they are a kb serve's: kb doctor warns when one connects as
  // the owner of kb's tables (store/postgres/server-role.ts).
  process.env.PGAPPNAME = SERVE_APP_NAME;
  try {
    const port = flags.port ?? 0;
    const settings = await resolveSettings(g.dataDir);
    const { startHost } = await import('../serve/host.js'); // ws and the bridge load only for serve
    const log = openLog(settings.dataDir, 'serve', settings.config.log.level);
    const publicUrl = flags.publicUrl ?? settings.config.serve.public_url;
    if (publicUrl && !PUBLIC_URL.test(publicUrl))
      throw new KbError('INVALID_ARGUMENT', `--public-url ${publicUrl}: an origin is needed, https://host[:port], with no path`);
    const host = await startHost({
      port,
      ...(flags.host ? { host: flags.host } : {}),
      publicUrl,
      trustedProxies: settings.config.serve.trusted_proxies,
      uploadQuotaMb: settings.config.serve.upload_quota,
      searchProcesses: settings.config.serve.search_processes,
      insecure: flags.insecure === true,
      dataDir: settings.dataDir,
      rendererDir: rendererDir(),
      log,
      ...(g.store ? { store: g.store } : {}),
    });
    log.info({ port: host.port, dataDir: settings.dataDir }, 'serving');
    // Listening for Ctrl-C before saying where it serves: whoever reads the URL may stop it at once.
    const stopped = new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    const tokenFile = serveTokenFile(settings.dataDir);
    if (g.json) printJson({ schema_version: 1, url: host.url, port: host.port, data_dir: settings.dataDir, token_file: tokenFile });
    else {
      // The link with its token only to a person's terminal: a service's stdout is a journal, which keeps it.
      const person = process.stdout.isTTY === true;
      line(person ? `${host.url}?token=${host.token}` : host.url);
      const store = g.store ?? settings.config.store.url;
      const what = store ? `the PostgreSQL index at ${shownUrl(store)}` : settings.dataDir;
      const where = flags.host && flags.host !== '127.0.0.1' ? `on ${flags.host}` : 'on 127.0.0.1 only';
      const who = store ? ' (yours, as admin: a team signs in with kb users add … tokens)' : '';
      const how = person ? 'the link carries its access token' : `sign in with the access token in ${tokenFile} (readable by you only)`;
      line(dim(`kb serves ${what} ${where}; ${how}${who}. Ctrl-C stops it.`));
    }
    await stopped;
    await host.close();
    log.info({}, 'stopped');
    await log.close();
    return EXIT.ok;
  } catch (e) {
    return reportError(e, g.json === true);
  }
}

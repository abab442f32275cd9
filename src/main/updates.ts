// The installed app's updates (electron-updater, fed by the release workflow's GitHub releases or a
// generic server: packaging/config.ts): looked for at most once a day, unless ui.updates is off;
// downloaded in the background; installed only when the person says restart, and never while one of
// their ingests runs — the question waits for it to finish. Electron's side (the updater, the dialog,
// where the last check is kept) is passed in, so this runs in tests under Node.
import type { Method } from '../shared/api.js';
import type { BackgroundEvent } from '../shared/events.js';
import type { Supervisor } from '../shared/supervisor.js';

/** The part of electron-updater's AppUpdater this uses. */
export interface Updater {
  autoDownload: boolean;
  autoInstallOnAppQuit: boolean;
  checkForUpdates(): Promise<unknown>;
  on(event: 'update-available' | 'update-downloaded', listener: (info: { version: string }) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  quitAndInstall(): void;
}

export interface UpdateHost {
  /** ui.updates, read when a check is due. */
  enabled(): Promise<boolean>;
  /** When updates were last looked for (ms since the epoch), kept between runs; null: never. */
  lastChecked(): number | null;
  /** null: look again at the next start (an update the person put off). */
  checked(at: number | null): void;
  /** Whether an ingest the person started is running. */
  busy(): boolean;
  /** "kb X is ready: restart now?" — their answer. */
  ask(version: string): Promise<'restart' | 'later'>;
  /** What is happening, for the log. */
  tell(message: string): void;
  now(): number;
}

export const CHECK_EVERY_MS = 24 * 60 * 60 * 1000;
/** How often a downloaded update looks again whether the ingest it waits for has finished. */
export const BUSY_RETRY_MS = 30_000;

export type CheckOutcome = 'off' | 'not due' | 'checked' | 'failed';

export class AppUpdates {
  /** The downloaded version waiting for an answer (asked once per download). */
  private waiting: string | null = null;

  constructor(
    private readonly updater: Updater,
    private readonly host: UpdateHost,
    private readonly retryMs = BUSY_RETRY_MS,
  ) {
    updater.autoDownload = true;
    // Installing is the person's choice, made when asked: never on a quit they meant as a quit.
    updater.autoInstallOnAppQuit = false;
    updater.on('update-available', (info) => host.tell(`kb ${info.version} is available: downloading it in the background`));
    updater.on('update-downloaded', (info) => void this.offer(info.version));
    updater.on('error', (e) => host.tell(`looking for updates failed: ${e.message}`));
  }

  /** Looks for a new version if a day has passed since the last look and updates are on. */
  async check(): Promise<CheckOutcome> {
    if (!(await this.host.enabled())) return 'off';
    const last = this.host.lastChecked();
    const now = this.host.now();
    if (last !== null && now - last < CHECK_EVERY_MS) return 'not due';
    this.host.checked(now);
    try {
      await this.updater.checkForUpdates();
      return 'checked';
    } catch (e) {
      this.host.tell(`looking for updates failed: ${(e as Error).message}`);
      return 'failed';
    }
  }

  /** A downloaded update: asked about once no ingest runs, and installed only on "restart". */
  private async offer(version: string): Promise<void> {
    if (this.waiting === version) return;
    this.waiting = version;
    await this.idle();
    const answer = await this.host.ask(version);
    if (answer !== 'restart') {
      // Downloaded already: the next start's look finds it at once and asks again.
      this.host.checked(null);
      this.host.tell(`kb ${version} waits: it is offered again at the next start`);
      return;
    }
    // An ingest started while the question was open finishes first.
    await this.idle();
    this.updater.quitAndInstall();
  }

  private async idle(): Promise<void> {
    while (this.host.busy()) await new Promise((r) => setTimeout(r, this.retryMs));
  }
}

/** Requests whose work a restart would cut short: while one runs, no update is installed. */
export const LONG_WORK: ReadonlySet<Method> = new Set<Method>([
  'ingest',
  'reindex',
  'collections.add',
  'models.pull',
  'models.use',
  'store.migrate',
  'doctor.fix',
  'gc',
]);

type Relay = Pick<Supervisor, 'request' | 'cancel'>;

/** The windows' way to the worker, counting the long work in flight through it. */
export function countingLongWork(supervisor: Relay): { relay: Relay; busy: () => boolean } {
  let running = 0;
  const relay: Relay = {
    request: (method, params, onProgress, caller) => {
      const call = supervisor.request(method, params, onProgress, caller);
      if (LONG_WORK.has(method)) {
        running++;
        void call.result.catch(() => undefined).finally(() => running--);
      }
      return call;
    },
    cancel: (id) => supervisor.cancel(id),
  };
  return { relay, busy: () => running > 0 };
}

/**
 * The work the worker does by itself — embedding every chunk for a new model, transcribing, OCR of
 * waiting scans, an index upgrade — running as its `background` events tell: no update is installed
 * under it either.
 */
export function backgroundWork(): { note: (e: BackgroundEvent) => void; busy: () => boolean; restarted: () => void } {
  const running = new Set<BackgroundEvent['task']>();
  return {
    note: (e) => void (e.phase === 'running' ? running.add(e.task) : running.delete(e.task)),
    busy: () => running.size > 0,
    // A worker that died ended its work with it; the new one says again what it takes up.
    restarted: () => running.clear(),
  };
}

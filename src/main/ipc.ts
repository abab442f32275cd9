// IPC between the app's windows and the engine. Every message from a renderer is checked before it goes
// anywhere: it must come from the main frame of one of the app's own windows showing the app's own
// page, and it must match the contract (a bridge session validates shape, method and params). Answers,
// progress and broadcast events go back on one channel.
import type { ServerMessage } from '../shared/api.js';
import { openBridgeSession, type BridgeSession } from '../shared/bridge.js';
import { CHANNELS } from '../shared/channels.js';
import type { EventArgs } from '../shared/events.js';
import type { Supervisor } from '../shared/supervisor.js';

/** The part of Electron's WebContents this uses. */
export interface UiContents {
  readonly id: number;
  send(channel: string, message: ServerMessage): void;
  isDestroyed(): boolean;
  once(event: 'destroyed', listener: () => void): unknown;
}

/** Where an IPC message came from: the sending WebContents and the frame inside it. */
export interface IpcOrigin {
  sender: UiContents;
  /** The sending frame's URL, or null when the frame is gone. */
  frameUrl: string | null;
  /** Whether the sending frame is the top frame of its window (not an iframe). */
  isMainFrame: boolean;
}

/**
 * Whether `frameUrl` is the app's own page: same scheme, host and path as `appUrl` (the hash and
 * query, which choose a view such as #ask, may differ).
 */
export function isAppPage(frameUrl: string | null, appUrl: string): boolean {
  if (!frameUrl) return false;
  try {
    const a = new URL(frameUrl);
    const b = new URL(appUrl);
    return a.protocol === b.protocol && a.host === b.host && a.pathname === b.pathname;
  } catch {
    return false;
  }
}

export class IpcRouter {
  private readonly sessions = new Map<number, { contents: UiContents; session: BridgeSession }>();
  private readonly windows = new Set<number>();
  /** Messages dropped because they came from somewhere other than an app window (for logs and tests). */
  rejected = 0;

  constructor(
    private readonly supervisor: Pick<Supervisor, 'request' | 'cancel'>,
    private readonly appUrl: string,
  ) {}

  /** Only WebContents registered here (the app's windows) may call the engine. */
  allow(contents: UiContents): void {
    this.windows.add(contents.id);
    contents.once('destroyed', () => {
      this.windows.delete(contents.id);
      this.sessions.get(contents.id)?.session.close();
      this.sessions.delete(contents.id);
    });
  }

  /**
   * The one sender check, for every channel: the main frame of one of the app's own windows, showing
   * the app's own page. Anything else is counted and dropped, with no answer.
   */
  fromApp(origin: IpcOrigin): boolean {
    if (this.windows.has(origin.sender.id) && origin.isMainFrame && isAppPage(origin.frameUrl, this.appUrl)) return true;
    this.rejected++;
    return false;
  }

  receive(origin: IpcOrigin, raw: unknown): void {
    const { sender } = origin;
    if (!this.fromApp(origin)) return; // not ours: no answer, so a foreign page learns nothing
    let entry = this.sessions.get(sender.id);
    if (!entry) {
      const session = openBridgeSession(this.supervisor, (m) => {
        if (!sender.isDestroyed()) sender.send(CHANNELS.message, m);
      });
      entry = { contents: sender, session };
      this.sessions.set(sender.id, entry);
    }
    entry.session.receive(raw);
  }

  /** An event for every app window (engine restarting, ready, …). */
  broadcast(...[event, data]: EventArgs): void {
    for (const { contents } of this.sessions.values())
      if (!contents.isDestroyed()) contents.send(CHANNELS.message, { type: 'event', event, data });
  }
}

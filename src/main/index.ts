// Electron's main process: windows, tray, menu and the worker. It holds no engine and loads no native
// module (lint-enforced): every call from a window is checked (ipc.ts) and relayed to the worker, a
// supervised utilityProcess (worker-process.ts). Logic lives in the small modules beside this one,
// which tests run under Node; this file only wires them to Electron's API.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  app,
  BrowserWindow,
  dialog,
  globalShortcut,
  ipcMain,
  Menu,
  nativeImage,
  protocol,
  screen,
  session,
  shell,
  Tray,
  utilityProcess,
} from 'electron';
import { AppMessageSchema } from '../shared/api.js';
import { CHANNELS } from '../shared/channels.js';
import { type EventData, type EventName, eventMessage } from '../shared/events.js';
import { Supervisor } from '../shared/supervisor.js';
import { DOC_SCHEME, docProtocolHandler } from './doc-protocol.js';
import { type IpcOrigin, IpcRouter, isAppPage } from './ipc.js';
import { installKbCommand, kbCommandFor, adminScript } from './kb-command.js';
import { pathsFromArgv } from './launch-args.js';
import { appInvoke } from './app-invoke.js';
import { ASK_SHORTCUT, appMenuTemplate } from './menu.js';
import { WEB_PREFERENCES, denyPermissions, harden } from './security.js';
import { AppUpdates, backgroundWork, countingLongWork } from './updates.js';
import { utilityWorker } from './worker-process.js';
import { openMainLog } from './log.js';
import trayIcon from '../../resources/tray.png?asset';

const here = dirname(fileURLToPath(import.meta.url));
const RENDERER = join(here, '../renderer/index.html');
const APP_URL = pathToFileURL(RENDERER).href;
const PRELOAD = join(here, '../preload/index.cjs');
const WORKER = join(here, 'worker.js');
const dataDir = process.env.KB_DATA_DIR ?? null;

// kb-doc: must be registered before the app is ready: standard (so kb-doc://doc/<id> has a host),
// secure, fetchable and streamable (audio seeks with Range requests).
protocol.registerSchemesAsPrivileged([
  { scheme: DOC_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, stream: true, corsEnabled: true } },
]);

// One kb per user: a second launch hands its files to the first (second-instance) and leaves.
if (!app.requestSingleInstanceLock()) app.exit(0);

let main: BrowserWindow | null = null;
let panel: BrowserWindow | null = null;
let tray: Tray | null = null;
const pendingPaths: string[] = [];
/** Set once the main window's UI listens for app events; paths that arrive before wait in pendingPaths. */
let uiReady = false;

const log = openMainLog(app.getPath('logs'));
log.info({ version: app.getVersion(), electron: process.versions.electron }, 'app started');
/** The data dir the worker opened (its `ready` event says), for Settings' "Show in folder". */
let servedDataDir: string | null = null;
/** The worker's own long work (embedding, OCR…), which an update waits for too (updates.ts). */
const background = backgroundWork();
const supervisor = new Supervisor(() => utilityWorker((m, a, o) => utilityProcess.fork(m, a, o), WORKER, dataDir), {
  onEvent: (...e) => {
    const [event, data] = e;
    if (event === 'engine') log[data.state === 'ready' ? 'info' : 'warn']({ event, ...data }, 'worker');
    if (event === 'failed') log.warn({ event, ...data }, 'worker');
    if (event === 'background') background.note(data);
    if (event === 'ready') {
      background.restarted();
      log.info({ ...data }, 'worker ready');
      servedDataDir = data.data_dir;
    }
    // Checked against its schema by the supervisor (shared/events.ts).
    router.broadcast(...e);
  },
});
// The windows reach the worker through a relay that counts long work (an ingest): no update is
// installed under it (updates.ts).
const work = countingLongWork(supervisor);
const router = new IpcRouter(work.relay, APP_URL);

function secureWindow(win: BrowserWindow): BrowserWindow {
  harden(
    win.webContents,
    (url) => isAppPage(url, APP_URL),
    (url) => void shell.openExternal(url),
  );
  router.allow(win.webContents);
  return win;
}

function createMain(): BrowserWindow {
  const win = secureWindow(
    new BrowserWindow({
      width: 1200,
      height: 800,
      minWidth: 640,
      minHeight: 420,
      title: 'kb',
      show: false,
      webPreferences: { ...WEB_PREFERENCES, preload: PRELOAD },
    }),
  );
  win.once('ready-to-show', () => win.show());
  win.on('closed', () => {
    main = null;
    uiReady = false;
  });
  void win.loadURL(APP_URL);
  return win;
}

/** The ask panel: small, frameless, always on top, shown under the tray icon; hidden when it loses focus. */
function createPanel(): BrowserWindow {
  const win = secureWindow(
    new BrowserWindow({
      width: 460,
      height: 560,
      frame: false,
      resizable: false,
      alwaysOnTop: true,
      skipTaskbar: true,
      show: false,
      webPreferences: { ...WEB_PREFERENCES, preload: PRELOAD },
    }),
  );
  win.on('blur', () => win.hide());
  win.on('closed', () => (panel = null));
  void win.loadURL(`${APP_URL}#ask`);
  return win;
}

function toggleAsk(): void {
  panel ??= createPanel();
  if (panel.isVisible()) return panel.hide();
  const at = tray?.getBounds() ?? screen.getCursorScreenPoint();
  const area = screen.getDisplayNearestPoint({ x: at.x, y: at.y }).workArea;
  const [w] = panel.getSize();
  panel.setPosition(Math.round(Math.min(Math.max(at.x - (w ?? 460) / 2, area.x), area.x + area.width - (w ?? 460))), area.y + 4);
  panel.show();
  panel.focus();
}

function showMain(): BrowserWindow {
  main ??= createMain();
  if (main.isMinimized()) main.restore();
  main.show();
  main.focus();
  return main;
}

/** An event from main itself to one window (shared/events.ts). */
function tellWindow<E extends EventName>(win: BrowserWindow, event: E, data: EventData<E>): void {
  win.webContents.send(CHANNELS.message, eventMessage(event, data));
}

/** Files to index from outside the window (menu, open-file, a second launch): the main window runs the ingest and shows its progress. */
function ingestPaths(paths: string[]): void {
  if (!paths.length) return;
  const win = showMain();
  if (!uiReady) {
    pendingPaths.push(...paths);
    return;
  }
  tellWindow(win, 'app:ingest', { paths });
}

async function pick(kind: 'openFile' | 'openDirectory'): Promise<void> {
  const r = await dialog.showOpenDialog({ properties: [kind, 'multiSelections'] });
  if (!r.canceled) ingestPaths(r.filePaths);
}

app.on('open-file', (e, path) => {
  e.preventDefault();
  if (app.isReady()) ingestPaths([path]);
  else pendingPaths.push(path);
});
app.on('second-instance', (_e, argv, cwd) => {
  const paths = pathsFromArgv(argv, cwd, existsSync);
  if (paths.length) ingestPaths(paths);
  else showMain();
});
app.on('web-contents-created', (_e, contents) => {
  // Covers any WebContents, including ones not made above: nothing navigates or opens windows.
  harden(
    contents,
    (url) => isAppPage(url, APP_URL),
    (url) => void shell.openExternal(url),
  );
});
app.on('window-all-closed', () => {
  // The tray keeps the app (and the ask panel) alive until Quit.
});
app.on('will-quit', () => {
  globalShortcut.unregisterAll();
  supervisor.stop();
});

/** Where an IPC message came from, for the router's one sender check. */
const origin = (e: Electron.IpcMainEvent | Electron.IpcMainInvokeEvent): IpcOrigin => ({
  sender: e.sender,
  frameUrl: e.senderFrame?.url ?? null,
  isMainFrame: e.senderFrame?.parent === null,
});

ipcMain.on(CHANNELS.request, (e, raw: unknown) => router.receive(origin(e), raw));
ipcMain.on(CHANNELS.app, (e, raw: unknown) => {
  if (!router.fromApp(origin(e))) return;
  const parsed = AppMessageSchema.safeParse(raw);
  if (!parsed.success) return;
  const m = parsed.data;
  if (m.action === 'close-panel') panel?.hide();
  if (m.action === 'ui-ready' && e.sender === main?.webContents) {
    uiReady = true;
    ingestPaths(pendingPaths.splice(0));
  }
  if (m.action === 'show-hit') tellWindow(showMain(), 'app:show-hit', m.hit);
});

ipcMain.handle(CHANNELS.appInvoke, async (e, raw: unknown): Promise<unknown> => {
  if (!router.fromApp(origin(e))) throw new Error('not the app page');
  return appInvoke(raw, {
    pick: async (kind) => {
      const r = await dialog.showOpenDialog({ properties: kind === 'folder' ? ['openDirectory'] : ['openFile', 'multiSelections'] });
      return r.canceled ? [] : r.filePaths;
    },
    source: (doc_id) => supervisor.request('source', { doc_id }).result,
    openPath: async (path) => {
      const failed = await shell.openPath(path);
      if (failed) throw new Error(failed);
    },
    reveal: (path) => shell.showItemInFolder(path),
    dataDir: () => servedDataDir,
    openExternal: (uri) => shell.openExternal(uri),
  });
});

await app.whenReady();
denyPermissions(session.defaultSession);
protocol.handle(
  DOC_SCHEME,
  docProtocolHandler(
    (doc_id) => supervisor.request('source', { doc_id }).result,
    (doc_id, at, q) => supervisor.request('document.view', { doc_id, ...(at ? { at } : {}), ...(q ? { q } : {}) }).result,
  ),
);
/** Where the installer could not put `kb` on PATH, the menu offers to (kb-command.ts). */
const kbCommand = app.isPackaged
  ? kbCommandFor({ platform: process.platform, resourcesPath: process.resourcesPath, appImage: process.env.APPIMAGE, home: homedir() })
  : null;

async function installCommand(): Promise<void> {
  if (!kbCommand) return;
  const outcome = await installKbCommand(kbCommand, {
    asAdmin: (command) => new Promise((done, fail) => execFile('osascript', ['-e', adminScript(command)], (e) => (e ? fail(e) : done()))),
    confirmReplace: async (path, what) =>
      (
        await dialog.showMessageBox({
          type: 'warning',
          buttons: ['Replace', 'Cancel'],
          defaultId: 1,
          cancelId: 1,
          message: `${path} is already there`,
          detail: `It is ${what}. Replace it with kb's command?`,
        })
      ).response === 0,
    pathVariable: process.env.PATH ?? '',
  });
  log.info({ event: 'kb-command', installed: outcome.installed }, outcome.message);
  await dialog.showMessageBox({ type: outcome.installed ? 'info' : 'warning', message: outcome.message, detail: outcome.detail });
}

Menu.setApplicationMenu(
  Menu.buildFromTemplate(
    appMenuTemplate(
      {
        addFiles: () => void pick('openFile'),
        addFolder: () => void pick('openDirectory'),
        preferences: () => tellWindow(showMain(), 'app:preferences', {}),
        toggleAsk,
        // kb's own documentation, shipped with it (npm's "kb" package is someone else's): the README,
        // opened in the system's viewer for Markdown; offline like everything else.
        help: () => void shell.openPath(app.isPackaged ? join(process.resourcesPath, 'README.md') : join(app.getAppPath(), 'README.md')),
        ...(kbCommand ? { installCommand: () => void installCommand() } : {}),
      },
      process.platform,
    ),
  ),
);
// tray@2x.png beside it is picked up for high-density displays.
const icon = nativeImage.createFromPath(trayIcon);
icon.setTemplateImage(true); // macOS tints it for a light or dark menu bar
tray = new Tray(icon);
tray.setToolTip('kb — ask your documents');
tray.on('click', toggleAsk);
globalShortcut.register(ASK_SHORTCUT, toggleAsk);

main = createMain();
pendingPaths.push(...pathsFromArgv(process.argv, process.cwd(), existsSync));
supervisor.start().catch((e: Error) => dialog.showErrorBox('kb could not open its index', e.message));
if (app.isPackaged) void startUpdates();

/**
 * Updates of an installed app (updates.ts): a look a minute after start, and again every few hours
 * while it runs — each only if a day has passed since the last, kept in the user data folder.
 */
async function startUpdates(): Promise<void> {
  const { autoUpdater } = await import('electron-updater');
  const stamp = join(app.getPath('userData'), 'update-check.json');
  const updates = new AppUpdates(autoUpdater, {
    enabled: async () => (await supervisor.request('settings.get', {}).result).values['ui.updates'] !== false,
    lastChecked: () => {
      try {
        return (JSON.parse(readFileSync(stamp, 'utf8')) as { at: number | null }).at;
      } catch {
        return null;
      }
    },
    checked: (at) => writeFileSync(stamp, JSON.stringify({ at })),
    busy: () => work.busy() || background.busy(),
    ask: async (version) => {
      const r = await dialog.showMessageBox({
        type: 'info',
        buttons: ['Restart now', 'Later'],
        defaultId: 0,
        cancelId: 1,
        message: `kb ${version} is ready to install`,
        detail: `kb restarts into it; your index, collections and settings stay as they are. Later: it is offered again when kb next starts.`,
      });
      return r.response === 0 ? 'restart' : 'later';
    },
    tell: (message) => log.info({ event: 'update' }, message),
    now: () => Date.now(),
  });
  const look = (): void => void updates.check().catch((e: Error) => log.warn({ event: 'update' }, e.message));
  setTimeout(look, 60_000).unref();
  setInterval(look, 6 * 60 * 60 * 1000).unref();
}

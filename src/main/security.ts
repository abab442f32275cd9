// Window hardening (Electron's security checklist): isolated, sandboxed renderers without Node; no
// navigation away from the app's page, no new windows, no webviews; every permission request denied.
export const WEB_PREFERENCES = {
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  webSecurity: true,
  allowRunningInsecureContent: false,
  experimentalFeatures: false,
  webviewTag: false,
  spellcheck: false,
} as const;

/** The part of Electron's WebContents the hardening uses. */
export interface HardenableContents {
  on(event: 'will-navigate' | 'will-redirect', listener: (e: { preventDefault(): void; url: string }) => void): unknown;
  on(event: 'will-attach-webview', listener: (e: { preventDefault(): void }) => void): unknown;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void;
}

export interface PermissionSession {
  setPermissionRequestHandler(handler: (contents: unknown, permission: string, callback: (granted: boolean) => void) => void): void;
  setPermissionCheckHandler(handler: () => boolean): void;
}

/**
 * Blocks navigation except to the app's own page (`isAppPage`), and all new windows; a link to the
 * web the user clicks goes to `openExternal` (their browser), never into an app window.
 */
export function harden(contents: HardenableContents, isAppPage: (url: string) => boolean, openExternal: (url: string) => void): void {
  const guard = (e: { preventDefault(): void; url: string }): void => {
    if (!isAppPage(e.url)) e.preventDefault();
  };
  contents.on('will-navigate', guard);
  contents.on('will-redirect', guard);
  contents.on('will-attach-webview', (e) => e.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (/^https?:\/\//i.test(url)) openExternal(url);
    return { action: 'deny' };
  });
}

export function denyPermissions(session: PermissionSession): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
}

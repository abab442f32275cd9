// The desktop app's IPC channels between its windows (preload) and main: named once, here.
export const CHANNELS = {
  /** Window → main: RPC requests and cancels (shared/api.ts ClientMessage), relayed to the worker. */
  request: 'kb:request',
  /** Main → window: responses, progress and events (ServerMessage). */
  message: 'kb:message',
  /** Window → main, no answer: the app's own actions (AppMessage). */
  app: 'kb:app',
  /** Window → main, answered: dialogs, opening a document or a link (AppInvoke). */
  appInvoke: 'kb:app-invoke',
} as const;

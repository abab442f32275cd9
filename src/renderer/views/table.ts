// The app's views, in the order of the header's buttons: the one list the address, the header and the
// app's switch read.
export const VIEW_TABLE = [
  { id: 'search', name: 'Search' },
  { id: 'library', name: 'Library' },
  { id: 'folders', name: 'Folders' },
  { id: 'models', name: 'Models' },
  { id: 'settings', name: 'Settings' },
  { id: 'status', name: 'Status' },
] as const;

export type View = (typeof VIEW_TABLE)[number]['id'];
/** Views that set up the server (its models): not shown to a team's reader or editor signed in to it. */
export const ADMIN_VIEWS: ReadonlySet<View> = new Set(['models']);
export const VIEW_IDS: readonly View[] = VIEW_TABLE.map((v) => v.id);

// A path as the person knows it. A file dropped in a browser is kept by kb serve under
// <data dir>/uploads/<content hash>/<its path in the drop> (cli/serve/uploads.ts): the hash folder
// means nothing to anyone, the path in the drop does.
const UPLOAD = /[\\/]uploads[\\/][0-9a-f]{16}[\\/](.+)$/;

export function shownPath(path: string): string {
  const m = UPLOAD.exec(path);
  return m ? `${m[1]} (uploaded)` : path;
}

/** A dropped file's path in the drop (`docs/report.pdf`); null for a file kb reads where it lives. */
export function droppedAs(path: string): string | null {
  return UPLOAD.exec(path)?.[1]?.replace(/\\/g, '/') ?? null;
}

/**
 * The citation a person can use: a file read where it lives is cited by its own URI; a file dropped
 * in a browser, whose place no browser tells, by its path in the drop and the same fragment — never
 * the path of kb's private copy.
 */
export function citationShown(uri: string, path: string): string {
  const dropped = droppedAs(path);
  if (dropped === null) return uri;
  const hash = uri.indexOf('#');
  return dropped.split('/').map(encodeURIComponent).join('/') + (hash < 0 ? '' : uri.slice(hash));
}

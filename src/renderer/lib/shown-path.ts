// A path as the person knows it. A file dropped in a browser is kept by kb serve under
// <data dir>/uploads/<content hash>/<its path in the drop> (cli/serve/uploads.ts): the hash folder
// means nothing to anyone, the path in the drop does.
const UPLOAD = /[\\/]uploads[\\/][0-9a-f]{16}[\\/](.+)$/;

export function shownPath(path: string): string {
  const m = UPLOAD.exec(path);
  return m ? `${m[1]} (uploaded)` : path;
}

// What the user dropped: every file, folders walked, each with its path inside the drop. In the
// desktop app the files' own paths are indexed in place; a browser never reveals paths, so there the
// files are uploaded to kb serve (which keeps them under the data dir) and those copies are indexed.
import type { KbBridge } from '../../shared/api';

export interface Dropped {
  file: File;
  /** Path inside the drop: `notes/setup.md` for a file of a dropped folder `notes`. */
  rel: string;
}

type Entry = FileSystemEntry;

async function walk(entry: Entry, prefix: string, out: Dropped[]): Promise<void> {
  if (entry.isFile) {
    const file = await new Promise<File>((res, rej) => (entry as FileSystemFileEntry).file(res, rej));
    out.push({ file, rel: prefix + entry.name });
  } else if (entry.isDirectory) {
    const reader = (entry as FileSystemDirectoryEntry).createReader();
    // readEntries returns at most ~100 entries a call: read until it returns none.
    for (;;) {
      const batch = await new Promise<Entry[]>((res, rej) => reader.readEntries(res, rej));
      if (!batch.length) break;
      for (const e of batch) await walk(e, `${prefix}${entry.name}/`, out);
    }
  }
}

/** The files of a drop, folders included (must be called during the drop event: entries expire after). */
export function droppedEntries(dt: DataTransfer): Promise<Dropped[]> {
  const entries = [...dt.items].map((i) => i.webkitGetAsEntry()).filter((e): e is Entry => e !== null);
  const files = [...dt.files];
  return (async () => {
    const out: Dropped[] = [];
    if (entries.length) for (const e of entries) await walk(e, '', out);
    else for (const f of files) out.push({ file: f, rel: f.name });
    return out;
  })();
}

/** Top-level dropped files and folders, for the desktop app, which indexes them where they are. */
export function droppedPaths(dt: DataTransfer, kb: KbBridge): string[] {
  if (!kb.app) return [];
  return [...dt.files].map((f) => kb.app!.pathForFile(f)).filter((p) => p !== '');
}

/** The folders among them (desktop app): a dropped folder can be kept in sync. */
export function droppedFolders(dt: DataTransfer, kb: KbBridge): string[] {
  if (!kb.app) return [];
  return [...dt.items].flatMap((item, i) => {
    const file = dt.files[i];
    return item.webkitGetAsEntry()?.isDirectory && file ? [kb.app!.pathForFile(file)].filter((p) => p !== '') : [];
  });
}

export interface UploadProgress {
  done: number;
  total: number;
  name: string;
}

/**
 * Uploads dropped files to kb serve, one at a time, and returns where it keeps them; `names` learns
 * each copy's path in the drop, so what the user sees names their file, not the server's copy.
 */
export async function upload(
  files: Dropped[],
  onProgress: (p: UploadProgress) => void,
  signal: AbortSignal,
  names: Map<string, string>,
  /** The collection on kb serve they go into (a team's editor), or null: kb serve's own uploads. */
  to: string | null = null,
): Promise<string[]> {
  const paths: string[] = [];
  for (const [i, d] of files.entries()) {
    onProgress({ done: i, total: files.length, name: d.rel });
    const into = to === null ? '' : `&collection=${encodeURIComponent(to)}`;
    const r = await fetch(`/upload?name=${encodeURIComponent(d.rel)}${into}`, { method: 'POST', body: d.file, signal });
    const body = (await r.json()) as { path?: string; error?: { message: string } };
    if (!r.ok || !body.path) throw new Error(`${d.rel}: ${body.error?.message ?? `upload failed (HTTP ${r.status})`}`);
    paths.push(body.path);
    names.set(body.path, d.rel);
  }
  onProgress({ done: files.length, total: files.length, name: '' });
  return paths;
}

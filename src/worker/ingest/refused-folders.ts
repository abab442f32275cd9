// Folders no one means to read whole: the kernel's and the devices' (their "files" are live tables,
// endless streams and other processes' state — /proc once gave kb another process's network
// tables), a system's roots (a whole disk of programs), and kb's own data dir (its copies, its
// index). Refused as a folder to add or to ingest; a file inside may still be added on its own.
import { resolve, sep } from 'node:path';

/** Pseudo-filesystems: nothing under them is a document. */
const PSEUDO = ['/proc', '/sys', '/dev', '/run'];
/** Folders that are a system, not anyone's documents: refused themselves, their subfolders allowed. */
const SYSTEM_ROOTS = [
  '/',
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib64',
  '/etc',
  '/var',
  '/boot',
  '/opt',
  '/snap',
  '/System',
  '/Library',
  '/private',
  '/Volumes',
  '/nix',
];
const WINDOWS_SYSTEM = /^[a-z]:\\(windows|program files( \(x86\))?|programdata)?\\?$/i;

const within = (path: string, dir: string): boolean => path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);

/**
 * Why this folder may not be read whole, or null when it may. `dataDir`: kb's own, refused with
 * everything in it (a collection); null where dropped files' copies inside it are ingested (uploads/).
 */
export function refusedFolder(folder: string, dataDir: string | null): string | null {
  const path = resolve(folder);
  const trimmed = path.length > 1 && path.endsWith(sep) ? path.slice(0, -1) : path;
  const pseudo = PSEUDO.find((p) => within(trimmed, p));
  if (pseudo) return `${trimmed} is the system's ${pseudo} (live tables of the kernel and the devices), not documents`;
  if (SYSTEM_ROOTS.includes(trimmed) || WINDOWS_SYSTEM.test(trimmed))
    return `${trimmed} is a system folder: choose the folders that hold your documents (~/notes, ~/Documents)`;
  const data = dataDir === null ? null : resolve(dataDir);
  if (data && within(trimmed, data)) return `${trimmed} is inside kb's own data dir (${data}): its copies and index are not documents`;
  return null;
}

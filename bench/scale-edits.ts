// The edits of `npm run bench -- scale`: about 100,000 passages of the built 1M library changed or
// deleted, as years of use change a library — a twelfth of the text files revised (every paragraph
// of each), two folders of each part deleted. The library's own files are edited in place (the index
// knows them by path) and put back afterwards from a backup; a run cut short puts them back first.
import { cpSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

export interface EditPlan {
  /** Files revised in place. */
  edit: string[];
  /** Folders deleted. */
  remove: string[];
}

const EDIT_EVERY = 12;
const FOLDERS_REMOVED_PER_PART = 2;

/** Which files and folders change: the same on every run. */
export function planEdits(libraryDir: string): EditPlan {
  const edit: string[] = [];
  const remove: string[] = [];
  for (const part of readdirSync(libraryDir).sort()) {
    const folders = readdirSync(join(libraryDir, part)).sort();
    // Folders from the middle of each part: neither the first written nor the last.
    const gone = new Set(folders.slice(10, 10 + FOLDERS_REMOVED_PER_PART));
    for (const f of gone) remove.push(join(libraryDir, part, f));
    let k = 0;
    for (const f of folders) {
      if (gone.has(f)) continue;
      for (const name of readdirSync(join(libraryDir, part, f)).sort()) {
        if (name.endsWith('.pdf')) continue;
        if (k++ % EDIT_EVERY === 0) edit.push(join(libraryDir, part, f, name));
      }
    }
  }
  return { edit, remove };
}

/** Every paragraph revised: each of the file's passages changes, as a rewrite would change it. */
function revised(text: string): string {
  return `${text.replace(/([^\n])\n\n/g, '$1 revised\n\n').trimEnd()} revised\n`;
}

/** Edits the library as planned, keeping what it changes in `backupDir` first. */
export function applyEdits(plan: EditPlan, libraryDir: string, backupDir: string): void {
  for (const file of plan.edit) {
    const saved = join(backupDir, relative(libraryDir, file));
    mkdirSync(dirname(saved), { recursive: true });
    cpSync(file, saved, { preserveTimestamps: true });
  }
  for (const folder of plan.remove) {
    const saved = join(backupDir, relative(libraryDir, folder));
    mkdirSync(dirname(saved), { recursive: true });
    cpSync(folder, saved, { recursive: true, preserveTimestamps: true });
  }
  writeFileSync(join(backupDir, 'complete'), '');
  for (const file of plan.edit) writeFileSync(file, revised(readFileSync(file, 'utf8')));
  for (const folder of plan.remove) rmSync(folder, { recursive: true });
}

/** Puts back what applyEdits changed (after the measurement, or after a run that was cut short). */
export function restoreEdits(libraryDir: string, backupDir: string): void {
  if (!existsSync(backupDir)) return;
  // A backup cut short was taken before any file changed: nothing to put back.
  if (existsSync(join(backupDir, 'complete'))) {
    for (const e of readdirSync(backupDir, { recursive: true, withFileTypes: true })) {
      if (!e.isFile() || e.name === 'complete') continue;
      const saved = join(e.parentPath, e.name);
      const target = join(libraryDir, relative(backupDir, saved));
      mkdirSync(dirname(target), { recursive: true });
      renameSync(saved, target);
    }
  }
  rmSync(backupDir, { recursive: true });
}

/**
 * A copy of a data dir to edit, leaving the built one as it was: the index copied, the stored
 * originals linked (they never change in place: a new version is a new file).
 */
export function copyDataDir(from: string, to: string): void {
  rmSync(to, { recursive: true, force: true });
  mkdirSync(to, { recursive: true });
  for (const f of ['kb.sqlite', 'kb.sqlite-wal']) if (existsSync(join(from, f))) cpSync(join(from, f), join(to, f));
  const blobs = join(from, 'blobs');
  if (!existsSync(blobs)) return;
  for (const e of readdirSync(blobs, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const target = join(to, 'blobs', relative(blobs, join(e.parentPath, e.name)));
    mkdirSync(dirname(target), { recursive: true });
    linkSync(join(e.parentPath, e.name), target);
  }
}

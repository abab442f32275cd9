// Hits of two files with one name ("note.md" in two folders) read the same: each gets the folders
// that tell it from the others, as editors do for tabs of files with one name.

/** For each path whose file name another path of the list shares: the end of its folder that tells them apart. */
export function folderHints(paths: readonly string[]): Map<string, string> {
  const split = (p: string): string[] => p.split(/[\\/]/).filter(Boolean);
  const byName = new Map<string, string[]>();
  for (const p of new Set(paths)) {
    const name = split(p).at(-1) ?? p;
    byName.set(name, [...(byName.get(name) ?? []), p]);
  }
  const out = new Map<string, string>();
  for (const group of byName.values()) {
    if (group.length < 2) continue;
    const dirs = group.map((p) => split(p).slice(0, -1));
    // The fewest trailing folders that make every one of the group different (all of them at most).
    let n = 1;
    const longest = Math.max(...dirs.map((d) => d.length));
    const tail = (d: string[]): string => d.slice(-n).join('/');
    while (n < longest && new Set(dirs.map(tail)).size < group.length) n++;
    group.forEach((p, i) => {
      const hint = tail(dirs[i]!) || '/';
      // Copies of files dropped in a browser differ only by kb's content folder, which says nothing.
      if (!/(^|\/)[0-9a-f]{16}$/.test(hint)) out.set(p, hint);
    });
  }
  return out;
}

// A file as the ingest panel names it: its base name, and a dropped file by its path in the drop.

export const base = (p: string): string => p.split(/[\\/]/).pop() ?? p;

/** A path as the user knows it: a dropped file's path in the drop, else the path itself. */
export const known = (names: ReadonlyMap<string, string>, p: string): string => names.get(p) ?? p;

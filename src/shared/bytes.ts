// Sizes for people, written one way everywhere (kb models list, kb gc, the app, error messages):
// decimal units, as download sizes and file managers give them. Dividing by 1,048,576 and printing "MB"
// told an outsider a 90.9 MB model was 86.7 MB. Zod-free, so the renderer takes it too.

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'] as const;

/** `n` bytes as "512 B", "23.4 MB", "438 MB", "4.3 GB": one decimal below 100 of a unit, none above. */
export function formatBytes(n: number): string {
  let v = Math.max(0, n);
  let u = 0;
  while (v >= 1000 && u < UNITS.length - 1) {
    v /= 1000;
    u++;
  }
  if (u === 0) return `${Math.round(v)} B`;
  // 999.96 KB rounds to "1000 KB" at one decimal: say 1.0 MB instead.
  if (v >= 999.5 && u < UNITS.length - 1) return `1.0 ${UNITS[u + 1]}`;
  return `${v < 99.95 ? v.toFixed(1) : Math.round(v).toString()} ${UNITS[u]}`;
}

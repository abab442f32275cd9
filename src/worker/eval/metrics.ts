// Standard IR metrics over one ranked list. `gains` maps a relevant item to its graded gain (> 0).

export function dcg(ranked: string[], gains: Map<string, number>, k: number): number {
  let s = 0;
  for (let i = 0; i < Math.min(k, ranked.length); i++) {
    const g = gains.get(ranked[i]!) ?? 0;
    if (g > 0) s += (2 ** g - 1) / Math.log2(i + 2);
  }
  return s;
}

export function ndcg(ranked: string[], gains: Map<string, number>, k: number): number {
  const ideal = [...gains.entries()]
    .filter(([, g]) => g > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([id]) => id);
  const best = dcg(ideal, gains, k);
  return best === 0 ? 0 : dcg(ranked, gains, k) / best;
}

export function recallAt(ranked: string[], relevant: Set<string>, k: number): number {
  if (relevant.size === 0) return 0;
  let n = 0;
  for (const id of ranked.slice(0, k)) if (relevant.has(id)) n++;
  return n / relevant.size;
}

export function precisionAt(ranked: string[], relevant: Set<string>, k: number): number {
  let n = 0;
  for (const id of ranked.slice(0, k)) if (relevant.has(id)) n++;
  return n / k;
}

export function reciprocalRank(ranked: string[], relevant: Set<string>): number {
  const i = ranked.findIndex((id) => relevant.has(id));
  return i < 0 ? 0 : 1 / (i + 1);
}

export function averagePrecision(ranked: string[], relevant: Set<string>): number {
  if (relevant.size === 0) return 0;
  let hits = 0;
  let sum = 0;
  ranked.forEach((id, i) => {
    if (relevant.has(id)) {
      hits++;
      sum += hits / (i + 1);
    }
  });
  return sum / relevant.size;
}

export function mean(xs: number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
}

/**
 * OCR word accuracy: 1 − (word-level edit distance / words expected), case and punctuation ignored.
 * 1 is perfect; extra, missing and wrong words all count against it.
 */
export function wordAccuracy(expected: string, actual: string): number {
  const words = (s: string): string[] =>
    s
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s]+/gu, ' ')
      .split(/\s+/)
      .filter(Boolean);
  const a = words(expected);
  const b = words(actual);
  if (a.length === 0) return b.length === 0 ? 1 : 0;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return Math.max(0, 1 - prev[b.length]! / a.length);
}

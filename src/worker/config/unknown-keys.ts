// Settings the schema does not know: a misspelt key (`serch:`) would otherwise be dropped without a
// word, and the setting the user meant would silently keep its default.
import { distance } from 'fastest-levenshtein';
import type { z } from 'zod';

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  in?: z.ZodType;
}

const defOf = (s: z.ZodType): Def => (s as unknown as { def: Def }).def;

/** The object schema under defaults, optionals and pipes, or null for anything else. */
function shapeOf(schema: z.ZodType): Record<string, z.ZodType> | null {
  let s: z.ZodType | undefined = schema;
  for (let i = 0; s && i < 8; i++) {
    const d = defOf(s);
    if (d.type === 'object') return d.shape ?? null;
    s = d.innerType ?? d.in;
  }
  return null;
}

export interface UnknownKey {
  /** Dotted path, e.g. `search.wieghts`. */
  key: string;
  /** The known key it most resembles, when one is close. */
  suggestion: string | null;
}

export function unknownKeys(schema: z.ZodType, value: unknown, prefix = ''): UnknownKey[] {
  const shape = shapeOf(schema);
  if (!shape || value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  const out: UnknownKey[] = [];
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const key = prefix ? `${prefix}.${k}` : k;
    const sub = shape[k];
    if (sub) {
      out.push(...unknownKeys(sub, v, key));
      continue;
    }
    const best = Object.keys(shape)
      .map((known) => ({ known, d: distance(k.toLowerCase(), known) }))
      .sort((a, b) => a.d - b.d)[0];
    const close = best && best.d <= Math.max(2, Math.floor(best.known.length / 3));
    out.push({ key, suggestion: close ? (prefix ? `${prefix}.${best.known}` : best.known) : null });
  }
  return out;
}

// A search's match (word-source.ts) as PostgreSQL's tsquery of kb's stems, and the words it scores:
// what the PostgreSQL word source sends (pg-word-source.ts).
import { type Match as PgMatch, type MatchWord as PgWord, type Part } from '../store/postgres/tsquery.js';
import { indexForm, WORD_TOKEN } from '../words.js';
import type { Match, MatchWord } from './word-source.js';

/** A typed word as the index holds it; a half-typed one also as its stem begins ("conside" → "consid"). */
function forms(w: MatchWord): PgWord[] {
  const folded = indexForm(w.text);
  if (!w.prefix) return [{ form: folded.stem, prefix: false }];
  return folded.stem === folded.folded
    ? [{ form: folded.folded, prefix: true }]
    : [
        { form: folded.folded, prefix: true },
        { form: folded.stem, prefix: true },
      ];
}

export const phraseOf = (words: string[]): PgWord[] => words.map((w) => ({ form: indexForm(w).stem, prefix: false }));

/** A match as the tsquery text the index answers; null when it holds no word. */
export function pgMatch(m: Match): PgMatch | null {
  if ('raw' in m) return null;
  if ('and' in m || 'or' in m) {
    const parts = ('and' in m ? m.and : m.or).map(pgMatch).filter((p): p is PgMatch => p !== null);
    return parts.length === 0 ? null : 'and' in m ? { every: parts } : { either: parts };
  }
  const parts: Part[] = [];
  for (const w of m.words) {
    const f = forms(w);
    parts.push(f.length === 1 ? f[0]! : { either: f });
  }
  for (const p of m.phrases) parts.push(phraseOf(p));
  if (parts.length === 0) return null;
  return m.join === 'AND' ? { every: parts } : { either: parts };
}

/** Every word a match holds, once, as its scoring needs it. */
export function scoredForms(m: Match, out = new Map<string, PgWord>()): Map<string, PgWord> {
  if ('raw' in m) return out;
  if ('and' in m || 'or' in m) {
    for (const p of 'and' in m ? m.and : m.or) scoredForms(p, out);
    return out;
  }
  for (const w of m.words) {
    const f = forms(w).at(-1)!;
    out.set(`${f.form}${f.prefix ? '*' : ''}`, f);
  }
  for (const p of m.phrases) for (const f of phraseOf(p)) out.set(f.form, f);
  return out;
}

/** A raw expression's words stemmed as the index holds them; its operators left as typed. */
export function rawTsquery(expr: string): string {
  return expr.replace(WORD_TOKEN, (w) => indexForm(w).stem);
}

// What a search asks the PostgreSQL word index, in tsquery's text form: kb's stems quoted as lexemes
// (so no text search configuration rewrites them), a half-typed word as a prefix (:*), a phrase as
// its words one after another (<->), joined by | or &.
export interface MatchWord {
  form: string;
  prefix: boolean;
  /** Only where the word has this weight (A title, B heading or file name, D body). */
  only?: 'A' | 'B' | 'D';
}

/** A word, a phrase (its words in order), or a group. */
export type Part = MatchWord | MatchWord[] | Match;
export type Match = { either: Part[] } | { every: Part[] };

const lexeme = (w: MatchWord): string => {
  const flags = `${w.prefix ? '*' : ''}${w.only ?? ''}`;
  return `'${w.form.replace(/\\/g, '\\\\').replace(/'/g, "''")}'${flags ? `:${flags}` : ''}`;
};

function part(p: Part): string {
  if (Array.isArray(p)) return p.length === 1 ? lexeme(p[0]!) : `(${p.map(lexeme).join(' <-> ')})`;
  if ('form' in p) return lexeme(p);
  return `(${tsquery(p)})`;
}

/** The text form of a match; '' when it holds nothing. */
export function tsquery(m: Match): string {
  const parts = 'either' in m ? m.either : m.every;
  return parts.map(part).join('either' in m ? ' | ' : ' & ');
}

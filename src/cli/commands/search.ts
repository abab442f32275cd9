import { citationLabel } from '../../shared/citation.js';
import { KbError } from '../../shared/errors.js';
import { DOC_TYPES, type DocType, SEARCH_MODES, type SearchMode, type SearchResult } from '../../shared/wire.js';
import { type GlobalOptions, splitList, withEngine } from '../context.js';
import { bold, cyan, dim, displayPath, highlight, line, printJson, yellow } from '../output.js';

export interface SearchFlags {
  mode?: string;
  top?: string;
  tags?: string;
  type?: string;
  path?: string;
  lang?: string;
  threshold?: string;
  fusion?: string;
  explain?: boolean;
  prefix?: boolean;
}

function positiveInt(v: string, flag: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new KbError('INVALID_ARGUMENT', `${flag} must be a positive whole number, not "${v}"`);
  return n;
}

export async function searchCommand(words: string[], flags: SearchFlags, g: GlobalOptions): Promise<number> {
  return withEngine(g, async (engine) => {
    if (flags.mode && !SEARCH_MODES.includes(flags.mode as SearchMode)) {
      throw new KbError('INVALID_ARGUMENT', `--mode must be one of ${SEARCH_MODES.join(', ')}`);
    }
    if (flags.type && !DOC_TYPES.includes(flags.type as DocType)) {
      throw new KbError('INVALID_ARGUMENT', `--type must be one of ${DOC_TYPES.join(', ')}`);
    }
    const threshold = flags.threshold === undefined ? undefined : Number(flags.threshold);
    if (threshold !== undefined && Number.isNaN(threshold)) throw new KbError('INVALID_ARGUMENT', '--threshold must be a number');
    const result = await engine.search({
      query: words.join(' '),
      ...(flags.mode ? { mode: flags.mode as SearchMode } : {}),
      ...(flags.top ? { top: positiveInt(flags.top, '--top') } : {}),
      tags: splitList(flags.tags),
      ...(flags.type ? { type: flags.type as DocType } : {}),
      ...(flags.path ? { path: flags.path } : {}),
      ...(flags.lang ? { lang: flags.lang } : {}),
      ...(threshold !== undefined ? { threshold } : {}),
      ...(flags.fusion === 'convex' ? { fusion: 'convex' as const } : {}),
      explain: flags.explain === true,
      prefix: flags.prefix === true,
    });
    if (g.json) printJson(result);
    else printHuman(result, flags.explain === true);
  });
}

function printHuman(r: SearchResult, explain: boolean): void {
  if (r.vector?.status === 'unavailable' && r.mode !== 'lexical') line(dim(`(${r.vector.reason})`));
  if (r.results.length === 0) {
    line(r.query.trim() ? 'No matches.' : 'Empty query: type some words to search for.');
    return;
  }
  for (const h of r.results) {
    line(`${bold(`${h.rank}.`)} ${bold(h.source.title || displayPath(h.citation.path))} ${dim(`(${h.source.type})`)} ${dim(h.score.toFixed(3))}`);
    line(`   ${cyan(citationLabel(h.citation, displayPath(h.citation.path)))}`);
    line(`   ${highlight(h.snippet, h.snippet_highlights)}`);
    if (explain) {
      const x = h.retrieval;
      const e = x.explain;
      line(
        dim(
          `   lexical #${x.lexical_rank} ${x.lexical_score?.toFixed(4)}` +
            (e?.bm25_raw != null ? `  bm25 ${e.bm25_raw.toFixed(3)}` : '') +
            (e?.coverage != null ? `  coverage ${(e.coverage * 100).toFixed(0)}%` : '') +
            (e?.proximity ? `  proximity ${e.proximity.toFixed(2)}` : '') +
            (e?.feedback ? `  feedback +${e.feedback.toFixed(3)}` : '') +
            `  vector ${x.vector_rank ?? '—'}  matched: ${h.matched_terms.join(', ') || '—'}`,
        ),
      );
    }
    line();
  }
  const more = r.total_matches > r.returned ? ` of ${r.total_matches}` : '';
  line(dim(`${r.returned}${more} ${r.total_matches === 1 ? 'match' : 'matches'} in ${r.took_ms.toFixed(1)} ms`));
  if (explain && r.results[0]?.retrieval.explain?.fts_query) line(yellow(`FTS5: ${r.results[0].retrieval.explain.fts_query}`));
}

import { KbError } from '../../shared/errors.js';
import { citationLabel } from '../../shared/citation.js';
import type { Fusion } from '../../shared/fusions.js';
import type { DocType, SearchMode, SearchResult } from '../../shared/wire.js';
import { markedByMeaning, MEANING_ONLY_NOTE } from '../../shared/by-meaning.js';
import { type GlobalOptions, splitList, withClient } from '../context.js';
import { bold, cyan, dim, displayPath, highlight, line, printJson, yellow } from '../output.js';
import { terminalSafe } from '../terminal-text.js';

export interface SearchFlags {
  mode?: SearchMode;
  top?: number;
  tags?: string;
  type?: DocType;
  path?: string;
  lang?: string;
  threshold?: number;
  fusion?: Fusion;
  explain?: boolean;
  prefix?: boolean;
  /** true with --rerank, false with --no-rerank, absent: the search.rerank setting. */
  rerank?: boolean;
  /** false with --no-correct: words the index does not hold are searched as typed. */
  correct?: boolean;
}

/** Flags are parsed by commander (choices, numbers); the engine checks the whole against SearchParamsSchema. */
export async function searchCommand(words: string[], flags: SearchFlags, g: GlobalOptions): Promise<number> {
  return withClient(g, async (kb) => {
    const { tags, explain, prefix, ...rest } = flags;
    const result = await kb.search({
      ...rest,
      query: words.join(' '),
      tags: splitList(tags),
      explain: explain === true,
      prefix: prefix === true,
    });
    // Asked for meaning alone and there is none to search by: that is not "no matches".
    if (result.mode === 'vector' && result.vector?.status === 'unavailable')
      throw new KbError('MODEL_MISSING', `search by meaning is not available: ${result.vector.reason ?? 'no embedding model'}`);
    if (g.json) printJson(result);
    else printHuman(result, explain === true);
  });
}

function printHuman(r: SearchResult, explain: boolean): void {
  if (r.vector?.status === 'unavailable' && r.mode !== 'lexical') line(dim(`(${r.vector.reason})`));
  if (r.rerank?.status === 'unavailable') line(dim(`(not reranked: ${r.rerank.reason})`));
  if (r.corrected) line(yellow(`Showing results for ${r.corrected.query} · search for the words as typed with --no-correct`));
  if (r.suggested) {
    const words = r.suggested.words.map((w) => w.from);
    const what =
      words.length > 1
        ? `${words.join(', ')} are in no passage: searched by their meaning`
        : `${words[0]!} is in no passage: searched by its meaning`;
    line(yellow(`${what} · did you mean ${r.suggested.query}?`));
  } else if (r.meaning_only) line(dim(MEANING_ONLY_NOTE));
  if (r.results.length === 0) {
    line(r.query.trim() ? 'No matches.' : 'Empty query: type some words to search for.');
    return;
  }
  for (const h of r.results) {
    line(
      `${bold(`${h.rank}.`)} ${bold(terminalSafe(h.source.title || displayPath(h.citation.path)))} ${dim(`(${h.source.type})`)} ${dim(h.score.toFixed(3))}`,
    );
    line(
      `   ${cyan(terminalSafe(citationLabel(h.citation, displayPath(h.citation.path))))}${markedByMeaning(r, h) ? dim('  · by meaning') : ''}`,
    );
    line(`   ${highlight(terminalSafe(h.snippet), h.snippet_highlights)}`);
    if (explain) {
      const x = h.retrieval;
      const e = x.explain;
      line(
        dim(
          (x.lexical_rank !== null ? `   lexical #${x.lexical_rank} ${x.lexical_score?.toFixed(4) ?? ''}` : '   lexical —') +
            (e?.bm25_raw != null ? `  bm25 ${e.bm25_raw.toFixed(3)}` : '') +
            (e?.coverage != null ? `  coverage ${(e.coverage * 100).toFixed(0)}%` : '') +
            (e?.proximity ? `  proximity ${e.proximity.toFixed(2)}` : '') +
            (e?.feedback ? `  feedback +${e.feedback.toFixed(3)}` : '') +
            (x.vector_rank !== null ? `  vector #${x.vector_rank} similarity ${x.vector_score?.toFixed(3) ?? ''}` : '  vector —') +
            // What each half added to the fused score (adaptive fusion weighs the meaning half per query).
            (x.method === 'hybrid' && e ? `  fused ${(e.lexical_share ?? 0).toFixed(4)} + ${(e.vector_share ?? 0).toFixed(4)}` : '') +
            (x.rerank ? `  rerank ${x.rerank.score.toFixed(3)} (logit ${x.rerank.logit.toFixed(2)}, fused #${x.rerank.fused_rank})` : '') +
            `  matched: ${h.matched_terms.join(', ') || '—'}`,
        ),
      );
    }
    line();
  }
  const more = r.total_matches > r.returned ? ` of ${r.total_matches}` : '';
  line(dim(`${r.returned}${more} ${r.total_matches === 1 ? 'match' : 'matches'} in ${r.took_ms.toFixed(1)} ms`));
  if (r.notice) line(yellow(r.notice));
  if (explain && r.results[0]?.retrieval.explain?.fts_query) line(yellow(`word index query: ${r.results[0].retrieval.explain.fts_query}`));
}

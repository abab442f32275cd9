// One hit in the result list: title, type, citation, the snippet with its matched words (or, for a
// document found by name with nothing to search yet, why, and what gets it going), and the ranking
// explained when asked.
import { type ReactNode, useEffect, useRef } from 'react';
import type { SearchHit } from '../shared/wire';
import { Highlighted } from './Highlighted';
import { inApp } from './lib/in-app';
import { waitsForSpeechModel } from './lib/speech';

/** The words' part of a fused score, in percent: the shares are what each list added to it (fusion.ts). */
function wordsPercent(e: SearchHit['retrieval']['explain']): number | null {
  if (!e || e.lexical_share === null) return null;
  const sum = e.lexical_share + (e.vector_share ?? 0);
  return sum > 0 ? Math.round((100 * e.lexical_share) / sum) : null;
}

export function HitRow({
  hit,
  active,
  explain,
  onClick,
  speech,
  folder = null,
  byMeaning = false,
}: {
  hit: SearchHit;
  /** Found by the meaning half alone, in a list where other hits hold the words: said under it. */
  byMeaning?: boolean;
  /** The folders that tell this file from another hit's of the same name, when there is one. */
  folder?: string | null;
  active: boolean;
  explain: boolean;
  onClick: () => void;
  speech: ReactNode;
}) {
  const ref = useRef<HTMLLIElement>(null);
  useEffect(() => {
    if (active) ref.current?.scrollIntoView({ block: 'nearest' });
  }, [active]);
  const r = hit.retrieval;
  const num = (x: number | null | undefined, d = 3): string => (x === null || x === undefined ? '–' : x.toFixed(d));
  return (
    <li ref={ref} className={active ? 'hit active' : 'hit'} onClick={onClick} aria-selected={active}>
      <div className="title">
        {hit.source.title} <span className="type">{hit.source.type}</span>
        {hit.from && (
          <span className="from" title={`from the team server at ${hit.from}`} data-from={hit.from}>
            {new URL(hit.from).host}
          </span>
        )}
      </div>
      <div className="label">
        {hit.citation.label}
        {folder && <span className="folder"> · in {folder}</span>}
      </div>
      {hit.source.total_chunks === 0 ? (
        <div className="snippet waiting-note" data-reason>
          {inApp(hit.source.reason) ?? 'nothing in it to search yet'}
          {waitsForSpeechModel(hit.source.reason) && <div>{speech}</div>}
        </div>
      ) : (
        <div className="snippet">
          <Highlighted text={hit.snippet} ranges={hit.snippet_highlights} />
        </div>
      )}
      {hit.retrieval.by_name && hit.source.total_chunks > 0 && <div className="by-name">found by its name</div>}
      {byMeaning && <div className="by-meaning">found by meaning: none of the words is in it</div>}
      {explain && (
        <dl className="explain" aria-label="Why this hit">
          <dt>words</dt>
          <dd>
            #{r.lexical_rank ?? '–'} · {num(r.lexical_score)}
            {r.explain
              ? ` · bm25 ${num(r.explain.bm25_raw, 2)} · coverage ${num(r.explain.coverage, 2)} · proximity ${num(r.explain.proximity, 2)}${r.explain.feedback ? ` · feedback +${num(r.explain.feedback, 2)}` : ''}`
              : ''}
          </dd>
          <dt>meaning</dt>
          <dd>
            #{r.vector_rank ?? '–'} · {num(r.vector_score)}
          </dd>
          <dt>fused</dt>
          <dd>
            {num(r.fusion_score, 4)}
            {wordsPercent(r.explain) !== null ? ` · ${wordsPercent(r.explain)}% from words` : ''}
          </dd>
          {r.rerank && (
            <>
              <dt>reranked</dt>
              <dd>
                {num(r.rerank.score, 3)} (logit {num(r.rerank.logit, 2)}) · was #{r.rerank.fused_rank}
              </dd>
            </>
          )}
          {r.explain?.fts_query && (
            <>
              <dt>query</dt>
              <dd>
                <code>{r.explain.fts_query}</code>
              </dd>
            </>
          )}
        </dl>
      )}
    </li>
  );
}

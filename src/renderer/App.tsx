import { useCallback, useEffect, useRef, useState } from 'react';
import type { KbBridge } from '../shared/api';
import type { SearchHit, SearchResult } from '../shared/wire';
import { Highlighted } from './Highlighted';
import { PdfView } from './PdfView';

/** Wait this long after a keystroke before searching: fast typists send one query, not five. */
const DEBOUNCE_MS = 30;

export function App({ kb }: { kb: KbBridge }) {
  const [query, setQuery] = useState('');
  const [result, setResult] = useState<SearchResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState(0);
  const [docs, setDocs] = useState<number | null>(null);
  const [engine, setEngine] = useState('connecting…');
  const latest = useRef(0);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    kb.status({}).then(() => setEngine('ready'), (e: Error) => setEngine(e.message));
    kb.list({}).then((l) => setDocs(l.documents.length), () => undefined);
    return kb.on('engine', (d) => setEngine((d as { state: string }).state));
  }, [kb]);

  // Search as you type; a response to an older query never replaces a newer one.
  useEffect(() => {
    const q = query.trim();
    const mine = ++latest.current;
    if (!q) {
      setResult(null);
      return;
    }
    const t = setTimeout(() => {
      kb.search({ query: q, prefix: !query.endsWith(' '), top: 20 }).then(
        (r) => {
          if (mine !== latest.current) return;
          setResult(r);
          setError(null);
          setSelected(0);
        },
        (e: Error) => mine === latest.current && setError(e.message),
      );
    }, DEBOUNCE_MS);
    return () => clearTimeout(t);
  }, [query, kb]);

  const onKey = useCallback(
    (e: KeyboardEvent) => {
      if ((e.metaKey || e.ctrlKey) && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        input.current?.focus();
        input.current?.select();
      } else if (e.key === 'ArrowDown' && result) {
        e.preventDefault();
        setSelected((s) => Math.min(s + 1, result.results.length - 1));
      } else if (e.key === 'ArrowUp' && result) {
        e.preventDefault();
        setSelected((s) => Math.max(s - 1, 0));
      }
    },
    [result],
  );
  useEffect(() => {
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onKey]);

  const hits = result?.results ?? [];
  const hit = hits[selected];
  return (
    <div className="app">
      <header>
        <span className="logo">kb</span>
        <input
          ref={input}
          autoFocus
          type="search"
          placeholder="Search your documents  (Ctrl-K)"
          aria-label="Search"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
      </header>
      <main>
        <section className="results" aria-label="Results" data-query={result?.query ?? ''}>
          {error && <p className="error">{error}</p>}
          {!query && docs === 0 && (
            <div className="empty">
              <h2>Nothing indexed yet</h2>
              <p>
                Add a folder with <code>kb ingest ~/notes</code>, then search here. Every hit cites the exact lines, page or
                region it came from.
              </p>
            </div>
          )}
          {result && hits.length === 0 && <p className="none">No matches for “{result.query}”.</p>}
          <ol>
            {hits.map((h, i) => (
              <HitRow key={h.chunk_id} hit={h} active={i === selected} onClick={() => setSelected(i)} />
            ))}
          </ol>
          {result && (
            <p className="meta">
              {result.returned} of {result.total_matches_estimated ? '~' : ''}
              {result.total_matches} in {result.took_ms} ms
              {result.vector?.status === 'unavailable' ? ' · by words only' : ''}
            </p>
          )}
        </section>
        <section className="viewer" aria-label="Viewer">
          {hit ? <Passage hit={hit} kb={kb} /> : <p className="hint">Type to search; ↑/↓ to move through the hits.</p>}
        </section>
      </main>
      <footer>
        {docs === null ? '' : `${docs} document${docs === 1 ? '' : 's'}`} · engine {engine}
      </footer>
    </div>
  );
}

function HitRow({ hit, active, onClick }: { hit: SearchHit; active: boolean; onClick: () => void }) {
  const ref = useRef<HTMLLIElement>(null);
  useEffect(() => {
    if (active) ref.current?.scrollIntoView({ block: 'nearest' });
  }, [active]);
  return (
    <li ref={ref} className={active ? 'hit active' : 'hit'} onClick={onClick} aria-selected={active}>
      <div className="title">
        {hit.source.title} <span className="type">{hit.source.type}</span>
      </div>
      <div className="label">{hit.citation.label}</div>
      <div className="snippet">
        <Highlighted text={hit.snippet} ranges={hit.snippet_highlights} />
      </div>
    </li>
  );
}

function Passage({ hit, kb }: { hit: SearchHit; kb: KbBridge }) {
  return (
    <article>
      <h2>{hit.source.title}</h2>
      <p className="label">{hit.citation.label}</p>
      {hit.citation.kind === 'lines' ? (
        <LinesView url={kb.docUrl(hit.doc_id)} start={hit.citation.start} end={hit.citation.end} />
      ) : hit.citation.kind === 'page' && hit.source.type === 'pdf' ? (
        <PdfView url={kb.docUrl(hit.doc_id)} page={hit.citation.page} passage={hit.text} />
      ) : (
        <pre className="passage">{hit.text}</pre>
      )}
      <p className="uri">{hit.citation.uri}</p>
    </article>
  );
}

/** A text document with the cited lines highlighted and scrolled into view. */
function LinesView({ url, start, end }: { url: string; start: number; end: number }) {
  const [lines, setLines] = useState<string[] | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const first = useRef<HTMLDivElement>(null);
  useEffect(() => {
    let live = true;
    setLines(null);
    fetch(url).then(
      async (r) => {
        if (!r.ok) throw new Error(r.status === 404 ? 'the document is no longer there' : `HTTP ${r.status}`);
        const text = await r.text();
        if (live) setLines(text.split(/\r?\n/));
      },
      (e: Error) => live && setFailed(e.message),
    ).catch((e: Error) => live && setFailed(e.message));
    return () => {
      live = false;
    };
  }, [url]);
  useEffect(() => {
    first.current?.scrollIntoView({ block: 'center' });
  }, [lines, start]);
  if (failed) return <p className="error">Cannot open it: {failed}</p>;
  if (!lines) return <p className="hint">Opening…</p>;
  return (
    <div className="lines" role="document">
      {lines.map((l, i) => {
        const n = i + 1;
        const hl = n >= start && n <= end;
        return (
          <div key={n} ref={n === start ? first : undefined} className={hl ? 'line hl' : 'line'} data-line={n}>
            <span className="ln">{n}</span>
            <span className="lt">{l || ' '}</span>
          </div>
        );
      })}
    </div>
  );
}

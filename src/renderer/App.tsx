import { useCallback, useDeferredValue, useEffect, useMemo, useRef, useState } from 'react';
import type { KbBridge } from '../shared/api';
import type { DocType, DoctorReport, SearchHit, SearchParams, SearchResult } from '../shared/wire';
import { AskPanel } from './AskPanel';
import { Highlighted } from './Highlighted';
import { DropTarget, IngestPanel, useIngest } from './Ingest';
import { Library } from './Library';
import { latestOnly } from './lib/latest-only';
import { forgetPdfs, preloadPdf } from './PdfView';
import { Viewer } from './Viewer';

const TYPES: DocType[] = ['markdown', 'note', 'code', 'pdf', 'image', 'audio'];

type View = 'search' | 'library' | 'settings';

export function App({ kb }: { kb: KbBridge }) {
  const [query, setQuery] = useState('');
  const [type, setType] = useState<DocType | ''>('');
  const [tags, setTags] = useState('');
  const [explain, setExplain] = useState(false);
  const [result, setResult] = useState<SearchResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState(0);
  const [pinned, setPinned] = useState<SearchHit | null>(null);
  const [docs, setDocs] = useState<number | null>(null);
  const [engine, setEngine] = useState('connecting…');
  const [view, setView] = useState<View>('search');
  const [asking, setAsking] = useState(false);
  const [version, setVersion] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  const viewer = useRef<HTMLElement>(null);
  const list = useRef<HTMLElement>(null);

  const refresh = useCallback(() => {
    forgetPdfs();
    setVersion((v) => v + 1);
  }, []);
  const ingest = useIngest(kb, refresh);

  useEffect(preloadPdf, []);
  useEffect(() => {
    kb.status({}).then(
      () => setEngine('ready'),
      (e: Error) => setEngine(e.message),
    );
    const offs = [
      kb.on('engine', (d) => {
        const { state, reconnected } = d as { state: string; reconnected?: boolean };
        setEngine(state);
        if (reconnected) refresh(); // back: the current search and counts are asked again
      }),
      kb.on('app:show-hit', (hit) => {
        setView('search');
        setPinned(hit as SearchHit);
      }),
      kb.on('app:preferences', () => setView('settings')),
      kb.on('app:ingest', (d) => ingest.addPaths((d as { paths: string[] }).paths)),
      // A watched folder changed: counts, the library and the current results follow.
      kb.on('collections', refresh),
    ];
    return () => offs.forEach((off) => off());
  }, [kb, ingest.addPaths, refresh]);

  useEffect(() => {
    kb.list({}).then((l) => setDocs(l.documents.length), () => undefined);
  }, [kb, version]);

  // Search as you type (see latest-only.ts: no debounce delay, no stale answers).
  const searcher = useMemo(
    () =>
      latestOnly(
        (p: SearchParams) => kb.search(p),
        (r: SearchResult) => {
          setResult(r);
          setError(null);
          setSelected(0);
          setPinned(null);
        },
        (e) => setError(e.message),
      ),
    [kb],
  );
  useEffect(() => {
    const q = query.trim();
    if (!q) {
      searcher.clear();
      setResult(null);
      return;
    }
    const tagList = tags.split(/[,\s]+/).map((t) => t.replace(/^#/, '')).filter(Boolean);
    searcher.submit({ query: q, prefix: !query.endsWith(' '), top: 20, explain, tags: tagList, ...(type ? { type } : {}) });
  }, [query, type, tags, explain, searcher, version]);

  const onKey = useCallback(
    (e: KeyboardEvent) => {
      // ↑/↓ move through the hits only from the search box or the list (or with nothing focused):
      // in the ask box they move the caret, in the viewer they scroll it.
      const at = document.activeElement;
      const onList = !at || at === document.body || at === input.current || Boolean(list.current?.contains(at));
      if ((e.metaKey || e.ctrlKey) && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        setView('search');
        input.current?.focus();
        input.current?.select();
      } else if (e.key === 'ArrowDown' && result && view === 'search' && onList) {
        e.preventDefault();
        setPinned(null);
        setSelected((s) => Math.min(s + 1, result.results.length - 1));
      } else if (e.key === 'ArrowUp' && result && view === 'search' && onList) {
        e.preventDefault();
        setPinned(null);
        setSelected((s) => Math.max(s - 1, 0));
      } else if (e.key === 'Enter' && document.activeElement === input.current && result?.results.length) {
        e.preventDefault();
        viewer.current?.focus(); // open: the viewer takes the keyboard (scrolling), Ctrl-K comes back
      }
    },
    [result, view],
  );
  useEffect(() => {
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onKey]);

  const hits = result?.results ?? [];
  const hit = pinned ?? hits[selected];
  // The list first, the viewer after: opening a document never delays the next keystroke's results.
  const shown = useDeferredValue(hit);
  const empty = docs === 0 && !ingest.state.running;
  return (
    <div className="app">
      <DropTarget onDrop={ingest.addDrop} />
      <header>
        <span className="logo">kb</span>
        <input
          ref={input}
          autoFocus
          type="search"
          placeholder="Search your documents  (Ctrl-K)"
          aria-label="Search"
          value={query}
          onChange={(e) => {
            setQuery(e.target.value);
            setView('search');
          }}
        />
        <nav>
          <button className={view === 'search' ? 'on' : ''} onClick={() => setView('search')}>
            Search
          </button>
          <button className={view === 'library' ? 'on' : ''} onClick={() => setView('library')}>
            Library
          </button>
          <button className={asking ? 'on' : ''} onClick={() => setAsking((a) => !a)} aria-pressed={asking}>
            Ask
          </button>
        </nav>
      </header>
      <div className="filters" role="toolbar" aria-label="Filters">
        <label>
          Type{' '}
          <select aria-label="Type" value={type} onChange={(e) => setType(e.target.value as DocType | '')}>
            <option value="">any</option>
            {TYPES.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </label>
        <label>
          Tags <input aria-label="Tags" placeholder="e.g. work, linux" value={tags} onChange={(e) => setTags(e.target.value)} />
        </label>
        <label>
          <input type="checkbox" checked={explain} onChange={(e) => setExplain(e.target.checked)} /> Explain ranking
        </label>
      </div>
      {(engine === 'disconnected' || engine === 'restarting') && (
        <div className="banner" role="alert">
          {engine === 'disconnected' ? 'Lost the connection to kb. Reconnecting…' : 'kb’s engine stopped and is restarting…'} Searches resume when it is back.
        </div>
      )}
      <IngestPanel state={ingest.state} onCancel={ingest.cancel} onDismiss={ingest.dismiss} />
      <main className={asking ? 'with-ask' : undefined}>
        {view === 'library' ? (
          <Library kb={kb} version={version} onReindex={ingest.addPaths} onChanged={refresh} />
        ) : view === 'settings' ? (
          <Settings kb={kb} />
        ) : (
          <>
            <section className="results" aria-label="Results" data-query={result?.query ?? ''} ref={list}>
              {error && <p className="error">{error}</p>}
              {!query && empty && <EmptyState desktop={Boolean(kb.app)} />}
              {result && hits.length === 0 && <p className="none">No matches for “{result.query}”.</p>}
              <ol>
                {hits.map((h, i) => (
                  <HitRow
                    key={h.chunk_id}
                    hit={h}
                    active={!pinned && i === selected}
                    explain={explain}
                    onClick={() => {
                      setPinned(null);
                      setSelected(i);
                    }}
                  />
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
            <section className="viewer" aria-label="Viewer" ref={viewer} tabIndex={-1}>
              {shown ? <Viewer hit={shown} kb={kb} /> : <p className="hint">Type to search; ↑/↓ to move through the hits, Enter to open one.</p>}
            </section>
          </>
        )}
        {asking && (
          <aside className="ask-drawer">
            <AskPanel
              kb={kb}
              onOpen={(h) => {
                setView('search');
                setPinned(h);
              }}
            />
          </aside>
        )}
      </main>
      <footer>
        {docs === null ? '' : `${docs} document${docs === 1 ? '' : 's'}`} · engine {engine}
      </footer>
    </div>
  );
}

function EmptyState({ desktop }: { desktop: boolean }) {
  return (
    <div className="empty">
      <h2>Nothing indexed yet</h2>
      <ol>
        <li>
          <strong>Drop files or folders anywhere on this window</strong> — Markdown, notes, code, PDFs, scans and images.
          {desktop ? ' Or use File › Add Folder…' : ''}
        </li>
        <li>Type a few words: results appear as you type, each citing its exact lines, page or region.</li>
        <li>Click a hit (or ↑/↓ and Enter) to open the source right there, the passage highlighted.</li>
      </ol>
      <p className="hint">
        From a terminal: <code>kb ingest ~/notes</code>, then <code>kb search "…"</code>.
      </p>
    </div>
  );
}

function HitRow({ hit, active, explain, onClick }: { hit: SearchHit; active: boolean; explain: boolean; onClick: () => void }) {
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
      </div>
      <div className="label">{hit.citation.label}</div>
      <div className="snippet">
        <Highlighted text={hit.snippet} ranges={hit.snippet_highlights} />
      </div>
      {explain && (
        <dl className="explain" aria-label="Why this hit">
          <dt>words</dt>
          <dd>
            #{r.lexical_rank ?? '–'} · {num(r.lexical_score)}
            {r.explain ? ` · bm25 ${num(r.explain.bm25_raw, 2)} · coverage ${num(r.explain.coverage, 2)} · proximity ${num(r.explain.proximity, 2)}${r.explain.feedback ? ` · feedback +${num(r.explain.feedback, 2)}` : ''}` : ''}
          </dd>
          <dt>meaning</dt>
          <dd>
            #{r.vector_rank ?? '–'} · {num(r.vector_score)}
          </dd>
          <dt>fused</dt>
          <dd>
            {num(r.fusion_score, 4)}
            {r.explain?.lexical_share !== null && r.explain?.lexical_share !== undefined ? ` · ${Math.round(100 * r.explain.lexical_share)}% from words` : ''}
          </dd>
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

function Settings({ kb }: { kb: KbBridge }) {
  const [report, setReport] = useState<DoctorReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    kb.doctor({}).then(setReport, (e: Error) => setError(e.message));
  }, [kb]);
  if (error) return <p className="error">{error}</p>;
  if (!report) return <p className="hint">Checking…</p>;
  return (
    <section className="settings" aria-label="Preferences">
      <h2>Preferences</h2>
      <p>
        Data lives in <code>{report.data_dir}</code>. Settings are in its <code>config.yaml</code>.
      </p>
      <ul className="checks">
        {report.checks.map((c) => (
          <li key={c.name} className={c.status}>
            <strong>{c.name}</strong> <span>{c.status}</span> — {c.detail}
          </li>
        ))}
      </ul>
    </section>
  );
}

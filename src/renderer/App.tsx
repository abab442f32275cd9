// The app: the header (search box, views, Ask), the filters, the view shown, the ask drawer and the
// footer. What each part knows lives in a hook of its own (hooks/); this file puts them together.
import { type ReactNode, useCallback, useEffect, useRef, useState } from 'react';
import type { KbBridge } from '../shared/api';
import type { DocumentSummary, SearchHit } from '../shared/wire';
import { AskPanel } from './AskPanel';
import { BackgroundNote } from './BackgroundNote';
import { Filters, type FilterState } from './Filters';
import { DropTarget } from './DropTarget';
import { IngestPanel, useIngest } from './Ingest';
import { useServerLink } from './hooks/useServerLink';
import { SearchPane } from './SearchPane';
import { SpeechModelButton } from './SpeechModelButton';
import { forgetPdfs, preloadPdf } from './PdfView';
import { useAddressState } from './hooks/useAddressState';
import { useEngineEvents } from './hooks/useEngineEvents';
import { useSearch } from './hooks/useSearch';
import { useSearchKeys } from './hooks/useSearchKeys';
import { useSetup } from './hooks/useSetup';
import { useIndexCounts } from './lib/index-counts';
import { useModelPull } from './lib/model-pull';
import { speechModel } from './lib/speech';
import { FirstRun } from './views/FirstRun';
import { Folders } from './views/Folders';
import { Library } from './views/Library';
import { Models } from './views/Models';
import { Settings } from './views/Settings';
import { Status } from './views/Status';
import { ADMIN_VIEWS, type View, VIEW_TABLE } from './views/table';
import { count, num } from './lib/numbers';

export function App({ kb }: { kb: KbBridge }) {
  const { query, setQuery, view, setView } = useAddressState();
  const [filters, setFilters] = useState<FilterState>({ type: '', tags: '', explain: false });
  const [asTyped, setAsTyped] = useState<string | null>(null);
  const [asking, setAsking] = useState(false);
  const [version, setVersion] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  const viewer = useRef<HTMLElement>(null);
  const list = useRef<HTMLElement>(null);

  const refresh = useCallback(() => {
    forgetPdfs();
    setVersion((v) => v + 1);
  }, []);
  useEffect(preloadPdf, []);
  const team = useServerLink(kb);
  // Signed in to kb serve as a team's user: a collection named for a drop is this server's own.
  const ingest = useIngest(kb, refresh, team.me?.user != null);
  const { docs, tagCounts } = useIndexCounts(kb, version, ingest.state.running);
  const pull = useModelPull(kb, refresh);
  const setup = useSetup(kb, version);
  const settings = setup.settings;
  const rerank = { on: settings?.values['search.rerank'] === true, pauseMs: Number(settings?.values['rerank.pause_ms'] ?? 300) };
  const search = useSearch(kb, { query, ...filters, asTyped, version, rerank });
  const { pin, select } = search;

  /** A hit chosen elsewhere (the ask panel, the app's main process) shown in the search view. */
  const show = useCallback(
    (hit: SearchHit) => {
      setView('search');
      pin(hit);
    },
    [setView, pin],
  );
  const openSettings = useCallback(() => setView('settings'), [setView]);
  const { engine, background } = useEngineEvents(kb, { refresh, showHit: show, openSettings, addPaths: ingest.addPaths });

  const hitCount = view === 'search' ? (search.result?.results.length ?? 0) : 0;
  const toSearch = useCallback(() => setView('search'), [setView]);
  const move = useCallback(
    (by: 1 | -1) => {
      pin(null);
      select((s) => Math.min(Math.max(s + by, 0), hitCount - 1));
    },
    [pin, select, hitCount],
  );
  const closeAsk = useCallback(() => setAsking(false), []);
  useSearchKeys({ input, list, viewer, hits: hitCount, asking, toSearch, move, closeAsk });

  /**
   * A Library row opened: the document at its start, alone — the previous query's hits have nothing to
   * do with it. Rejects with why (a failed file with nothing in it), which the row says.
   */
  const openDocument = async (d: DocumentSummary): Promise<void> => {
    const hit = await kb['document.open']({ doc_id: d.doc_id });
    setQuery('');
    show(hit);
  };

  // A team's reader or editor signed in to kb serve: the server's set-up (models, folders) is its admin's.
  const teamUser = team.me?.user != null && team.me.role !== 'admin';
  const speech = teamUser ? null : <SpeechModelButton pull={pull} name={speechModel(settings)} />;
  const firstRun = teamUser ? null : (
    <FirstRun kb={kb} setup={setup} pull={pull} onFiles={ingest.addFiles} onPaths={ingest.addPaths} onChanged={refresh} />
  );
  const views: Record<View, () => ReactNode> = {
    search: () => (
      <SearchPane
        kb={kb}
        search={search}
        explain={filters.explain}
        filtered={Boolean(filters.type || filters.tags.trim())}
        emptyIndex={docs?.count === 0 && !ingest.state.running}
        firstRun={firstRun}
        showFirstRun={!query && !ingest.state.running}
        speech={speech}
        editor={teamUser ? '' : String(settings?.values['ui.editor_uri'] ?? 'vscode://file/{path}:{line}')}
        listRef={list}
        viewerRef={viewer}
        onAsTyped={setAsTyped}
        onSearch={setQuery}
      />
    ),
    library: () => (
      <Library
        kb={kb}
        version={version}
        onReindex={ingest.reindex}
        onChanged={refresh}
        onOpen={openDocument}
        speech={speech}
        server={team.link?.connected ? team.link.url : null}
        onFiles={ingest.addFiles}
        onPaths={ingest.addPaths}
        team={team.me?.user != null ? { into: team.places.flatMap((p) => (p.collection ? [p.collection] : [])) } : null}
      />
    ),
    folders: () => <Folders kb={kb} version={version} onChanged={refresh} />,
    models: () => (
      <Models
        kb={kb}
        version={version}
        pull={pull}
        inUse={{
          embedding: setup.status?.embedding.model ?? '',
          speech: speechModel(settings),
          reranker: rerank.on ? String(settings?.values['rerank.model'] ?? '') : '',
        }}
        ollamaModels={settings?.ollama.models ?? []}
        onChanged={refresh}
      />
    ),
    settings: () => <Settings kb={kb} settings={settings} onChanged={refresh} />,
    status: () => <Status kb={kb} version={version} />,
  };

  return (
    <div className="app">
      <DropTarget onDrop={ingest.addDrop} places={team.places} />
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
          {VIEW_TABLE.filter(({ id }) => !(teamUser && ADMIN_VIEWS.has(id))).map(({ id, name }) => (
            <button
              key={id}
              className={view === id ? 'on' : ''}
              onClick={() => setView(id)}
              aria-current={view === id ? 'page' : undefined}
            >
              {name}
            </button>
          ))}
          <button className={asking ? 'on' : ''} onClick={() => setAsking((a) => !a)} aria-pressed={asking}>
            Ask
          </button>
        </nav>
      </header>
      <Filters value={filters} onChange={setFilters} tagCounts={tagCounts} />
      {(engine === 'disconnected' || engine === 'restarting') && (
        <div className="banner" role="alert">
          {engine === 'disconnected' ? 'Lost the connection to kb. Reconnecting…' : 'kb’s engine stopped and is restarting…'} Searches
          resume when it is back.
        </div>
      )}
      <IngestPanel
        state={ingest.state}
        onCancel={ingest.cancel}
        onDismiss={ingest.dismiss}
        onAgain={ingest.addPaths}
        ocr={background?.task === 'ocr' ? background : null}
        kb={kb}
      />
      <main className={asking ? 'with-ask' : undefined}>
        {views[view]()}
        {/* Closed, the drawer is hidden, not unmounted: the question and its answer are there when it opens again. */}
        <aside className="ask-drawer" hidden={!asking}>
          <AskPanel kb={kb} onOpen={show} open={asking} />
        </aside>
      </main>
      <footer>
        {/* Every document, the failed among them, as the Library lists and Status counts them. */}
        {docs === null ? '' : `${count(docs.count + docs.failed, 'document')}${docs.failed ? ` (${num(docs.failed)} failed)` : ''}`} ·
        engine {engine}
        {setup.status && !setup.status.embedding.installed ? ' · by words only' : ''}
        {team.link?.url && ` · team server ${new URL(team.link.url).host}${team.link.connected ? '' : ' (unreachable)'}`}
        {background && <BackgroundNote e={background} />}
      </footer>
    </div>
  );
}

// `kb tui`: search as you type in the terminal. A query goes to the engine on every keystroke and the
// newest answer wins; the list shows each hit with its citation, the preview the cited span itself;
// Enter opens the source at its span, Ctrl-Y (y in the list) copies the citation. The engine and the
// outside world (running an editor, the clipboard) come in as props, so tests drive it whole.
import { Box, Text, useApp, useInput, usePaste, useStdout, useWindowSize } from 'ink';
import { useCallback, useEffect, useRef, useState } from 'react';
import { type AskProgress, type AskResult, type SearchHit, type SearchParams, type SearchResult, type Span } from '../../shared/wire.js';
import { docType } from '../../shared/doc-types.js';
import { AskPane, type AskState } from './AskPane.js';
import { editorLaunch, type Launch, systemOpener } from './editor.js';
import { EVERY_TYPE, type Filter, filterLabel, filterParams } from './filters.js';
import { Help, HitRow, Nothing, Preview } from './parts.js';
import { type PreviewLine, previewLines, previewTarget } from './preview.js';

export interface TuiProps {
  search: (p: SearchParams) => Promise<SearchResult>;
  get: (target: string) => Promise<Span>;
  /** Runs a program with the terminal handed over to it (the editor), or detached (the opener). */
  run: (launch: Launch, opts: { wait: boolean }) => Promise<void>;
  copy: (text: string) => void;
  editor: string | null;
  platform?: NodeJS.Platform;
  initialQuery?: string;
  /** The query asked as a question (Ctrl-A): sources, then the answer's tokens, as progress. */
  ask?: (question: string, opts: { onProgress: (p: AskProgress) => void; signal: AbortSignal }) => Promise<AskResult>;
  /** What Tab cycles through (filters.ts); without it, every type of document. */
  filters?: () => Promise<Filter[]>;
  /** Whether nothing at all is indexed (asked when a search finds nothing, to say what to do). */
  indexEmpty?: () => Promise<boolean>;
  /** Called once a query's hits are on screen (npm run bench -- tui times keystroke → this). */
  onShown?: (query: string) => void;
}

/**
 * Ink's frame limit, as high as it goes: its throttle puts a frame off by a whole interval after the
 * latest change (not the first), which held a keystroke's hits back by up to 50 ms at 60 fps. What
 * changes fast (an answer's tokens) is gathered here instead (TOKEN_FRAME_MS).
 */
export const MAX_FPS = 1000;
/** An answer streaming in is drawn at most this often. */
const TOKEN_FRAME_MS = 33;

/** How Enter opens a hit: text at its line in the editor, everything else with the system opener. */
export function launchFor(
  hit: SearchHit,
  editor: string | null,
  platform: NodeJS.Platform = process.platform,
): { launch: Launch; wait: boolean } {
  const c = hit.citation;
  if (editor && docType(hit.source.type).kind === 'text')
    return { launch: editorLaunch(editor, c.path, c.kind === 'lines' ? c.start : undefined), wait: true };
  return { launch: systemOpener(c.path, platform), wait: false };
}

export function TuiApp(props: TuiProps) {
  const { exit, suspendTerminal } = useApp();
  const stdout = useStdout().stdout as NodeJS.WriteStream;
  const { search, indexEmpty, get, editor, platform, run, ask } = props;
  const [query, setQuery] = useState(props.initialQuery ?? '');
  const [filters, setFilters] = useState<Filter[]>(EVERY_TYPE);
  const [filterAt, setFilterAt] = useState(0);
  // One state for an answer, and a selection that belongs to the answer it was made in: a search's
  // answer is then a single render (Ink renders each state change outside input on its own).
  const [found, setFound] = useState<{ result: SearchResult | null; error: string | null }>({ result: null, error: null });
  const { result, error } = found;
  // The query cleared: no answer is shown, not even the last one.
  if (!query.trim() && (result || error)) setFound({ result: null, error: null });
  const [pick, setPick] = useState<{ of: SearchResult | null; i: number }>({ of: null, i: 0 });
  const selected = pick.of === result ? pick.i : 0;
  const setSelected = useCallback(
    (to: number | ((s: number) => number)) => {
      setPick((p) => {
        const s = p.of === result ? p.i : 0;
        return { of: result, i: typeof to === 'function' ? to(s) : to };
      });
    },
    [result],
  );
  const [inList, setInList] = useState(false);
  const [help, setHelp] = useState(false);
  const [status, setStatus] = useState<string | null>(null);
  const [preview, setPreview] = useState<{ hit: SearchHit; lines: PreviewLine[] } | null>(null);
  const [asking, setAsking] = useState<AskState | null>(null);
  const askCtl = useRef<AbortController | null>(null);
  const latest = useRef(0);
  useWindowSize(); // drawn again, to the new size, when the terminal is resized
  const rows = stdout.rows || 24;
  const cols = stdout.columns || 80;
  const side = cols >= 100;
  const filter = filters[filterAt] ?? {};

  // Every keystroke searches; an answer to an older query never replaces a newer one.
  useEffect(() => {
    const q = query.trim();
    const n = ++latest.current;
    if (!q) return;
    search({ query: q, prefix: !query.endsWith(' '), top: 12, ...filterParams({ type: filter.type, tag: filter.tag }) }).then(
      (r) => n === latest.current && setFound({ result: r, error: null }),
      (e: Error) => n === latest.current && setFound((f) => ({ ...f, error: e.message })),
    );
  }, [query, filter.type, filter.tag, search]);

  // An empty index says how to fill it, at the start and when a search finds nothing; asked until
  // it says "not empty".
  const [empty, setEmpty] = useState<boolean | null>(null);
  const nothing = result !== null && result.results.length === 0;
  const idle = !query.trim();
  useEffect(() => {
    if (!(nothing || idle) || empty === false || !indexEmpty) return;
    indexEmpty().then(setEmpty, () => undefined);
  }, [nothing, idle, empty, indexEmpty]);

  const onShown = props.onShown;
  useEffect(() => {
    if (result) onShown?.(result.query);
  }, [result, onShown]);

  const hits = result?.results ?? [];
  const hit = hits[Math.min(selected, hits.length - 1)];
  // What the preview shows: the hit chosen in the list, or the source chosen under an answer.
  const focus = asking ? asking.sources[Math.min(selected, asking.sources.length - 1)]?.hit : hit;
  const previewRows = side ? rows - 4 : Math.max(4, Math.floor((rows - 4) / 2));
  // Beside the list (45%) or an answer (55%), less its padding and the ▌ gutter; or the whole row.
  const previewWidth = Math.max(20, (side ? Math.floor(cols * (asking ? 0.45 : 0.55)) : cols) - 3);
  useEffect(() => {
    // With nothing to preview, none is drawn (the preview is drawn only for the hit it is of).
    const shown = focus;
    if (!shown) return;
    let live = true;
    get(previewTarget(shown, previewRows)).then(
      (span) => live && setPreview({ hit: shown, lines: previewLines(shown, span, previewRows, previewWidth) }),
      (e: Error) => live && setPreview({ hit: shown, lines: [{ n: null, text: e.message, marked: false }] }),
    );
    return () => {
      live = false;
    };
  }, [focus, previewRows, previewWidth, get]);

  const open = useCallback(
    (h: SearchHit) => {
      const { launch, wait } = launchFor(h, editor, platform);
      const go = wait ? suspendTerminal(() => run(launch, { wait })) : run(launch, { wait });
      void go.then(
        () => setStatus(`opened ${h.citation.label ?? h.citation.path}`),
        (e: Error) => setStatus(`could not open it: ${e.message}`),
      );
    },
    [editor, platform, run, suspendTerminal],
  );

  const startAsk = useCallback(() => {
    const question = query.trim();
    if (!question || !ask) return;
    askCtl.current?.abort();
    const ctl = new AbortController();
    askCtl.current = ctl;
    setSelected(0);
    setAsking({ question, text: '', sources: [], result: null, error: null });
    const update = (f: (a: AskState) => AskState): void => setAsking((a) => (a && !ctl.signal.aborted ? f(a) : a));
    let tokens = '';
    let flush: NodeJS.Timeout | null = null;
    const drawTokens = (): void => {
      if (flush) clearTimeout(flush);
      flush = null;
      const text = tokens;
      tokens = '';
      if (text) update((a) => ({ ...a, text: a.text + text }));
    };
    ask(question, {
      signal: ctl.signal,
      onProgress: (p) => {
        if (p.kind === 'sources') return update((a) => ({ ...a, sources: p.sources }));
        tokens += p.text;
        flush ??= setTimeout(drawTokens, TOKEN_FRAME_MS);
      },
    }).then(
      (result) => {
        drawTokens();
        update((a) => ({ ...a, result, sources: result.sources }));
      },
      (e: Error) => {
        drawTokens();
        update((a) => ({ ...a, error: e.message }));
      },
    );
  }, [query, ask, setSelected]);

  useInput((input, key) => {
    if (help) return setHelp(false);
    if (key.ctrl && input === 'c') return exit();
    if (asking) {
      // The answer's view: move through its sources, open one, Esc back to the hits.
      const n = asking.sources.length;
      if (key.downArrow || (key.ctrl && input === 'n')) return setSelected((s) => Math.min(n - 1, s + 1));
      if (key.upArrow || (key.ctrl && input === 'p')) return setSelected((s) => Math.max(0, s - 1));
      if (key.return && focus) return open(focus);
      // [n] in the answer: its digit jumps to that source.
      const jump = /^[1-9]$/.test(input) ? asking.sources.findIndex((s) => s.n === Number(input)) : -1;
      if (jump >= 0) return setSelected(jump);
      if (key.escape) {
        askCtl.current?.abort();
        setSelected(0);
        return setAsking(null);
      }
      return;
    }
    if ((key.ctrl && input === 'a') || (inList && input === 'a')) return startAsk();
    const move = (d: number): void => {
      setSelected((s) => Math.max(0, Math.min(hits.length - 1, s + d)));
      setInList(true);
    };
    if (key.downArrow || (key.ctrl && input === 'n')) return move(1);
    if (key.upArrow || (key.ctrl && input === 'p')) return move(-1);
    // After the arrows: some terminals report an arrow's escape sequence with escape set as well.
    if (key.escape) return exit();
    if (key.tab) {
      // Leaving everything, the index is asked what it holds now (its types, its tags).
      const step = (list: Filter[]): void => setFilterAt((t) => (t + (key.shift ? list.length - 1 : 1)) % list.length);
      if (filterAt !== 0 || !props.filters) return step(filters);
      return void props.filters().then(
        (f) => {
          setFilters(f);
          step(f);
        },
        () => step(filters),
      );
    }
    if (key.return) return hit ? open(hit) : undefined;
    const copy = (): void => {
      if (!hit) return;
      props.copy(hit.citation.uri);
      setStatus(`copied ${hit.citation.uri}`);
    };
    if (key.ctrl && input === 'y') return copy();
    if (key.ctrl && input === 'u') return setQuery('');
    if (inList && input === 'y') return copy();
    if (input === '?' && (inList || !query)) return setHelp(true);
    if (key.backspace || key.delete) {
      setInList(false);
      return setQuery((q) => q.slice(0, -1));
    }
    if (input && !key.ctrl && !key.meta) {
      setInList(false);
      setStatus(null);
      setQuery((q) => q + input);
    }
  });

  // A paste (bracketed: the terminal marks it) goes into the query as one line — its newlines would
  // otherwise arrive as Enter and open a hit.
  usePaste((text) => {
    if (help || asking) return;
    const line = text.replace(/[\p{Cc}\s]+/gu, ' ');
    setInList(false);
    setStatus(null);
    setQuery((q) => (q + line).slice(0, 1000));
  });

  // Stacked, the preview takes the lower half; with no hit to preview, the list has it all.
  const listHeight = side || (!asking && hits.length === 0) ? rows - 3 : rows - 4 - previewRows;
  const perHit = 3;
  const visible = Math.max(1, Math.floor(listHeight / perHit));
  const from = Math.max(0, Math.min(selected - Math.floor(visible / 2), hits.length - visible));
  const meta = result
    ? `${result.returned} of ${result.total_matches_estimated ? '~' : ''}${result.total_matches} · ${result.took_ms} ms${result.vector?.status === 'unavailable' ? ' · by words only' : ''}`
    : query.trim()
      ? 'searching…'
      : 'type to search';
  return (
    <Box flexDirection="column" height={rows}>
      <Box>
        <Text bold color="blue">
          kb{' '}
        </Text>
        <Text>
          {query}
          <Text inverse> </Text>
        </Text>
      </Box>
      <Text dimColor wrap="truncate-end">
        {filterLabel(filter) ? `${filterLabel(filter)} · ` : ''}
        {meta}
        {'  ·  ? keys · Esc quits'}
      </Text>
      {help ? (
        <Help />
      ) : asking ? (
        <Box flexDirection={side ? 'row' : 'column'} flexGrow={1}>
          <Box flexDirection="column" width={side ? '55%' : '100%'} height={listHeight}>
            <AskPane ask={asking} selected={selected} rows={listHeight} />
          </Box>
          {preview && focus && preview.hit === focus && (
            <Preview lines={preview.lines} title={focus.citation.label ?? focus.citation.path} cols={cols} />
          )}
        </Box>
      ) : (
        <Box flexDirection={side ? 'row' : 'column'} flexGrow={1}>
          <Box flexDirection="column" width={side ? '45%' : '100%'} height={listHeight}>
            {error && <Text color="red">{error}</Text>}
            {!error && (nothing || (idle && empty)) && (
              <Nothing query={result?.query ?? ''} filter={filterLabel(filter)} empty={empty === true} />
            )}
            {hits.slice(from, from + visible).map((h, i) => (
              <HitRow key={`${h.chunk_id}-${h.rank}`} hit={h} active={from + i === selected} cols={cols} />
            ))}
          </Box>
          {preview && hit && preview.hit === hit && (
            <Preview lines={preview.lines} title={hit.citation.label ?? hit.citation.path} cols={cols} />
          )}
        </Box>
      )}
      {status && (
        <Text dimColor wrap="truncate-end">
          {status}
        </Text>
      )}
    </Box>
  );
}

/** The app as an element, for `render` (kb tui imports React only through this module). */
export function tuiElement(props: TuiProps) {
  return <TuiApp {...props} />;
}

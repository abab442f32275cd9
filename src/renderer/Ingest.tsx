// Adding documents (the drop target over the window is DropTarget.tsx): per-file and overall progress, cancel, and a
// summary whose failures can be opened and read. Drops, the app menu (Add Files…/Add Folder…) and
// files opened with kb all end here.
import { useCallback, useRef, useState } from 'react';
import type { KbBridge } from '../shared/api';
import type { BackgroundEvent } from '../shared/events';
import type { IngestProgress, IngestSummary } from '../shared/wire';
import { type Dropped, droppedEntries, droppedFolders, droppedPaths, upload } from './lib/drop';
import { inApp } from './lib/in-app';
import { Summary } from './IngestSummary';
import { base, known } from './lib/file-names';
import { type Settled, useSettledFiles } from './hooks/useSettledFiles';
import { num } from './lib/numbers';

export interface IngestState {
  running: boolean;
  /** What is happening now: 'upload' (browser drops), then the engine's phases. */
  phase: IngestProgress['phase'] | 'upload' | null;
  done: number;
  total: number;
  current: string | null;
  /** A long PDF being read: its pages read so far. */
  pages: number | null;
  /** Files finished in this run and what became of each, newest last. */
  files: Finished[];
  /** Dropped in a browser: each server copy's path → the file's path in the drop, as the user knows it. */
  names: ReadonlyMap<string, string>;
  summary: IngestSummary | null;
  error: string | null;
  /** Cancelled before the engine had a summary to give (while files were still being sent): said, not as a failure. */
  cancelled: string | null;
  /** Folders dropped on the desktop app, which the summary offers to keep in sync. */
  folders: string[];
  /** What this run was asked to read: "Read them now" asks for it again (what was read is unchanged, and quick). */
  asked: string[];
  /** Files the run's OCR has finished with (it reads them one after another, in order). */
  read: string[];
}

export type Finished = NonNullable<IngestProgress['finished']>;

const IDLE: IngestState = {
  running: false,
  phase: null,
  done: 0,
  total: 0,
  current: null,
  pages: null,
  files: [],
  names: new Map(),
  summary: null,
  error: null,
  cancelled: null,
  folders: [],
  asked: [],
  read: [],
};

/**
 * `onServer`: the page is signed in to kb serve as a team's user, so a drop's collection is this
 * server's (the files are sent into it); otherwise a collection is the connected team server's, and
 * the files go there from this computer's copies.
 */
export function useIngest(kb: KbBridge, onFinished: () => void, onServer = false) {
  const [state, setState] = useState<IngestState>(IDLE);
  const ctl = useRef<AbortController | null>(null);

  const run = useCallback(
    async (getPaths: (signal: AbortSignal) => Promise<string[]>, force = false, collection: string | null = null) => {
      ctl.current?.abort();
      const mine = new AbortController();
      ctl.current = mine;
      setState({ ...IDLE, running: true, phase: 'scan' });
      try {
        const paths = await getPaths(mine.signal);
        if (!paths.length) throw new Error('nothing to add: no files in what was dropped');
        setState((s) => ({ ...s, asked: paths }));
        const summary = await kb.ingest(
          { paths, ...(force ? { force } : {}), ...(collection ? { collection } : {}) },
          {
            signal: mine.signal,
            onProgress: (p) => {
              setState((s) => {
                // Only what the engine says a file became is listed: never a ✓ before it is known.
                if (p.finished)
                  return {
                    ...s,
                    done: p.done,
                    total: p.total,
                    files: [...s.files.slice(-199), p.finished],
                    current: s.current === p.finished.path ? null : s.current,
                  };
                // OCR reads file after file: the one it moves on from (or ends with) is read.
                const left = s.phase === 'ocr' && s.current && s.current !== p.path && !s.read.includes(s.current) ? [s.current] : [];
                return {
                  ...s,
                  phase: p.phase,
                  done: p.done,
                  total: p.total,
                  current: p.path ?? (p.phase === 'ingest' || left.length ? null : s.current),
                  pages: p.pages ?? null,
                  read: left.length ? [...s.read, ...left] : s.read,
                };
              });
            },
          },
        );
        setState((s) => ({ ...s, running: false, summary, current: null }));
      } catch (e) {
        if (mine.signal.aborted)
          setState((s) => ({
            ...s,
            running: false,
            cancelled:
              s.phase === 'upload'
                ? 'Cancelled while the files were being sent: none was added'
                : 'Cancelled: what was already indexed stays indexed',
          }));
        else setState((s) => ({ ...s, running: false, error: (e as Error).message }));
      } finally {
        if (ctl.current === mine) ctl.current = null;
        onFinished();
      }
    },
    [kb, onFinished],
  );

  const addPaths = useCallback((paths: string[], to: string | null = null) => void run(async () => paths, false, to), [run]);
  /** The Library's Re-index: every file read and parsed again, even if unchanged. */
  const reindex = useCallback((paths: string[]) => void run(async () => paths, true), [run]);
  /** Files a browser can only upload (a drop, the file picker): kb serve keeps them, then indexes its copies. */
  const uploadThenIngest = useCallback(
    (files: Promise<Dropped[]>, to: string | null = null) => {
      const names = new Map<string, string>();
      void run(
        async (signal) => {
          const paths = await upload(
            await files,
            (p) => setState((s) => ({ ...s, phase: 'upload', done: p.done, total: p.total, current: p.name || null })),
            signal,
            names,
            onServer ? to : null,
          );
          setState((s) => ({ ...s, names }));
          return paths;
        },
        false,
        to,
      );
    },
    [run, onServer],
  );
  /** A drop; `to` is the team server's collection it was dropped on, or null for this computer. */
  const addDrop = useCallback(
    (dt: DataTransfer, to: string | null = null) => {
      const paths = droppedPaths(dt, kb);
      const folders = droppedFolders(dt, kb); // read now: a drop's items expire when the event ends
      if (paths.length) {
        addPaths(paths, to);
        // A folder dropped on this computer may become a collection; one sent to the server is the server's.
        if (!to) setState((st) => ({ ...st, folders }));
        return;
      }
      uploadThenIngest(droppedEntries(dt), to); // read now: a drop's entries expire when the event ends
    },
    [kb, addPaths, uploadThenIngest],
  );
  /** Files chosen with the file picker in a browser; `to`: the team server's collection they go into. */
  const addFiles = useCallback(
    (files: File[], to: string | null = null) => uploadThenIngest(Promise.resolve(files.map((file) => ({ file, rel: file.name }))), to),
    [uploadThenIngest],
  );
  const cancel = useCallback(() => ctl.current?.abort(), []);
  const dismiss = useCallback(() => setState(IDLE), []);
  return { state, addPaths, addDrop, addFiles, reindex, cancel, dismiss };
}

/** Every kind of file kb reads, in words (the drop target and the first-run step say it). */
export const KINDS =
  'Markdown, notes, code, PDFs, scans and photos, audio and video, Word and OpenDocument, slides, spreadsheets and CSV, web pages, e-books, mail';

const PHASES: Record<NonNullable<IngestState['phase']>, string> = {
  upload: 'Uploading',
  scan: 'Finding files',
  ingest: 'Indexing',
  ocr: 'Reading scans (OCR)',
  transcribe: 'Transcribing audio (seconds)',
  embed: 'Making vectors',
};

export function IngestPanel({
  state,
  onCancel,
  onDismiss,
  onAgain,
  ocr = null,
  kb,
}: {
  state: IngestState;
  onCancel: () => void;
  onDismiss: () => void;
  /** Adds these files again (a cancelled run's files it did not read). */
  onAgain?: (paths: string[]) => void;
  /** The engine's OCR in the background now: what the summary says of pages left to read. */
  ocr?: BackgroundEvent | null;
  kb?: KbBridge;
}) {
  const { running, phase, done, total, current, pages, files, names, summary, error, cancelled } = state;
  const settled = useSettledFiles(kb, files, state.read);
  if (!running && !summary && !error && !cancelled) return null;
  const pct = total > 0 ? Math.round((100 * done) / total) : 0;
  return (
    <section className="ingest" aria-label="Adding documents" data-state={running ? 'running' : error ? 'failed' : 'done'}>
      {running && (
        <>
          <div className="ingest-head">
            <span>
              {phase ? PHASES[phase] : 'Starting'} {total > 0 ? `${num(done)} of ${num(total)}` : ''}
            </span>
            <button onClick={onCancel}>Cancel</button>
          </div>
          <progress max={100} value={pct} aria-label="Overall progress" />
          {current && (
            <div className="ingest-file" title={current}>
              {base(known(names, current))}
              {pages ? ` · ${pages} pages read` : ''}
            </div>
          )}
          {files.length > 0 && (
            <ul className="ingest-files" aria-label="Files so far">
              {files.slice(-5).map((f) => (
                <FileLine key={f.path} f={f} name={base(known(names, f.path))} settled={settled.get(f.path)} />
              ))}
            </ul>
          )}
        </>
      )}
      {!running && summary && (
        <Summary summary={summary} names={names} onDismiss={onDismiss} onAgain={onAgain && (() => onAgain(state.asked))} ocr={ocr} />
      )}
      {!running && summary && kb && state.folders.length > 0 && <KeepInSync kb={kb} folders={state.folders} />}
      {!running && error && (
        <div className="ingest-head">
          <span className="error">{error}</span>
          <button onClick={onDismiss}>Close</button>
        </div>
      )}
      {!running && !error && cancelled && (
        <div className="ingest-head" data-cancelled="yes">
          <span>{cancelled}</span>
          <button onClick={onDismiss}>Close</button>
        </div>
      )}
    </section>
  );
}

const MARKS: Record<Finished['outcome'], [string, string]> = {
  added: ['✓', 'added'],
  updated: ['✓', 'updated'],
  moved: ['✓', 'moved'],
  unchanged: ['✓', 'unchanged'],
  waiting: ['…', 'added; its text is read next'],
  skipped: ['–', 'skipped'],
  failed: ['✗', 'failed'],
};

/** One finished file: what became of it, in a mark and in words (a failure with its reason); a waiting one as it settles. */
function FileLine({ f, name, settled }: { f: Finished; name: string; settled?: Settled | undefined }) {
  const outcome = f.outcome === 'waiting' && settled ? settled.outcome : f.outcome;
  const [mark] = MARKS[outcome];
  const words =
    f.outcome === 'waiting' && settled
      ? inApp(settled.words)
      : (f.outcome === 'failed' || f.outcome === 'waiting') && f.message
        ? inApp(f.message)
        : MARKS[f.outcome][1];
  return (
    <li className={`outcome-${outcome}`} data-outcome={outcome} title={`${name}: ${words}`}>
      <span className="mark" aria-hidden>
        {mark}
      </span>{' '}
      <span className="name">{name}</span> <span className="words">{words}</span>
    </li>
  );
}

/** After a folder dropped on the desktop app: offer to follow it from now on (a collection). */
function KeepInSync({ kb, folders }: { kb: KbBridge; folders: string[] }) {
  const [said, setSaid] = useState<Record<string, string>>({});
  const keep = async (path: string): Promise<void> => {
    try {
      const r = await kb['collections.add']({ path });
      setSaid((s) => ({ ...s, [path]: `kept in sync as ${r.collection.name}` }));
    } catch (e) {
      setSaid((s) => ({ ...s, [path]: (e as Error).message }));
    }
  };
  return (
    <ul className="keep-in-sync">
      {folders.map((f) => (
        <li key={f}>{said[f] ?? <button onClick={() => void keep(f)}>Keep {base(f)} in sync</button>}</li>
      ))}
    </ul>
  );
}

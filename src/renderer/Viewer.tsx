// The viewer pane: a hit's source opened at the cited span — text and code at their lines
// (highlighted, code in colour), a PDF at its page, an image with its region boxed, audio seeked to
// the start of its time range and stopped at its end, and Word, slides, books, tables, web pages and
// mail rendered by the engine with the cited paragraphs, slide, rows or message marked.
import { type ReactNode, useEffect, useMemo, useRef, useState } from 'react';
import { HitActions } from './HitActions';
import { inApp } from './lib/in-app';
import { LONG_LINE, lineShown } from './lib/long-line';
import { citationShown } from './lib/shown-path';
import { waitsForSpeechModel } from './lib/speech';
import type { KbBridge } from '../shared/api';
import type { SearchHit } from '../shared/wire';
import { colourLines, languageFor } from './lib/code-colours';
import { PdfView } from './PdfView';

export function Viewer({
  hit,
  query = '',
  kb,
  editor,
  waiting,
}: {
  hit: SearchHit;
  query?: string;
  kb: KbBridge;
  editor: string;
  waiting: ReactNode;
}) {
  const c = hit.citation;
  const url = kb.docUrl(hit.doc_id);
  return (
    <article>
      <h2>{hit.source.title}</h2>
      <p className="label">{c.label}</p>
      <HitActions hit={hit} kb={kb} editor={editor} />
      {hit.source.total_chunks === 0 && (
        <div className="waiting-note" role="note">
          {inApp(hit.source.reason) ?? 'There is nothing in it to search yet.'}
          {waitsForSpeechModel(hit.source.reason) && <div>{waiting}</div>}
        </div>
      )}
      {STRUCTURED.has(hit.source.type) ? (
        <DocFrame url={url} uri={c.uri} title={hit.source.title} query={query} />
      ) : c.kind === 'lines' ? (
        <LinesView
          url={url}
          start={c.start}
          end={c.end}
          lang={hit.source.type === 'code' ? languageFor(c.path) : null}
          passage={hit.text}
          cols={c.col_start !== undefined && c.col_end !== undefined && c.start === c.end ? [c.col_start, c.col_end] : null}
        />
      ) : c.kind === 'page' && hit.source.type === 'pdf' ? (
        <PdfView url={url} page={c.page} passage={hit.text} box={c.box ?? null} />
      ) : c.kind === 'region' ? (
        <ImageView url={url} box={c} />
      ) : c.kind === 'time' ? (
        <AudioView url={url} start={c.start} end={c.end} text={hit.text} />
      ) : (
        <pre className="passage">{hit.text}</pre>
      )}
      <p className="uri">{citationShown(c.uri, c.path)}</p>
    </article>
  );
}

/** Word, slides, books, tables, web pages and mail: the engine renders them (sanitised) for a frame. */
const STRUCTURED = new Set<SearchHit['source']['type']>(['docx', 'slides', 'sheet', 'html', 'epub', 'mail']);

/**
 * The document rendered at the citation in a sandboxed frame: no script runs in it and nothing loads
 * from the network (the host's CSP says so too). The frame's URL ends in #kb-hit, the cited blocks.
 */
function DocFrame({ url, uri, title, query }: { url: string; uri: string; title: string; query: string }) {
  const fragment = uri.slice(uri.indexOf('#') + 1);
  // The query's words are marked in the rendition, as in the hit's snippet.
  const src = `${url}/view?at=${encodeURIComponent(fragment)}${query.trim() ? `&q=${encodeURIComponent(query.trim().slice(0, 200))}` : ''}#kb-hit`;
  // The engine reads the file again to render it (a big Word file takes a few seconds the first time):
  // until the frame has loaded, say so instead of showing an empty frame.
  const [loaded, setLoaded] = useState<string | null>(null);
  return (
    <div className="docview-holder" data-state={loaded === src ? 'ready' : 'loading'}>
      {loaded !== src && (
        <p className="hint docview-loading" role="status">
          Opening {title} at the cited passage…
        </p>
      )}
      <iframe
        className="docview"
        key={src}
        src={src}
        // Scripts only for view-keys.ts's (the CSP allows it alone); never allow-same-origin.
        sandbox="allow-scripts"
        title={`${title}, at the cited passage`}
        referrerPolicy="no-referrer"
        onLoad={(e) => {
          // A link followed inside the frame (a book's next chapter) loads it again: that page stays.
          if (loaded === src) return;
          setLoaded(src);
          // The browser scrolled to #kb-hit while the rendition was still being laid out (a long
          // table's rows settle late); once it has loaded, the same address scrolls there again — a
          // fragment navigation, nothing fetched.
          const frame = e.currentTarget;
          requestAnimationFrame(() => {
            if (frame.isConnected) frame.src = src;
          });
        }}
      />
    </div>
  );
}

function useText(url: string): { text: string | null; failed: string | null } {
  // What was read, with the address it was read from: another document's text is never shown.
  const [got, setGot] = useState<{ url: string; text: string | null; failed: string | null }>({ url, text: null, failed: null });
  useEffect(() => {
    let live = true;
    fetch(url)
      .then(async (r) => {
        if (!r.ok) throw new Error(r.status === 404 ? 'the document is no longer there' : `HTTP ${r.status}`);
        const t = await r.text();
        if (live) setGot({ url, text: t, failed: null });
      })
      .catch((e: Error) => live && setGot({ url, text: null, failed: e.message }));
    return () => {
      live = false;
    };
  }, [url]);
  return got.url === url ? got : { text: null, failed: null };
}

/** A text document with the cited lines highlighted and scrolled into view; code in colour. */
function LinesView({
  url,
  start,
  end,
  lang,
  passage = null,
  cols = null,
}: {
  url: string;
  start: number;
  end: number;
  lang: string | null;
  /** The hit's text: where in a very long line it is. */
  passage?: string | null;
  /** The cited characters of a one-line span, 1-based and inclusive, where the citation says them. */
  cols?: readonly [number, number] | null;
}) {
  const { text, failed } = useText(url);
  const first = useRef<HTMLDivElement>(null);
  const lines = useMemo(() => (text === null ? null : text.split(/\r?\n/)), [text]);
  const coloured = useMemo(
    () =>
      text !== null && lang && text.length < 2_000_000 && !(lines ?? []).some((l) => l.length > LONG_LINE)
        ? colourLines(text.replace(/\r\n/g, '\n'), lang)
        : null,
    [text, lang, lines],
  );
  useEffect(() => {
    // A very long cited line scrolls to its passage itself (LongLine).
    if ((lines?.[start - 1]?.length ?? 0) > LONG_LINE) return;
    first.current?.scrollIntoView({ block: 'center' });
  }, [lines, start]);
  if (failed) return <p className="error">Cannot open it: {failed}</p>;
  if (!lines) return <p className="hint">Opening…</p>;
  return (
    <div className={coloured ? 'lines hljs' : 'lines'} role="document" data-lang={lang ?? ''}>
      {lines.map((l, i) => {
        const n = i + 1;
        const hl = n >= start && n <= end;
        return (
          <div key={n} ref={n === start ? first : undefined} className={hl ? 'line hl' : 'line'} data-line={n}>
            <span className="ln">{n}</span>
            {coloured ? (
              <span className="lt" dangerouslySetInnerHTML={{ __html: coloured[i] || ' ' }} />
            ) : l.length > LONG_LINE ? (
              <LongLine line={l} passage={hl ? passage : null} cols={hl ? cols : null} />
            ) : (
              <span className="lt">{l || ' '}</span>
            )}
          </div>
        );
      })}
    </div>
  );
}

function LongLine({ line, passage, cols }: { line: string; passage: string | null; cols: readonly [number, number] | null }) {
  const s = lineShown(line, passage, cols);
  const mark = useRef<HTMLElement>(null);
  useEffect(() => {
    // Scrolled within the lines' own box only: scrollIntoView moved the whole viewer too, and cut
    // the document's title in half.
    const m = mark.current;
    const box = m?.closest<HTMLElement>('.lines');
    if (m && box) box.scrollTop += m.getBoundingClientRect().top - box.getBoundingClientRect().top - 24;
  }, [line, passage, cols]);
  return (
    <span className="lt">
      {s.before}
      {s.marked && (
        <mark className="passage" ref={mark}>
          {s.marked}
        </mark>
      )}
      {s.after}
      {s.cut && (
        <span className="hint"> … ({(line.length / 1e6).toFixed(1)} million characters on this line: the cited passage is shown)</span>
      )}
    </span>
  );
}

/** An image with the cited region boxed (coordinates are in the image as viewers show it). */
function ImageView({ url, box }: { url: string; box: { x: number; y: number; w: number; h: number } }) {
  // The loaded image's size, with its address: a new image has none until it loads.
  const [loaded, setLoaded] = useState<{ url: string; w: number; h: number } | null>(null);
  const size = loaded?.url === url ? loaded : null;
  const holder = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (size) holder.current?.querySelector('.region')?.scrollIntoView({ block: 'center' });
  }, [size, box]);
  return (
    <div className="image-holder" ref={holder} data-state={size ? 'ready' : 'loading'}>
      <img src={url} alt="" onLoad={(e) => setLoaded({ url, w: e.currentTarget.naturalWidth, h: e.currentTarget.naturalHeight })} />
      {size && box.w > 0 && box.h > 0 && (
        <div
          className="region"
          style={{
            left: `${(100 * box.x) / size.w}%`,
            top: `${(100 * box.y) / size.h}%`,
            width: `${(100 * box.w) / size.w}%`,
            height: `${(100 * box.h) / size.h}%`,
          }}
        />
      )}
    </div>
  );
}

const clock = (s: number): string => `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, '0')}`;

/** An audio player at the start of the cited stretch; playing stops at its end. */
function AudioView({ url, start, end, text }: { url: string; start: number; end: number; text: string }) {
  const audio = useRef<HTMLAudioElement>(null);
  useEffect(() => {
    const a = audio.current;
    if (!a) return;
    const seek = (): void => {
      a.currentTime = start;
    };
    const stop = (): void => {
      if (a.currentTime >= end) a.pause();
    };
    if (a.readyState >= 1) seek();
    a.addEventListener('loadedmetadata', seek);
    a.addEventListener('timeupdate', stop);
    return () => {
      a.removeEventListener('loadedmetadata', seek);
      a.removeEventListener('timeupdate', stop);
    };
  }, [url, start, end]);
  const play = (): void => {
    const a = audio.current;
    if (!a) return;
    if (a.currentTime < start || a.currentTime >= end) a.currentTime = start;
    void a.play();
  };
  return (
    <div className="audio">
      <audio ref={audio} src={url} controls preload="metadata" data-start={start} data-end={end} />
      <button onClick={play}>
        ▶ Play {clock(start)}–{clock(end)}
      </button>
      {text && <p className="transcript">{text}</p>}
    </div>
  );
}

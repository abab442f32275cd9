// The ask panel: a question, the answer as it streams with inline [n] citations that open the cited
// span, the numbered sources, and a plain status line when no language model can be reached (the
// sources are still shown: the evidence for the question is useful on its own).
import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { KbBridge } from '../shared/api';
import type { AskResult, AskSource, SearchHit } from '../shared/wire';

export function AskPanel({
  kb,
  onOpen,
  standalone = false,
  open = true,
}: {
  kb: KbBridge;
  onOpen: (hit: SearchHit) => void;
  standalone?: boolean;
  /** The drawer is open: its question box takes the keyboard each time it opens. */
  open?: boolean;
}) {
  const [question, setQuestion] = useState('');
  const [answer, setAnswer] = useState('');
  const [sources, setSources] = useState<AskSource[]>([]);
  const [result, setResult] = useState<AskResult | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [stopped, setStopped] = useState(false);
  const ctl = useRef<AbortController | null>(null);
  const input = useRef<HTMLTextAreaElement>(null);

  useEffect(() => {
    if (!standalone) return;
    const onKey = (e: KeyboardEvent): void => {
      if (e.key === 'Escape') kb.app?.closePanel();
    };
    const focus = (): void => input.current?.focus();
    window.addEventListener('keydown', onKey);
    window.addEventListener('focus', focus);
    return () => {
      window.removeEventListener('keydown', onKey);
      window.removeEventListener('focus', focus);
    };
  }, [kb, standalone]);

  useEffect(() => {
    if (open) input.current?.focus();
  }, [open]);

  const ask = async (): Promise<void> => {
    const q = question.trim();
    if (!q) return;
    ctl.current?.abort();
    const mine = new AbortController();
    ctl.current = mine;
    setBusy(true);
    setAnswer('');
    setSources([]);
    setResult(null);
    setError(null);
    setStopped(false);
    try {
      const r = await kb.ask(
        { question: q },
        {
          signal: mine.signal,
          onProgress: (p) => {
            if (p.kind === 'sources') setSources(p.sources);
            else setAnswer((a) => a + p.text);
          },
        },
      );
      if (ctl.current !== mine) return;
      setResult(r);
      setSources(r.sources);
      setAnswer(r.answer);
    } catch (e) {
      if (!mine.signal.aborted) setError((e as Error).message);
      else if (ctl.current === mine) setStopped(true);
    } finally {
      if (ctl.current === mine) setBusy(false);
    }
  };

  const byN = new Map(sources.map((s) => [s.n, s]));
  return (
    <section className={standalone ? 'ask standalone' : 'ask'} aria-label="Ask">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void ask();
        }}
      >
        <textarea
          ref={input}
          autoFocus
          rows={2}
          placeholder="Ask your documents…"
          aria-label="Question"
          value={question}
          onChange={(e) => setQuestion(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey) {
              e.preventDefault();
              void ask();
            }
          }}
        />
        {busy ? (
          <button type="button" onClick={() => ctl.current?.abort()}>
            Stop
          </button>
        ) : (
          <button type="submit">Ask</button>
        )}
      </form>
      {error && <p className="error">{error}</p>}
      {stopped && (
        <p className="hint" role="status">
          Stopped{answer ? ': the answer so far is kept below' : ' before the model answered'}.
        </p>
      )}
      {result?.llm.status === 'unavailable' && (
        <>
          <p className="ask-status" role="status">
            {result.llm.reason}
          </p>
          {sources.length > 0 && <p className="hint">The passages that match best:</p>}
        </>
      )}
      {answer && <div className={result?.refused ? 'ask-answer refused' : 'ask-answer'}>{withCitations(answer, byN, onOpen)}</div>}
      {result?.refused && sources.length > 0 && result.model === null && <p className="hint">The nearest passages, for you to judge:</p>}
      {result && result.invalid_citations.length > 0 && (
        <p className="ask-check">
          Removed citations of sources the model was not given: {result.invalid_citations.map((n) => `[${n}]`).join(' ')}
        </p>
      )}
      {result && result.uncited_sentences.length > 0 && (
        <details className="ask-check">
          <summary>
            {result.uncited_sentences.length} sentence{result.uncited_sentences.length === 1 ? '' : 's'} cite no source
          </summary>
          <ul>
            {result.uncited_sentences.map((t) => (
              <li key={t}>{t}</li>
            ))}
          </ul>
        </details>
      )}
      {busy && !answer && <p className="hint">{sources.length ? 'Reading the sources…' : 'Searching…'}</p>}
      {sources.length > 0 && (
        <ol className="ask-sources" aria-label="Sources">
          {sources.map((s) => (
            <li key={s.n} value={s.n}>
              <button className="link" onClick={() => onOpen(s.hit)}>
                <span className="n">[{s.n}]</span> {s.hit.citation.label}
              </button>
              <div className="snippet">{s.hit.snippet}</div>
            </li>
          ))}
        </ol>
      )}
      {result && (
        <p className="meta">
          {/* The model is named only when it answered: unreachable, it wrote nothing. */}
          {result.model && result.llm.status === 'ok' ? `${result.model} · ` : ''}
          {result.took_ms} ms
        </p>
      )}
    </section>
  );
}

/** The answer's text with each `[n]` that names a source turned into a link to it. */
function withCitations(text: string, byN: Map<number, AskSource>, onOpen: (hit: SearchHit) => void): ReactNode[] {
  const out: ReactNode[] = [];
  let last = 0;
  for (const m of text.matchAll(/\[(\d+)\]/g)) {
    const s = byN.get(Number(m[1]));
    if (!s) continue;
    out.push(text.slice(last, m.index));
    out.push(
      <button key={`${m.index}`} className="cite" title={s.hit.citation.label} onClick={() => onOpen(s.hit)}>
        [{s.n}]
      </button>,
    );
    last = m.index + m[0].length;
  }
  out.push(text.slice(last));
  return out;
}

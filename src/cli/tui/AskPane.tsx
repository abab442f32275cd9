// The answer to the query asked as a question (Ctrl-A): streamed as the model writes it, its [n]
// marks drawn as links to the sources listed under it — the digit or ↑/↓ chooses one (previewed
// beside), Enter opens it. A refusal, or Ollama not running, said as the app says them, with the
// passages kb found.
import { Box, Text } from 'ink';
import type { AskResult, AskSource } from '../../shared/wire.js';

export interface AskState {
  question: string;
  text: string;
  sources: AskSource[];
  result: AskResult | null;
  error: string | null;
}

/** The answer's text split at its [n] marks (several in one bracket, "[1, 3]", are marks each). */
export function answerParts(text: string): { s: string; n: number | null }[] {
  const parts: { s: string; n: number | null }[] = [];
  let at = 0;
  for (const m of text.matchAll(/\[(\d+(?:\s*,\s*\d+)*)\]/g)) {
    if (m.index > at) parts.push({ s: text.slice(at, m.index), n: null });
    for (const n of m[1]!.split(',')) parts.push({ s: `[${n.trim()}]`, n: Number(n) });
    at = m.index + m[0].length;
  }
  if (at < text.length) parts.push({ s: text.slice(at), n: null });
  return parts;
}

/** The sources the answer cites: from the result once it is in, from the text while it streams. */
function citedIn(ask: AskState): Set<number> {
  if (ask.result) return new Set(ask.result.citations.map((c) => c.n));
  return new Set(answerParts(ask.text).flatMap((p) => (p.n === null ? [] : [p.n])));
}

export function AskPane({ ask, selected, rows }: { ask: AskState; selected: number; rows: number }) {
  const r = ask.result;
  const status = ask.error
    ? ask.error
    : !r
      ? 'answering…'
      : r.refused
        ? 'Not in your documents: the nearest passages are below.'
        : r.llm.status === 'unavailable'
          ? `${r.llm.reason ?? 'the model is unavailable'} — the sources kb found are below.`
          : `${r.model ?? ''} · ${r.took_ms} ms`;
  const answer = r ? r.answer : ask.text;
  const lines = answer ? answer.split('\n').slice(-Math.max(3, rows - ask.sources.length - 4)) : [];
  const chosen = ask.sources[selected]?.n;
  const cited = citedIn(ask);
  return (
    <Box flexDirection="column" flexGrow={1}>
      <Text bold wrap="truncate-end">
        Q: {ask.question}
      </Text>
      {lines.map((l, i) => (
        <Text key={i} wrap="wrap">
          {l
            ? answerParts(l).map((p, j) =>
                p.n === null ? (
                  <Text key={j}>{p.s}</Text>
                ) : (
                  <Text key={j} color="cyan" bold inverse={p.n === chosen}>
                    {p.s}
                  </Text>
                ),
              )
            : ' '}
        </Text>
      ))}
      <Text dimColor wrap="wrap">
        {status}
      </Text>
      {ask.sources.length > 0 && <Text bold>Sources (1–9 or ↑/↓ choose, Enter opens, Esc back to the hits)</Text>}
      {ask.sources.map((s, i) => (
        <Text key={s.n} wrap="truncate-end" inverse={i === selected} dimColor={cited.size > 0 && !cited.has(s.n) && i !== selected}>
          {i === selected ? '›' : ' '}
          {cited.has(s.n) ? '•' : ' '}[{s.n}] <Text color="cyan">{s.hit.citation.label ?? s.hit.citation.uri}</Text>
        </Text>
      ))}
    </Box>
  );
}

// The answer to the query asked as a question (Ctrl-A): streamed as the model writes it, its [n]
// sources listed under it to move through and open; a refusal, or Ollama not running, said as the app
// says them, with the passages kb found.
import { Box, Text } from 'ink';
import type { AskResult, AskSource } from '../../shared/wire.js';

export interface AskState {
  question: string;
  text: string;
  sources: AskSource[];
  result: AskResult | null;
  error: string | null;
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
  const lines = answer.split('\n').slice(-Math.max(3, rows - ask.sources.length - 6));
  return (
    <Box flexDirection="column" flexGrow={1}>
      <Text bold wrap="truncate-end">
        Q: {ask.question}
      </Text>
      {lines.map((l, i) => (
        <Text key={i} wrap="wrap">
          {l || ' '}
        </Text>
      ))}
      <Text dimColor wrap="wrap">
        {status}
      </Text>
      {ask.sources.length > 0 && <Text bold>Sources (↑/↓, Enter opens one, Esc back to the hits)</Text>}
      {ask.sources.map((s, i) => (
        <Text key={s.n} wrap="truncate-end" inverse={i === selected}>
          [{s.n}] <Text color="cyan">{s.hit.citation.label ?? s.hit.citation.uri}</Text>
        </Text>
      ))}
    </Box>
  );
}

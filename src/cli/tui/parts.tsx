// The terminal UI's pieces: a hit in the list (title, type, citation, snippet with the matched
// words highlighted), the preview of its cited span, and the key help. Colour goes with NO_COLOR
// (Ink's chalk honours it); the marks stay visible without it (inverse, and a ▌ gutter).
import { Box, Text } from 'ink';
import type { SearchHit } from '../../shared/wire.js';
import type { PreviewLine } from './preview.js';

/** The snippet with its highlight ranges drawn inverse. */
export function Snippet({ text, highlights }: { text: string; highlights: [number, number][] }) {
  const parts: { s: string; hl: boolean }[] = [];
  let at = 0;
  for (const [a, b] of [...highlights].sort((x, y) => x[0] - y[0])) {
    if (a > at) parts.push({ s: text.slice(at, a), hl: false });
    if (b > Math.max(a, at)) parts.push({ s: text.slice(Math.max(a, at), b), hl: true });
    at = Math.max(at, b);
  }
  if (at < text.length) parts.push({ s: text.slice(at), hl: false });
  return (
    <Text wrap="truncate-end">
      {parts.map((p, i) =>
        p.hl ? (
          <Text key={i} inverse>
            {p.s}
          </Text>
        ) : (
          <Text key={i}>{p.s}</Text>
        ),
      )}
    </Text>
  );
}

export function HitRow({ hit, active }: { hit: SearchHit; active: boolean }) {
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end" bold={active} inverse={active}>
        {active ? '› ' : '  '}
        {hit.source.title || hit.citation.path.split(/[\\/]/).pop()} <Text dimColor>({hit.source.type})</Text>
      </Text>
      <Text wrap="truncate-end" color="cyan">
        {'  '}
        {hit.citation.label ?? hit.citation.uri}
      </Text>
      <Box paddingLeft={2}>
        <Snippet text={hit.snippet.replace(/\s+/g, ' ')} highlights={hit.snippet_highlights} />
      </Box>
    </Box>
  );
}

export function Preview({ lines, title }: { lines: PreviewLine[]; title: string }) {
  const width = Math.max(0, ...lines.map((l) => (l.n === null ? 0 : String(l.n).length)));
  return (
    <Box flexDirection="column" flexGrow={1} paddingLeft={1}>
      <Text bold wrap="truncate-end">
        {title}
      </Text>
      {lines.map((l, i) => (
        <Text key={i} wrap="truncate-end" inverse={l.marked}>
          {l.marked ? '▌' : ' '}
          {l.n !== null ? <Text dimColor={!l.marked}>{String(l.n).padStart(width)} </Text> : null}
          {l.text.replace(/\t/g, '  ') || ' '}
        </Text>
      ))}
    </Box>
  );
}

export const KEYS: [string, string][] = [
  ['type', 'edit the query (the last word is a prefix)'],
  ['↑ ↓  Ctrl-P Ctrl-N', 'move through the hits'],
  ['Enter', 'open the source at its span ($VISUAL/$EDITOR at the line; else the system opener)'],
  ['Ctrl-Y, or y in the list', 'copy the citation (OSC 52: works over SSH)'],
  ['Ctrl-A, or a in the list', 'ask the query as a question (Ollama); its [n] sources open with Enter'],
  ['Tab / Shift-Tab', 'only one type of document: all, markdown, text, code, pdf, …'],
  ['Ctrl-U', 'clear the query'],
  ['?  (empty query, or in the list)', 'this help'],
  ['Esc  Ctrl-C', 'quit'],
];

export function Help() {
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text bold>kb tui — keys</Text>
      {KEYS.map(([k, what]) => (
        <Text key={k} wrap="truncate-end">
          <Text color="cyan">{k.padEnd(34)}</Text>
          {what}
        </Text>
      ))}
      <Text dimColor>Any key closes this.</Text>
    </Box>
  );
}

// The terminal UI's pieces: a hit in the list (title, type, citation, snippet with the matched
// words highlighted), the preview of its cited span, and the key help. Colour goes with NO_COLOR
// (Ink's chalk honours it); the marks stay visible without it (inverse, and a ▌ gutter).
import { Box, Text } from 'ink';
import { memo } from 'react';
import type { SearchHit } from '../../shared/wire.js';
import type { PreviewLine } from './preview.js';
import { terminalSafe } from '../terminal-text.js';

/**
 * A line cut to what a row of `cols` cells could show (a character takes one or two): Ink measures
 * every character of a text it truncates, and a paragraph-long line made each frame ~10 ms slower.
 */
/** A document's text cut to what a row can show, its control characters made harmless (terminal-text.ts). */
export const fit = (s: string, cols: number): string => terminalSafe(s.length > 2 * cols ? s.slice(0, 2 * cols) : s);

/**
 * The snippet on one line, split at its highlight ranges. The ranges index the snippet as stored, so
 * its line breaks and runs of spaces are folded part by part, after the split; what a row of `cols`
 * could not show is left out.
 */
export function snippetParts(text: string, highlights: [number, number][], cols: number): { s: string; hl: boolean }[] {
  const parts: { s: string; hl: boolean }[] = [];
  let at = 0;
  let room = 2 * cols;
  const push = (s: string, hl: boolean): void => {
    const folded = terminalSafe(s.replace(/\s+/g, ' ').slice(0, Math.max(0, room)));
    room -= folded.length;
    if (folded) parts.push({ s: folded, hl });
  };
  for (const [a, b] of [...highlights].sort((x, y) => x[0] - y[0])) {
    if (a > at) push(text.slice(at, a), false);
    if (b > Math.max(a, at)) push(text.slice(Math.max(a, at), b), true);
    at = Math.max(at, b);
  }
  if (at < text.length) push(text.slice(at), false);
  return parts;
}

/** The snippet with its matched words drawn inverse. */
export function Snippet({ text, highlights, cols }: { text: string; highlights: [number, number][]; cols: number }) {
  const parts = snippetParts(text, highlights, cols);
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

/** Memoised, as is the preview: a keystroke then redraws the query line, not every hit. */
export const HitRow = memo(function HitRow({ hit, active, cols }: { hit: SearchHit; active: boolean; cols: number }) {
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end" bold={active} inverse={active}>
        {active ? '› ' : '  '}
        {fit(hit.source.title || (hit.citation.path.split(/[\\/]/).pop() ?? ''), cols)} <Text dimColor>({hit.source.type})</Text>
      </Text>
      <Text wrap="truncate-end" color="cyan">
        {'  '}
        {fit(hit.citation.label ?? hit.citation.uri, cols)}
      </Text>
      <Box paddingLeft={2}>
        <Snippet text={hit.snippet} highlights={hit.snippet_highlights} cols={cols} />
      </Box>
    </Box>
  );
});

export const Preview = memo(function Preview({ lines, title, cols }: { lines: PreviewLine[]; title: string; cols: number }) {
  const width = Math.max(0, ...lines.map((l) => (l.n === null ? 0 : String(l.n).length)));
  return (
    <Box flexDirection="column" flexGrow={1} paddingLeft={1}>
      <Text bold wrap="truncate-end">
        {fit(title, cols)}
      </Text>
      {lines.map((l, i) => (
        <Text key={i} wrap="truncate-end" inverse={l.marked}>
          {l.marked ? '▌' : ' '}
          {l.n !== null ? <Text dimColor={!l.marked}>{String(l.n).padStart(width)} </Text> : null}
          {fit(l.text.replace(/\t/g, '  '), cols) || ' '}
        </Text>
      ))}
    </Box>
  );
});

/** What a search that found nothing says: how to fill an empty index, or what to try. */
export function Nothing({ query, filter, empty }: { query: string; filter: string | null; empty: boolean }) {
  if (empty) {
    return (
      <Box flexDirection="column">
        <Text bold>Nothing is indexed yet.</Text>
        <Text wrap="wrap">
          Add a folder, kept in sync: kb add ~/notes — or files once: kb ingest FILE…, or drop them into the app. Then search here.
        </Text>
      </Box>
    );
  }
  return (
    <Text wrap="wrap" dimColor>
      No hits for “{query}”{filter ? ` (${filter} — Tab for the others)` : ''}.
    </Text>
  );
}

export const KEYS: [string, string][] = [
  ['type', 'edit the query (the last word is a prefix)'],
  ['↑ ↓  Ctrl-P Ctrl-N', 'move through the hits'],
  ['Enter', 'open the source at its span ($VISUAL/$EDITOR at the line; else the system opener)'],
  ['Ctrl-Y, or y in the list', 'copy the citation (OSC 52: works over SSH)'],
  ['Ctrl-A, or a in the list', 'ask the query as a question (Ollama)'],
  ['1–9, ↑ ↓  (under an answer)', 'choose the source [n]: previewed; Enter opens it'],
  ['Tab / Shift-Tab', 'one type of document, or one tag: all, markdown, pdf, …, #tag'],
  ['Ctrl-U', 'clear the query'],
  ['?  (empty query, or in the list)', 'this help'],
  ['Esc  Ctrl-C', 'quit'],
];

export function Help() {
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text bold>kb tui — keys</Text>
      {KEYS.map(([k, what]) => (
        // The keys in a column of their own; what they do wraps beside them in 80 columns.
        <Box key={k}>
          <Box width={34} flexShrink={0}>
            <Text color="cyan">{k}</Text>
          </Box>
          <Text wrap="wrap">{what}</Text>
        </Box>
      ))}
      <Text dimColor>Any key closes this.</Text>
    </Box>
  );
}

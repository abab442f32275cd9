// Markdown: heading-aware chunks that carry their heading path and exact source lines.
import { fromMarkdown } from 'mdast-util-from-markdown';
import { frontmatterFromMarkdown } from 'mdast-util-frontmatter';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { toString } from 'mdast-util-to-string';
import { frontmatter } from 'micromark-extension-frontmatter';
import { gfm } from 'micromark-extension-gfm';
import { parse as parseYaml } from 'yaml';
import type { RootContent } from 'mdast';
import { type Block, Lines, packBlocks, pieceAnchor, pieceTexts } from '../chunk/pack.js';
import type { ChunkingOptions, ParsedChunk, ParsedDocument } from '../types.js';

interface Section {
  path: string[];
  blocks: Block[];
}

const ATOMIC = new Set(['code', 'table', 'html', 'math']);

function firstLine(n: RootContent): number {
  return n.position?.start.line ?? 1;
}
function lastLine(n: RootContent): number {
  return n.position?.end.line ?? firstLine(n);
}

interface FrontMatter {
  title?: string;
  tags: string[];
}

function readFrontMatter(yamlText: string): FrontMatter {
  let data: unknown;
  try {
    data = parseYaml(yamlText);
  } catch {
    return { tags: [] }; // Bad front matter is content the user can fix; it must not fail the document.
  }
  if (!data || typeof data !== 'object') return { tags: [] };
  const rec = data as Record<string, unknown>;
  const title = typeof rec.title === 'string' ? rec.title.trim() : undefined;
  let tags: string[] = [];
  const raw = rec.tags ?? rec.tag ?? rec.keywords;
  if (Array.isArray(raw)) tags = raw.filter((t): t is string | number => typeof t === 'string' || typeof t === 'number').map(String);
  else if (typeof raw === 'string') tags = raw.split(/[,\s]+/);
  tags = tags.map((t) => t.trim().replace(/^#/, '')).filter((t) => t.length > 0);
  return title ? { title, tags } : { tags };
}

export function parseMarkdown(text: string, fileName: string, opts: ChunkingOptions): ParsedDocument {
  const tree = fromMarkdown(text, {
    extensions: [gfm(), frontmatter(['yaml', 'toml'])],
    mdastExtensions: [gfmFromMarkdown(), frontmatterFromMarkdown(['yaml', 'toml'])],
  });
  const lines = new Lines(text);
  let fm: FrontMatter = { tags: [] };
  let h1: string | undefined;

  const sections: Section[] = [{ path: [], blocks: [] }];
  const stack: { depth: number; text: string }[] = [];
  for (const node of tree.children) {
    if (node.type === 'yaml') {
      fm = readFrontMatter(node.value);
      continue;
    }
    if ((node.type as string) === 'toml') continue;
    if (node.type === 'definition') continue;
    const block: Block = {
      startLine: firstLine(node),
      endLine: lastLine(node),
      chars: 0,
      atomic: ATOMIC.has(node.type),
    };
    block.chars = lines.slice(block.startLine, block.endLine).length + 1;
    if (node.type === 'heading') {
      const label = toString(node).trim();
      if (node.depth === 1 && h1 === undefined && label) h1 = label;
      while (stack.length > 0 && stack[stack.length - 1]!.depth >= node.depth) stack.pop();
      stack.push({ depth: node.depth, text: label });
      sections.push({ path: stack.map((s) => s.text).filter((t) => t), blocks: [block] });
    } else {
      sections[sections.length - 1]!.blocks.push(block);
    }
  }

  const chunks = chunkSections(sections, lines, opts);
  const title = fm.title ?? h1 ?? fileName;
  return { type: 'markdown', title, lang: null, tags: fm.tags, chunks };
}

/**
 * Small sections merge into the following ones (a chunk keeps the path of where it starts); big
 * sections are packed from their blocks. A merge never crosses into a different top-level section.
 */
function chunkSections(sections: Section[], lines: Lines, opts: ChunkingOptions): ParsedChunk[] {
  const nonEmpty = sections.filter((s) => s.blocks.length > 0);
  const groups: Section[][] = [];
  let group: Section[] = [];
  let groupChars = 0;
  for (const s of nonEmpty) {
    const chars = s.blocks.reduce((n, b) => n + b.chars, 0);
    const sameTop = group.length === 0 || (group[0]!.path[0] ?? '') === (s.path[0] ?? '') || s.path.length === 0;
    if (group.length > 0 && (groupChars >= opts.min_chars || groupChars + chars > opts.target_chars || !sameTop)) {
      groups.push(group);
      group = [];
      groupChars = 0;
    }
    group.push(s);
    groupChars += chars;
  }
  if (group.length > 0) groups.push(group);

  const out: ParsedChunk[] = [];
  for (const g of groups) {
    const pieces = packBlocks(
      g.flatMap((s) => s.blocks),
      (l) => lines.length(l),
      opts,
    );
    for (const p of pieces) {
      const heading = pieceHeading(g, p.startLine, p.endLine).join(' > ');
      for (const t of pieceTexts(lines, p, opts)) {
        out.push({ text: t.text, heading, anchor: pieceAnchor(t) });
      }
    }
  }
  return out;
}

/**
 * The heading a piece is labelled with: its section's; across merged sections, the headings they
 * share ("Setup" for Setup › Linux and Setup › macOS); sharing none (an untitled opening and the first
 * section), the heading of the section holding most of its text.
 */
function pieceHeading(group: Section[], start: number, end: number): string[] {
  const inside = group
    .map((s) => ({
      path: s.path,
      chars: s.blocks.filter((b) => b.endLine >= start && b.startLine <= end).reduce((n, b) => n + b.chars, 0),
    }))
    .filter((s) => s.chars > 0);
  if (inside.length === 0) return group[0]!.path;
  const shared = inside.slice(1).reduce((common, s) => common.slice(0, commonLength(common, s.path)), inside[0]!.path);
  if (shared.length > 0 || inside.length === 1) return shared;
  return inside.reduce((most, s) => (s.chars > most.chars ? s : most)).path;
}

function commonLength(a: string[], b: string[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

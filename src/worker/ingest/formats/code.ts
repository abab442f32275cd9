// Source code: one chunk per function, class or method, found with tree-sitter; the leading doc
// comment belongs to its symbol and the symbol path is the section label. Other languages, and the
// code between symbols, fall back to line windows.
import { createRequire } from 'node:module';
import type { Language as TsLanguage, Node as TsNode, Parser as TsParser } from '@vscode/tree-sitter-wasm';
import { type Block, Lines, packBlocks, pieceAnchor, pieceTexts } from '../chunk/pack.js';
import type { ChunkingOptions, ParsedChunk, ParsedDocument } from '../types.js';

const require = createRequire(import.meta.url);

type Grammar = 'typescript' | 'tsx' | 'javascript' | 'python' | 'go' | 'rust' | 'bash';

/** Extensions parsed with a grammar, and extensions kept as code with line windows. */
const GRAMMAR_BY_EXT: Record<string, Grammar> = {
  '.ts': 'typescript',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.tsx': 'tsx',
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.jsx': 'javascript',
  '.py': 'python',
  '.pyi': 'python',
  '.go': 'go',
  '.rs': 'rust',
  '.sh': 'bash',
  '.bash': 'bash',
  '.zsh': 'bash',
};

export const CODE_LANG_BY_EXT: Record<string, string> = {
  ...Object.fromEntries(Object.entries(GRAMMAR_BY_EXT).map(([e, g]) => [e, g === 'tsx' ? 'typescript' : g])),
  '.c': 'c',
  '.h': 'c',
  '.cc': 'cpp',
  '.cpp': 'cpp',
  '.hpp': 'cpp',
  '.cxx': 'cpp',
  '.cs': 'csharp',
  '.java': 'java',
  '.kt': 'kotlin',
  '.kts': 'kotlin',
  '.scala': 'scala',
  '.swift': 'swift',
  '.rb': 'ruby',
  '.php': 'php',
  '.lua': 'lua',
  '.pl': 'perl',
  '.r': 'r',
  '.jl': 'julia',
  '.hs': 'haskell',
  '.ml': 'ocaml',
  '.ex': 'elixir',
  '.exs': 'elixir',
  '.erl': 'erlang',
  '.clj': 'clojure',
  '.dart': 'dart',
  '.zig': 'zig',
  '.nim': 'nim',
  '.vue': 'vue',
  '.svelte': 'svelte',
  '.sql': 'sql',
  '.css': 'css',
  '.scss': 'scss',
  '.less': 'less',
  '.html': 'html',
  '.htm': 'html',
  '.xml': 'xml',
  '.json': 'json',
  '.yaml': 'yaml',
  '.yml': 'yaml',
  '.toml': 'toml',
  '.ini': 'ini',
  '.cfg': 'ini',
  '.ps1': 'powershell',
  '.bat': 'batch',
  '.fish': 'fish',
  '.proto': 'protobuf',
  '.graphql': 'graphql',
  '.tf': 'terraform',
  '.nix': 'nix',
  '.mk': 'make',
  '.cmake': 'cmake',
  '.gradle': 'groovy',
};

export const CODE_LANG_BY_NAME: Record<string, string> = {
  Makefile: 'make',
  makefile: 'make',
  Dockerfile: 'dockerfile',
  Justfile: 'just',
  Rakefile: 'ruby',
  Gemfile: 'ruby',
  'CMakeLists.txt': 'cmake',
};

/** Nodes that are symbols, per grammar, and the nodes whose children may hold nested symbols. */
const SYMBOLS: Record<Grammar, { symbol: Set<string>; container: Set<string> }> = {
  typescript: {
    symbol: new Set([
      'function_declaration',
      'generator_function_declaration',
      'class_declaration',
      'abstract_class_declaration',
      'method_definition',
      'interface_declaration',
      'type_alias_declaration',
      'enum_declaration',
      'abstract_method_signature',
      'module',
      'internal_module',
      'lexical_declaration',
      'variable_declaration',
    ]),
    container: new Set(['class_body', 'export_statement', 'program', 'statement_block', 'interface_body']),
  },
  tsx: { symbol: new Set(), container: new Set() },
  javascript: {
    symbol: new Set([
      'function_declaration',
      'generator_function_declaration',
      'class_declaration',
      'method_definition',
      'lexical_declaration',
      'variable_declaration',
    ]),
    container: new Set(['class_body', 'export_statement', 'program']),
  },
  python: {
    symbol: new Set(['function_definition', 'class_definition', 'decorated_definition']),
    container: new Set(['block', 'module']),
  },
  go: {
    symbol: new Set(['function_declaration', 'method_declaration', 'type_declaration']),
    container: new Set(['source_file']),
  },
  rust: {
    symbol: new Set(['function_item', 'impl_item', 'struct_item', 'enum_item', 'trait_item', 'mod_item', 'macro_definition', 'union_item']),
    container: new Set(['declaration_list', 'source_file']),
  },
  bash: { symbol: new Set(['function_definition']), container: new Set(['program']) },
};
SYMBOLS.tsx = SYMBOLS.typescript;

const COMMENT_TYPES = new Set(['comment', 'line_comment', 'block_comment']);

type TreeSitterModule = { Parser: typeof TsParser; Language: typeof TsLanguage };
let parserPromise: Promise<TreeSitterModule> | undefined;
const languages = new Map<Grammar, Promise<TsLanguage>>();

async function loadRuntime(): Promise<TreeSitterModule> {
  parserPromise ??= (async () => {
    const mod = require('@vscode/tree-sitter-wasm') as TreeSitterModule;
    await mod.Parser.init();
    return { Parser: mod.Parser, Language: mod.Language };
  })();
  return parserPromise;
}

async function loadLanguage(g: Grammar): Promise<TsLanguage> {
  let p = languages.get(g);
  if (!p) {
    p = (async () => {
      const { Language } = await loadRuntime();
      return Language.load(require.resolve(`@vscode/tree-sitter-wasm/wasm/tree-sitter-${g}.wasm`));
    })();
    languages.set(g, p);
  }
  return p;
}

export function grammarFor(ext: string): Grammar | undefined {
  return GRAMMAR_BY_EXT[ext];
}

interface Symbol {
  name: string;
  path: string[];
  startLine: number;
  endLine: number;
}

function nodeName(n: TsNode, g: Grammar): string | null {
  if (n.type === 'decorated_definition') {
    const def = n.childForFieldName('definition');
    return def ? nodeName(def, g) : null;
  }
  if (n.type === 'lexical_declaration' || n.type === 'variable_declaration') {
    // Only `const f = () => …` / `= function …` / `= class …` count as symbols.
    const decl = n.namedChildren.find((c) => c?.type === 'variable_declarator');
    const value = decl?.childForFieldName('value');
    if (!decl || !value || !/function|arrow_function|class/.test(value.type)) return null;
    return decl.childForFieldName('name')?.text ?? null;
  }
  if (n.type === 'method_declaration' && g === 'go') {
    const recv = n.childForFieldName('receiver')?.text.replace(/[()]/g, '').trim().split(/\s+/).pop()?.replace(/^\*/, '');
    const name = n.childForFieldName('name')?.text;
    return name ? (recv ? `${recv}.${name}` : name) : null;
  }
  if (n.type === 'type_declaration') {
    const spec = n.namedChildren.find((c) => c?.type === 'type_spec');
    return spec?.childForFieldName('name')?.text ?? null;
  }
  if (n.type === 'impl_item') {
    const ty = n.childForFieldName('type')?.text;
    const tr = n.childForFieldName('trait')?.text;
    return ty ? (tr ? `impl ${tr} for ${ty}` : `impl ${ty}`) : null;
  }
  const name = n.childForFieldName('name');
  return name?.text ?? null;
}

/** The first line of a symbol, moved up over the doc comments directly above it. */
function startWithComments(node: TsNode): number {
  // `export function f` / decorators: the comment sits above the wrapper, not the declaration.
  let n = node;
  while (n.parent && (n.parent.type === 'export_statement' || n.parent.type === 'decorated_definition')) n = n.parent;
  let start = n.startPosition.row;
  let prev = n.previousNamedSibling;
  while (prev && COMMENT_TYPES.has(prev.type) && prev.endPosition.row >= start - 1) {
    start = prev.startPosition.row;
    prev = prev.previousNamedSibling;
  }
  return start + 1;
}

function collectSymbols(node: TsNode, g: Grammar, path: string[], out: Symbol[], maxChars: number): void {
  const spec = SYMBOLS[g];
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (spec.symbol.has(child.type)) {
      const name = nodeName(child, g);
      if (name) {
        const symPath = [...path, name];
        const sym: Symbol = { name, path: symPath, startLine: startWithComments(child), endLine: child.endPosition.row + 1 };
        // A big class or impl is cut into its members, with its own header as a chunk of its own.
        const body = bodyOf(child);
        if (body && child.text.length > maxChars) {
          const members: Symbol[] = [];
          collectSymbols(body, g, symPath, members, maxChars);
          if (members.length > 0) {
            const headerEnd = members[0]!.startLine - 1;
            if (headerEnd >= sym.startLine) out.push({ ...sym, endLine: headerEnd });
            out.push(...members);
            continue;
          }
        }
        out.push(sym);
        continue;
      }
    }
    if (spec.container.has(child.type)) collectSymbols(child, g, path, out, maxChars);
  }
}

function bodyOf(n: TsNode): TsNode | null {
  const target = n.type === 'decorated_definition' ? n.childForFieldName('definition') : n;
  return target?.childForFieldName('body') ?? null;
}

export async function parseCode(text: string, fileName: string, ext: string, lang: string, opts: ChunkingOptions): Promise<ParsedDocument> {
  const lines = new Lines(text);
  const g = grammarFor(ext);
  const symbols: Symbol[] = [];
  if (g) {
    const { Parser } = await loadRuntime();
    const parser = new Parser();
    try {
      parser.setLanguage(await loadLanguage(g));
      const tree = parser.parse(text);
      if (tree) {
        collectSymbols(tree.rootNode, g, [], symbols, opts.max_chars);
        tree.delete();
      }
    } finally {
      parser.delete();
    }
  }
  return { type: 'code', title: fileName, lang, tags: [], chunks: chunkBySymbols(lines, symbols, opts) };
}

function windowBlocks(lines: Lines, start: number, end: number, opts: ChunkingOptions): Block[] {
  // Paragraphs of code (blank-line separated) are the units; long runs are cut at window size.
  return lines.paragraphs(start, end).flatMap((p) => {
    const out: Block[] = [];
    for (let s = p.startLine; s <= p.endLine; s += opts.code_window_lines) {
      const e = Math.min(p.endLine, s + opts.code_window_lines - 1);
      out.push({ startLine: s, endLine: e, chars: lines.slice(s, e).length + 1, atomic: false });
    }
    return out;
  });
}

function chunkBySymbols(lines: Lines, symbols: Symbol[], opts: ChunkingOptions): ParsedChunk[] {
  const out: ParsedChunk[] = [];
  const glue = (start: number, end: number, heading: string): void => {
    if (end < start) return;
    const pieces = packBlocks(windowBlocks(lines, start, end, opts), (l) => lines.length(l), opts);
    for (const p of pieces) {
      for (const t of pieceTexts(lines, p, opts)) {
        out.push({ text: t.text, heading, anchor: pieceAnchor(t) });
      }
    }
  };
  let cursor = 1;
  for (const s of symbols) {
    if (s.startLine < cursor) continue;
    glue(cursor, s.startLine - 1, '');
    const label = s.path.join('.');
    const text = lines.slice(s.startLine, s.endLine);
    if (text.length > opts.max_chars * 2) {
      glue(s.startLine, s.endLine, label); // a huge function: windows that all carry its name
    } else {
      out.push({ text, heading: label, anchor: { kind: 'lines', start: s.startLine, end: s.endLine } });
    }
    cursor = s.endLine + 1;
  }
  glue(cursor, lines.count, '');
  return out.filter((c) => c.text.trim() !== '');
}

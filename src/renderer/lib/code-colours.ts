// Syntax colours for the code viewer (highlight.js), split into lines so each line can be numbered and
// the cited ones highlighted. A token spanning lines (a block comment) is closed at each line's end
// and reopened on the next, so every line is well-formed HTML on its own.
import hljs from 'highlight.js/lib/common';

const EXT_LANG: Record<string, string> = {
  ts: 'typescript',
  tsx: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  js: 'javascript',
  jsx: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  py: 'python',
  go: 'go',
  rs: 'rust',
  sh: 'bash',
  bash: 'bash',
  zsh: 'bash',
  c: 'c',
  h: 'c',
  cc: 'cpp',
  cpp: 'cpp',
  hpp: 'cpp',
  java: 'java',
  kt: 'kotlin',
  rb: 'ruby',
  php: 'php',
  cs: 'csharp',
  swift: 'swift',
  json: 'json',
  yaml: 'yaml',
  yml: 'yaml',
  toml: 'ini',
  ini: 'ini',
  sql: 'sql',
  css: 'css',
  scss: 'scss',
  html: 'xml',
  xml: 'xml',
  lua: 'lua',
  r: 'r',
  pl: 'perl',
  md: 'markdown',
  markdown: 'markdown',
  diff: 'diff',
  makefile: 'makefile',
};

export function languageFor(path: string): string | null {
  const name = path.split(/[\\/]/).pop()?.toLowerCase() ?? '';
  const ext = name === 'makefile' ? 'makefile' : (name.split('.').pop() ?? '');
  const lang = EXT_LANG[ext];
  return lang && hljs.getLanguage(lang) ? lang : null;
}

/** One HTML string per line of `text`, coloured as `lang`. */
export function colourLines(text: string, lang: string): string[] {
  const html = hljs.highlight(text, { language: lang, ignoreIllegals: true }).value;
  const out: string[] = [];
  const open: string[] = [];
  let line = '';
  const tag = /<span[^>]*>|<\/span>|\n/g;
  let last = 0;
  for (let m = tag.exec(html); m; m = tag.exec(html)) {
    line += html.slice(last, m.index);
    last = tag.lastIndex;
    if (m[0] === '\n') {
      out.push(line + '</span>'.repeat(open.length));
      line = open.join('');
    } else if (m[0] === '</span>') {
      open.pop();
      line += m[0];
    } else {
      open.push(m[0]);
      line += m[0];
    }
  }
  out.push(line + html.slice(last));
  return out;
}

// The terminal UI's plain logic: how each editor is opened at a line, the system opener, OSC 52 (also
// through tmux), and the preview of a hit's cited span.
import { describe, expect, it } from 'vitest';
import type { SearchHit } from '../src/shared/wire.js';
import { editorFromEnv, editorLaunch, splitCommand, systemOpener } from '../src/cli/tui/editor.js';
import { osc52 } from '../src/cli/tui/osc52.js';
import { answerParts } from '../src/cli/tui/AskPane.js';
import { snippetParts } from '../src/cli/tui/parts.js';
import { lineTime, previewLines, previewTarget, wrap } from '../src/cli/tui/preview.js';

describe('opening the source in an editor', () => {
  it('puts the line where each editor wants it', () => {
    expect(editorLaunch('vim', '/n/a.md', 12)).toEqual({ command: 'vim', args: ['+12', '/n/a.md'] });
    expect(editorLaunch('nvim', '/n/a.md', 12).args).toEqual(['+12', '/n/a.md']);
    expect(editorLaunch('/usr/bin/nano', '/n/a.md', 3).args).toEqual(['+3', '/n/a.md']);
    expect(editorLaunch('emacsclient -t', '/n/a.md', 7)).toEqual({ command: 'emacsclient', args: ['-t', '+7', '/n/a.md'] });
    expect(editorLaunch('code --wait', '/n/a.md', 12)).toEqual({ command: 'code', args: ['--wait', '-g', '/n/a.md:12'] });
    expect(editorLaunch('hx', '/n/a.md', 12).args).toEqual(['/n/a.md:12']);
    expect(editorLaunch('subl', '/n/a.md', 12).args).toEqual(['/n/a.md:12']);
    // An editor kb does not know gets +LINE FILE, which vi, emacs, nano, micro, kak, joe and mg all take.
    expect(editorLaunch('ed', '/n/a.md', 12).args).toEqual(['+12', '/n/a.md']);
    expect(editorLaunch('/opt/bin/my-editor --flag', '/n/a.md', 4)).toEqual({
      command: '/opt/bin/my-editor',
      args: ['--flag', '+4', '/n/a.md'],
    });
    // ui.editor_command wins over the environment, and is used as written.
    expect(editorFromEnv({ VISUAL: 'vim' }, 'subl {path}:{line}')).toBe('subl {path}:{line}');
    expect(editorLaunch('subl {path}:{line}', '/n/my notes.md', 12)).toEqual({ command: 'subl', args: ['/n/my notes.md:12'] });
    expect(editorLaunch('"/Applications/Edit App" --line {line} {path}', '/n/a.md')).toEqual({
      command: '/Applications/Edit App',
      args: ['--line', '1', '/n/a.md'],
    });
    expect(editorLaunch('vim', '/n/a.md').args).toEqual(['/n/a.md']);
    expect(editorLaunch('"/Applications/My Editor/bin/code" -n', '/n/a.md', 2)).toEqual({
      command: '/Applications/My Editor/bin/code',
      args: ['-n', '-g', '/n/a.md:2'],
    });
  });

  it('takes $VISUAL before $EDITOR, and says when there is neither', () => {
    expect(editorFromEnv({ VISUAL: 'nvim', EDITOR: 'nano' })).toBe('nvim');
    expect(editorFromEnv({ EDITOR: 'nano' })).toBe('nano');
    expect(editorFromEnv({ VISUAL: ' ', EDITOR: '' })).toBeNull();
    expect(() => editorLaunch('', '/a', 1)).toThrow(/\$VISUAL or \$EDITOR/);
    expect(splitCommand(`code --wait 'a b'`)).toEqual(['code', '--wait', 'a b']);
  });

  it('opens other files with the system opener', () => {
    expect(systemOpener('/p/paper.pdf', 'linux')).toEqual({ command: 'xdg-open', args: ['/p/paper.pdf'] });
    expect(systemOpener('/p/paper.pdf', 'darwin')).toEqual({ command: 'open', args: ['/p/paper.pdf'] });
    expect(systemOpener('C:\\p\\paper.pdf', 'win32').command).toBe('cmd');
  });
});

describe('copying a citation with OSC 52', () => {
  it('sends the text base64-encoded to the terminal, wrapped for tmux inside tmux', () => {
    const uri = 'file:///n/a.md#L12-L34';
    const plain = osc52(uri, {});
    expect(plain).toBe(`\x1b]52;c;${Buffer.from(uri).toString('base64')}\x07`);
    const tmux = osc52(uri, { TMUX: '/tmp/tmux-0/default,1,0' });
    expect(tmux.startsWith('\x1bPtmux;\x1b\x1b]52;c;')).toBe(true);
    expect(tmux.endsWith('\x07\x1b\\')).toBe(true);
  });
});

function hit(citation: SearchHit['citation'], text: string): SearchHit {
  return {
    rank: 1,
    chunk_id: 'c',
    doc_id: 'd',
    score: 1,
    retrieval: { method: 'lexical', lexical_rank: 1, lexical_score: 1, vector_rank: null, vector_score: null, fusion_score: null },
    text,
    snippet: text,
    snippet_highlights: [],
    matched_terms: [],
    citation,
    source: { title: 't', type: 'markdown', tags: [], chunk_index: 0, total_chunks: 1, original: 'copy' },
  };
}

describe('the preview of a hit', () => {
  it('reads the cited lines with context, numbers them and marks the cited ones', () => {
    const h = hit({ kind: 'lines', start: 12, end: 13, uri: 'file:///n/a.md#L12-L13', path: '/n/a.md' }, 'line 12\nline 13');
    expect(previewTarget(h, 5)).toBe('/n/a.md#L7-L18');
    expect(previewTarget({ ...h, citation: { kind: 'lines', start: 2, end: 3, uri: '', path: '/n/a.md' } }, 5)).toBe('/n/a.md#L1-L8');
    const text = Array.from({ length: 12 }, (_, i) => `line ${7 + i}`).join('\n');
    const lines = previewLines(h, { text, citation: { kind: 'lines', start: 7, end: 18, uri: '', path: '/n/a.md' } }, 20);
    expect(lines[0]).toEqual({ n: 7, text: 'line 7', marked: false });
    expect(lines.filter((l) => l.marked).map((l) => l.n)).toEqual([12, 13]);
  });

  it('scrolls a long span so the mark is a third of the way down', () => {
    const h = hit({ kind: 'lines', start: 80, end: 80, uri: '', path: '/n/a.md' }, 'x');
    const text = Array.from({ length: 100 }, (_, i) => `l${i + 1}`).join('\n');
    const lines = previewLines(h, { text, citation: { kind: 'lines', start: 1, end: 100, uri: '', path: '/n/a.md' } }, 12);
    expect(lines).toHaveLength(12);
    expect(lines.findIndex((l) => l.marked)).toBe(4);
    expect(lines[4]!.n).toBe(80);
  });

  it('scrolls a citation longer than the pane to the line holding the matched word', () => {
    const h = { ...hit({ kind: 'lines', start: 10, end: 60, uri: '', path: '/n/a.md' }, 'x'), matched_terms: ['walrus'] };
    const text = Array.from({ length: 70 }, (_, i) => (i + 1 === 50 ? 'the walrus line' : `l${i + 1}`)).join('\n');
    const lines = previewLines(h, { text, citation: { kind: 'lines', start: 1, end: 70, uri: '', path: '/n/a.md' } }, 12);
    expect(lines[4]).toEqual({ n: 50, text: 'the walrus line', marked: true });
  });

  it('marks a passage on a PDF page by its words, across the page’s own line breaks', () => {
    const h = hit(
      { kind: 'page', page: 7, uri: 'file:///p/paper.pdf#page=7', path: '/p/paper.pdf' },
      'The flow separates at the trailing edge when the angle grows.',
    );
    expect(previewTarget(h, 5)).toBe('file:///p/paper.pdf#page=7');
    const page = 'Results\nThe flow separates at the\ntrailing edge when the angle\ngrows. Further work follows.\nReferences';
    const lines = previewLines(h, { text: page, citation: h.citation }, 20);
    expect(lines.map((l) => l.marked)).toEqual([false, true, true, true, false]);
    // Paragraphs a blank line apart on the page, one space apart in the passage.
    const spaced = previewLines(
      h,
      { text: 'Results\n\nThe flow separates at the\n\ntrailing edge when the angle grows.\n\nEnd', citation: h.citation },
      20,
    );
    expect(spaced.map((l) => l.marked)).toEqual([false, false, true, true, true, false, false]);
    expect(lines.every((l) => l.n === null)).toBe(true);
  });

  it('wraps a page’s paragraphs at the pane’s width, the marked one marked on every row it takes', () => {
    const h = hit(
      { kind: 'page', page: 2, uri: 'file:///p/a.pdf#page=2', path: '/p/a.pdf' },
      'The flow separates at the trailing edge when the angle grows.',
    );
    const page = 'Intro words here.\nThe flow separates at the trailing edge when the angle grows.\nEnd.';
    const lines = previewLines(h, { text: page, citation: h.citation }, 20, 24);
    expect(lines.map((l) => [l.text, l.marked])).toEqual([
      ['Intro words here.', false],
      ['The flow separates at', true],
      ['the trailing edge when', true],
      ['the angle grows.', true],
      ['End.', false],
    ]);
    expect(wrap('a supercalifragilistic word', 10)).toEqual(['a', 'supercalif', 'ragilistic', 'word']);
  });
});

describe('a hit’s snippet on one line', () => {
  it('highlights the matched words where they are, line breaks and runs of spaces folded after the split', () => {
    const text = 'Setup\n\n  Installing   git on Debian\nis done with apt.';
    const at = (w: string): [number, number] => [text.indexOf(w), text.indexOf(w) + w.length];
    const parts = snippetParts(text, [at('git'), at('Installing')], 80);
    expect(parts.filter((p) => p.hl).map((p) => p.s)).toEqual(['Installing', 'git']);
    expect(parts.map((p) => p.s).join('')).toBe('Setup Installing git on Debian is done with apt.');
  });

  it('keeps only what a row could show, so a paragraph-long snippet costs a frame nothing', () => {
    const text = 'word '.repeat(400) + 'needle';
    const parts = snippetParts(text, [[text.length - 6, text.length]], 40);
    expect(parts.map((p) => p.s).join('').length).toBe(80);
    expect(parts.some((p) => p.hl)).toBe(false);
  });
});

describe('an answer’s [n] marks', () => {
  it('are found in the text, several in one bracket each a mark of its own', () => {
    const parts = answerParts('Tides turn [1]. Both [2, 3] agree; [12] too, but not [x].');
    expect(parts.filter((p) => p.n !== null).map((p) => [p.s, p.n])).toEqual([
      ['[1]', 1],
      ['[2]', 2],
      ['[3]', 3],
      ['[12]', 12],
    ]);
    expect(parts.map((p) => p.s).join('')).toBe('Tides turn [1]. Both [2][3] agree; [12] too, but not [x].');
  });
});

describe('a transcript line’s time', () => {
  it('reads minutes, and hours when there are any; other lines have none', () => {
    expect(lineTime('[1:02.5–1:07.0] and so on')).toEqual({ start: 62.5, end: 67 });
    expect(lineTime('[1:00:02.0–1:00:09.5] later')).toEqual({ start: 3602, end: 3609.5 });
    expect(lineTime('no time here')).toBeNull();
  });
});

describe("a document's control characters in kb tui", () => {
  it('are drawn as � in titles, citations, snippets and the preview: never sent to the terminal', async () => {
    const { fit, snippetParts } = await import('../src/cli/tui/parts.js');
    expect(fit('Notes\x1b]0;owned\x07', 40)).toBe('Notes\uFFFD]0;owned\uFFFD');
    expect(snippetParts('the \x1b[2Jgannet dives', [[8, 14]], 40)).toEqual([
      { s: 'the \uFFFD[2J', hl: false },
      { s: 'gannet', hl: true },
      { s: ' dives', hl: false },
    ]);
  });
});

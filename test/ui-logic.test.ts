// The UI's and the hosts' small pure pieces: search-as-you-type scheduling, code colouring by line,
// byte ranges for documents, and the names uploads may take.
import { describe, expect, it } from 'vitest';
import { safeRelativePath } from '../src/cli/serve/uploads.js';
import { colourLines, languageFor } from '../src/renderer/lib/code-colours.js';
import { latestOnly } from '../src/renderer/lib/latest-only.js';
import { spansToMark } from '../src/renderer/lib/pdf-highlight.js';
import { byteRange, contentType } from '../src/shared/doc-serving.js';

describe('search as you type (latestOnly)', () => {
  it('sends at once when idle, keeps only the newest query while one is in flight, and never shows an older answer after a newer one', async () => {
    const sent: string[] = [];
    const shown: string[] = [];
    const pending = new Map<string, (v: string) => void>();
    const s = latestOnly(
      (q: string) => {
        sent.push(q);
        return new Promise<string>((res) => pending.set(q, res));
      },
      (r) => shown.push(r),
      () => undefined,
    );
    s.submit('a');
    s.submit('ab');
    s.submit('abc'); // replaces 'ab' while 'a' is in flight
    expect(sent).toEqual(['a']);
    pending.get('a')!('A');
    await new Promise((r) => setTimeout(r, 0));
    expect(sent).toEqual(['a', 'abc']);
    expect(shown).toEqual(['A']);
    s.submit('abcd');
    s.clear(); // the box was emptied: nothing still on its way may show
    pending.get('abc')!('ABC');
    await new Promise((r) => setTimeout(r, 0));
    expect(shown).toEqual(['A']);
    expect(sent).toEqual(['a', 'abc']);
  });
});

describe('code colours', () => {
  it('colours by language and keeps every line well-formed, even inside a block comment', () => {
    expect(languageFor('src/app.ts')).toBe('typescript');
    expect(languageFor('notes.unknownext')).toBeNull();
    const lines = colourLines('/* one\n   two */\nconst x = 1;\n', 'typescript');
    expect(lines).toHaveLength(4);
    for (const l of lines) expect((l.match(/<span/g) ?? []).length).toBe((l.match(/<\/span>/g) ?? []).length);
    expect(lines[1]).toMatch(/^<span class="hljs-comment">\s+two \*\/<\/span>$/);
    expect(lines[2]).toMatch(/hljs-keyword">const</);
  });
});

describe('serving documents', () => {
  it('parses byte ranges as media players and pdf.js send them', () => {
    expect(byteRange('bytes=0-99', 1000)).toEqual([0, 99]);
    expect(byteRange('bytes=900-', 1000)).toEqual([900, 999]);
    expect(byteRange('bytes=-100', 1000)).toEqual([900, 999]);
    expect(byteRange('bytes=990-5000', 1000)).toEqual([990, 999]);
    expect(byteRange('bytes=1000-', 1000)).toBe('unsatisfiable');
    expect(byteRange('bytes=0-1,5-6', 1000)).toBeNull();
    expect(byteRange('items=0-1', 1000)).toBeNull();
  });

  it('labels text as plain text, and media by their real type', () => {
    expect(contentType({ type: 'markdown', file: '/x/page.html' })).toBe('text/plain; charset=utf-8');
    expect(contentType({ type: 'image', file: '/x/scan.PNG' })).toBe('image/png');
    expect(contentType({ type: 'audio', file: '/x/talk.mp3' })).toBe('audio/mpeg');
    expect(contentType({ type: 'image', file: '/x/blob-without-ext' })).toBe('application/octet-stream');
    // A stored copy has no extension: the original's name says what it is.
    expect(contentType({ type: 'audio', file: '/data/blobs/ab/ab12', name: 'talk.m4a' })).toBe('audio/mp4');
  });
});

describe('upload names', () => {
  it('keeps a dropped folder’s relative paths and refuses any way out of uploads/', () => {
    expect(safeRelativePath('notes/setup.md')).toBe('notes/setup.md');
    expect(safeRelativePath('/notes//setup.md')).toBe('notes/setup.md');
    for (const bad of ['', '..', '../etc/passwd', 'a/../../b', 'a\\..\\..\\b', 'C:evil', 'a/./b', 'nul\x00.md']) expect(() => safeRelativePath(bad), bad).toThrow(/not a usable file name/);
  });
});

describe('PDF passage highlight', () => {
  // Two columns, lines emitted across the page (left, right, left, right …), as gazette producers do.
  const left = ['The harbour lantern signal', 'burned through the winter', 'and the river froze over', 'until the spring thaw came'];
  const right = ['Other news of the village', 'the market opened early', 'and the winter fair', 'was held in the square'];
  const spans = left.flatMap((l, i) => [
    { text: l, left: 36, right: 200, top: 100 + i * 12, bottom: 110 + i * 12 },
    { text: right[i]!, left: 220, right: 390, top: 100 + i * 12, bottom: 110 + i * 12 },
  ]);

  it('marks the passage in its own column, not the lines of the next column emitted between them', () => {
    const marked = spansToMark(spans, 'The harbour lantern signal burned through the winter and the river froze over');
    expect(marked.map((i) => spans[i]!.text)).toEqual(left.slice(0, 3));
  });

  it('marks short-word spans by the passage start and end, and only those that belong to it', () => {
    const words = ['a', 'cat', 'sat', 'on', 'the', 'mat', 'by', 'a', 'dog'].map((w, i) => ({ text: w, left: i * 20, right: i * 20 + 15, top: 0, bottom: 10 }));
    expect(spansToMark(words, 'sat on the mat')).toEqual([2, 3, 4, 5]);
    expect(spansToMark(words, '')).toEqual([]);
  });
});

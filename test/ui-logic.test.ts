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
    for (const bad of ['', '..', '../etc/passwd', 'a/../../b', 'a\\..\\..\\b', 'C:evil', 'a/./b', 'nul\x00.md'])
      expect(() => safeRelativePath(bad), bad).toThrow(/not a usable file name/);
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

  it('marks only inside the passage’s own block: a phrase the page repeats in another column, or a word in the margin, stays unmarked', () => {
    // Three columns of a Federal Register page; the cited passage is the first column's paragraph.
    const col = (x: number, lines: string[], top = 100) =>
      lines.map((text, i) => ({ text, left: x, right: x + 160, top: top + i * 12, bottom: top + 10 + i * 12 }));
    const first = col(36, [
      'For service information identified in',
      'this AD, contact the manufacturer at',
      'its customer support office. Fax:',
      '555 0100; email: support@example.com.',
    ]);
    const second = col(210, [
      'The FAA has reviewed the comments',
      'For service information identified in',
      'that notice, contact the same office.',
      'Fax: 555 0199; email: other@example.com.',
    ]);
    const third = col(384, [
      'Related rules in this part are found',
      'For service information identified in',
      'paragraph (h) of this AD. Fax: 555.',
    ]);
    const margin = [
      { text: 'email:', left: 570, right: 600, top: 400, bottom: 410 },
      { text: 'Fax:', left: 8, right: 30, top: 700, bottom: 710 },
    ];
    const spans = [...second, ...first, ...third, ...margin];
    const marked = spansToMark(
      spans,
      'For service information identified in this AD, contact the manufacturer at its customer support office. Fax: 555 0100; email: support@example.com.',
    );
    expect(marked.map((i) => spans[i]!.text)).toEqual(first.map((s) => s.text));
  });

  it('leaves a running header unmarked though it ends in the words the passage starts with; a line the passage starts inside is marked', () => {
    const body = [
      'Annual report of the water board on the',
      'reservoir works, the sluice gates and the',
      'turbine hall, for the year now ended.',
    ];
    const spans = [
      // The header kb dropped from the page's text, a line and a bit above the body, in a smaller size.
      { text: 'Ashby Water Board · Annual Report', left: 72, right: 300, top: 40, bottom: 49 },
      ...body.map((text, i) => ({ text, left: 72, right: 330, top: 66 + i * 15, bottom: 78 + i * 15 })),
    ];
    const passage = body.join(' ');
    expect(spansToMark(spans, passage).map((i) => spans[i]!.text)).toEqual(body);
    // The passage starting inside a line of the body: that line is marked.
    const straddling = [
      { text: 'the year before. Annual report of the', left: 72, right: 330, top: 51, bottom: 63 },
      ...spans.slice(1).map((s, i) => (i === 0 ? { ...s, text: 'water board on the' } : s)),
    ];
    expect(
      spansToMark(straddling, `Annual report of the ${passage.slice('Annual report of the '.length)}`).map((i) => straddling[i]!.text),
    ).toEqual(['the year before. Annual report of the', 'water board on the', ...body.slice(1)]);
  });

  it('follows a passage that runs on into the next column, and no further', () => {
    const a = ['The committee met in March to discuss', 'the budget of the regional harbour'];
    const b = ['authority and its plans for dredging', 'the northern channel before winter.', 'Unrelated notes follow in this column'];
    const spans = [
      ...a.map((text, i) => ({ text, left: 36, right: 290, top: 700 + i * 12, bottom: 710 + i * 12 })),
      ...b.map((text, i) => ({ text, left: 320, right: 580, top: 80 + i * 12, bottom: 90 + i * 12 })),
    ];
    const marked = spansToMark(
      spans,
      'The committee met in March to discuss the budget of the regional harbour authority and its plans for dredging the northern channel before winter.',
    );
    expect(marked.map((i) => spans[i]!.text)).toEqual([...a, ...b.slice(0, 2)]);
  });

  it('marks short-word spans by the passage start and end, and only those that belong to it', () => {
    const words = ['a', 'cat', 'sat', 'on', 'the', 'mat', 'by', 'a', 'dog'].map((w, i) => ({
      text: w,
      left: i * 20,
      right: i * 20 + 15,
      top: 0,
      bottom: 10,
    }));
    expect(spansToMark(words, 'sat on the mat')).toEqual([2, 3, 4, 5]);
    expect(spansToMark(words, '')).toEqual([]);
  });
});

describe('the engine’s next steps, as the app says them (inApp)', () => {
  it('names the view and button where the app has one, and says a command is for a terminal where it has none', async () => {
    const { inApp } = await import('../src/renderer/lib/in-app.js');
    const { waitingForSpeechModel } = await import('../src/worker/ingest/binary.js');
    const { VECTOR_UNAVAILABLE } = await import('../src/worker/search/search.js');
    const { embeddingPullFailed, speechPullFailed } = await import('../src/worker/models/offline-help.js');
    const { KbError } = await import('../src/shared/errors.js');
    const { MODELS } = await import('../src/worker/embed/registry.js');
    const { WHISPER_MODELS } = await import('../src/worker/audio/whisper-models.js');
    const offline = new KbError('UNREADABLE', 'cannot reach the hub');
    const said = [
      waitingForSpeechModel('whisper-base.en'),
      VECTOR_UNAVAILABLE,
      (embeddingPullFailed(offline, MODELS[0]!, { url: 'https://hub' }) as Error).message,
      (speechPullFailed(offline, WHISPER_MODELS[0]!, { url: 'https://hub' }) as Error).message,
      '1 of 3 documents (kb ls says why)',
      'whisper-base.en is not installed, so audio and video are not transcribed (kb models pull whisper-base.en, or kb models import FILE)',
      'all-MiniLM-L6-v2: 10 vectors for 12 chunks (run: kb reindex, or any ingest, to bring them in step)',
      'Ollama 0.5 at http://127.0.0.1:11434, but llama3.2 is not pulled (run: ollama pull llama3.2); kb ask shows sources only',
    ].map(inApp);
    expect(said[0]).toBe('waiting for a speech model: get whisper-base.en under Models (or import a model file there)');
    expect(said[1]).toMatch(/get all-MiniLM-L6-v2 under Models/);
    expect(said[2]).toMatch(/import it under Models › Import a model, as all-MiniLM-L6-v2$/);
    expect(said[4]).toBe('1 of 3 documents (the Library says why)');
    expect(said[7]).toMatch(/\(in a terminal: ollama pull llama3\.2\); Ask shows sources only$/);
    for (const s of said) expect(s).not.toMatch(/\bkb (models|ls|reindex|ingest|ask)\b/);
    // A setting with a field is named by its field, not by its config key or variable.
    expect(said[2]).toMatch(/Behind a mirror, set it under Settings › Model hub/);
    const { findFfmpeg } = await import('../src/worker/audio/decode.js');
    let ffmpeg = '';
    try {
      findFfmpeg('/no/such/ffmpeg');
    } catch (e) {
      ffmpeg = inApp((e as Error).message);
    }
    expect(ffmpeg).toBe('ffmpeg was not found at /no/such/ffmpeg (Settings › ffmpeg); audio cannot be decoded');
    expect(
      inApp('Ollama is not running at http://127.0.0.1:9. Start it with: ollama serve (or point KB_OLLAMA_HOST / ask.ollama_host at it)'),
    ).toBe('Ollama is not running at http://127.0.0.1:9. Start it with: ollama serve (or set its address under Settings)');
    expect(inApp('models.import: as: a model name (letters, digits, . _ -)')).toBe('a model name (letters, digits, . _ -)');
    for (const s of [...said, ffmpeg]) expect(s).not.toMatch(/KB_[A-Z_]+|audio\.ffmpeg_path|ask\.ollama_host|models\.hub_endpoint/);
  });
});

describe("the rendition's one script (shared/view-keys.ts)", () => {
  it('is the script its CSP hash names', async () => {
    const { createHash } = await import('node:crypto');
    const { VIEW_KEYS_HASH, VIEW_KEYS_SCRIPT } = await import('../src/shared/view-keys.js');
    expect(VIEW_KEYS_HASH).toBe(`'sha256-${createHash('sha256').update(VIEW_KEYS_SCRIPT).digest('base64')}'`);
  });
});

describe('a very long line in the viewer (lib/long-line.ts)', () => {
  it('shows the stretch around the cited passage, marked, never the whole line', async () => {
    const { lineShown, LONG_LINE } = await import('../src/renderer/lib/long-line.js');
    const words = Array.from({ length: 400_000 }, (_, i) => `w${i}`).join(' ');
    const passage = words.slice(1_000_000, 1_002_400);
    const s = lineShown(words, passage);
    expect(s.marked).toBe(passage.trim());
    expect(s.before.length + s.marked.length + s.after.length).toBeLessThan(7_000);
    expect(s.cut).toBe(true);
    // Not found (another version of the file): its start, cut.
    expect(lineShown(words, 'nowhere in it').before).toHaveLength(2_000);
    // An ordinary line is shown as it is.
    expect(lineShown('short line', 'short')).toEqual({ before: 'short line', marked: '', after: '', cut: false });
    expect(LONG_LINE).toBeGreaterThan(10_000);
  });

  it('marks the characters the citation names, where the same words stand earlier too', async () => {
    const { lineShown } = await import('../src/renderer/lib/long-line.js');
    const line = 'same words here. '.repeat(3_000);
    const at = 17 * 2_000;
    const s = lineShown(line, 'same words here.', [at + 1, at + 16]);
    expect(s.marked).toBe('same words here.');
    expect(s.before.endsWith(line.slice(at - 50, at))).toBe(true);
    expect(s.before.length).toBeLessThan(at);
  });
});

describe("a dropped file's citation (lib/shown-path.ts)", () => {
  it("cites the file by its path in the drop, never kb's private copy; a file read where it lives by its own URI", async () => {
    const { citationShown, droppedAs } = await import('../src/renderer/lib/shown-path.js');
    const copy = '/home/u/.local/share/kb/uploads/0123456789abcdef/docs/Q3 report.pdf';
    expect(droppedAs(copy)).toBe('docs/Q3 report.pdf');
    expect(citationShown(`file://${copy.replace(/ /g, '%20')}#page=7`, copy)).toBe('docs/Q3%20report.pdf#page=7');
    expect(citationShown('file:///home/u/notes/a.md#L3-L9', '/home/u/notes/a.md')).toBe('file:///home/u/notes/a.md#L3-L9');
    // A folder that happens to be called uploads, without kb's hash folder, is the person's own.
    expect(droppedAs('/home/u/uploads/a.md')).toBeNull();
  });
});

describe('counts (lib/numbers.ts)', () => {
  it('writes every count one way, with thousands separated', async () => {
    const { count, num } = await import('../src/renderer/lib/numbers.js');
    expect(num(140502)).toBe('140,502');
    expect(count(1, 'document')).toBe('1 document');
    expect(count(1234, 'document')).toBe('1,234 documents');
    expect(count(2, 'passage', 'passages')).toBe('2 passages');
  });
});

describe('hits of files with one name (lib/same-names.ts)', () => {
  it('tells them apart by the fewest folders that differ, and leaves a name of its own alone', async () => {
    const { folderHints } = await import('../src/renderer/lib/same-names.js');
    const hints = folderHints([
      '/n/big/note1.md',
      '/n/big2/note1.md',
      '/n/big/alone.md',
      '/a/x/readme.md',
      '/b/x/readme.md',
      '/n/big/note1.md',
    ]);
    expect(hints.get('/n/big/note1.md')).toBe('big');
    expect(hints.get('/n/big2/note1.md')).toBe('big2');
    expect(hints.has('/n/big/alone.md')).toBe(false);
    expect(hints.get('/a/x/readme.md')).toBe('a/x');
    expect(hints.get('/b/x/readme.md')).toBe('b/x');
    // Two drops of one name differ only by kb's content folder: nothing worth saying.
    expect(folderHints(['/d/uploads/0123456789abcdef/todo.txt', '/d/uploads/fedcba9876543210/todo.txt']).size).toBe(0);
  });
});

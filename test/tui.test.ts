// kb tui's Ink app over a real engine (ink-testing-library renders it to a string): typing searches,
// the preview shows the cited lines marked, ↓ moves, Enter opens the editor at the line, Ctrl-Y copies
// the citation, ? shows the keys, Tab filters by type, Esc quits.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { render } from 'ink-testing-library';
import { createElement } from 'react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TuiApp, type TuiProps } from '../src/cli/tui/App.js';
import type { Launch } from '../src/cli/tui/editor.js';
import { filtersOf } from '../src/cli/tui/filters.js';
import { type Engine, openEngine } from '../src/worker/index.js';
import { startOllamaStub } from './support/ollama-stub.js';
import { kb, writeTree } from './helpers.js';

let dir: string;
let engine: Engine;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kb-tui-'));
  // Sections long enough to be chunks of their own, so a hit cites a few lines of a long file.
  const section = (name: string, extra = ''): string =>
    `## ${name}\n\n${Array.from({ length: 14 }, (_, i) => `${name} line ${i + 1}: the tide came in and went out again over the flats.`).join('\n')}\n${extra}`;
  await writeTree(dir, {
    'notes/field.md': `# Field notes\n\n${section('Monday')}\n${section('Tuesday', 'The walrus hauled out on the ice floe at dawn.\n')}\n${section('Wednesday')}`,
    'notes/other.txt': 'A heron stood in the reeds; no walrus here, only birds.\n',
    'code/walrus.py': 'def walrus_count(herd):\n    return len(herd)\n',
  });
  engine = await openEngine({ dataDir: join(dir, 'data') });
  await engine.ingest([join(dir, 'notes')], { tags: ['field'] });
  await engine.ingest([join(dir, 'code')]);
});
afterAll(async () => {
  engine?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function start(extra: Partial<TuiProps> = {}) {
  const runs: { launch: Launch; wait: boolean }[] = [];
  const copies: string[] = [];
  const app = render(
    createElement(TuiApp, {
      search: (p) => engine.search(p),
      get: (t) => engine.get(t, 20_000),
      run: async (launch, { wait }) => void runs.push({ launch, wait }),
      copy: (t) => void copies.push(t),
      editor: 'vim',
      platform: 'linux',
      ...extra,
    }),
  );
  const frame = (): string => app.lastFrame() ?? '';
  const type = async (s: string): Promise<void> => {
    for (const ch of s) {
      app.stdin.write(ch);
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  return { app, frame, type, runs, copies };
}

describe('kb tui', () => {
  it('searches as you type, and previews the cited lines numbered with the hit marked', async () => {
    const t = start();
    await t.type('walrus hauled ice');
    await expect.poll(t.frame).toMatch(/› Field notes \(markdown\)/);
    const top = (await engine.search({ query: 'walrus hauled ice', top: 1 })).results[0]!;
    const c = top.citation as { kind: string; start: number; end: number };
    expect(c.kind).toBe('lines');
    expect(t.frame()).toContain(`field.md · L${c.start}–${c.end}`);
    // The preview: the cited lines numbered and marked with the gutter bar, scrolled to the line with
    // the words (the citation is longer than the pane); the lines after the citation are not marked.
    await expect.poll(t.frame).toMatch(new RegExp(`▌\\s*${c.end} The walrus hauled out on the ice floe at dawn\\.`));
    expect(t.frame()).toMatch(new RegExp(`▌\\s*${c.end - 1} `));
    expect(t.frame()).toMatch(new RegExp(`  ${c.end + 2} ## Wednesday`));
    t.app.unmount();
  });

  it('moves with ↓, opens the source at its line in the editor with Enter, and copies the citation with Ctrl-Y', async () => {
    const t = start({ initialQuery: 'walrus' });
    await expect.poll(t.frame).toMatch(/walrus/);
    await expect.poll(() => (t.frame().match(/\(markdown\)|\(note\)|\(code\)/g) ?? []).length).toBeGreaterThan(1);
    const selectedLine = (): string | undefined =>
      t
        .frame()
        .split('\n')
        .find((l) => l.startsWith('›'));
    const first = selectedLine();
    t.app.stdin.write('\x1B[B'); // ↓
    await expect.poll(selectedLine).not.toBe(first);
    t.app.stdin.write('\x1B[A'); // ↑
    await expect.poll(selectedLine).toBe(first);
    const hits = await engine.search({ query: 'walrus', top: 20 });
    const top = hits.results[0]!;
    t.app.stdin.write('\r');
    await expect.poll(() => t.runs.length).toBe(1);
    const c = top.citation as { kind: string; start: number };
    expect(t.runs[0]).toEqual({ launch: { command: 'vim', args: [`+${c.start}`, top.citation.path] }, wait: true });
    t.app.stdin.write('\x19'); // Ctrl-Y
    await expect.poll(() => t.copies).toEqual([top.citation.uri]);
    await expect.poll(t.frame).toMatch(/copied file:\/\//);
    t.app.unmount();
  });

  it('says when nothing matches, naming the filter; on an empty index, how to add files', async () => {
    const t = start({ indexEmpty: async () => !(await engine.anyIndexed()) });
    await t.type('zzyzx');
    await expect.poll(t.frame).toMatch(/No hits for “zzyzx”\./);
    t.app.unmount();
    const d = await mkdtemp(join(tmpdir(), 'kb-empty-'));
    const none = await openEngine({ dataDir: join(d, 'data') });
    try {
      const u = render(
        createElement(TuiApp, {
          search: (p) => none.search(p),
          get: (x) => none.get(x),
          run: async () => undefined,
          copy: () => undefined,
          editor: null,
          indexEmpty: async () => !(await none.anyIndexed()),
        }),
      );
      // Said at the start, and again when a search finds nothing.
      await expect.poll(() => u.lastFrame() ?? '').toMatch(/Nothing is indexed yet\.[\s\S]*kb add ~\/notes/);
      u.stdin.write('walrus');
      await expect.poll(() => u.lastFrame() ?? '').toMatch(/kb walrus\n0 of 0[\s\S]*Nothing is indexed yet\./);
      u.unmount();
    } finally {
      none.close();
      await rm(d, { recursive: true, force: true });
    }
  });

  it('takes a paste as one line of the query: its newlines open nothing', async () => {
    const t = start();
    t.app.stdin.write('\x1b[200~walrus\nhauled\r\n\tice\x1b[201~'); // bracketed paste
    await expect.poll(t.frame).toMatch(/^kb walrus hauled ice/);
    await expect.poll(t.frame).toMatch(/› Field notes \(markdown\)/);
    expect(t.runs).toEqual([]);
    t.app.unmount();
  });

  it('opens a hit that is not text with the system opener, and without an editor a text file too', async () => {
    const t = start({ initialQuery: 'walrus', editor: null });
    await expect.poll(t.frame).toMatch(/› /);
    t.app.stdin.write('\r');
    await expect.poll(() => t.runs.length).toBe(1);
    expect(t.runs[0]!.launch.command).toBe('xdg-open');
    expect(t.runs[0]!.wait).toBe(false);
    t.app.unmount();
  });

  it('filters by type with Tab, shows the keys with ?, and quits with Esc', async () => {
    const t = start();
    await t.type('?');
    await expect.poll(t.frame).toMatch(/kb tui — keys[\s\S]*Enter[\s\S]*OSC 52/);
    t.app.stdin.write('x'); // any key closes the help
    await expect.poll(t.frame).not.toMatch(/kb tui — keys/);
    await t.type('walrus');
    await expect.poll(t.frame).toMatch(/walrus\.py|field\.md/);
    for (let i = 0; i < 3; i++) t.app.stdin.write('\t'); // all → markdown → note → code
    await expect.poll(t.frame).toMatch(/type: code · 1 of 1/);
    expect(t.frame()).toMatch(/walrus\.py/);
    expect(t.frame()).not.toMatch(/field\.md · L/);
    t.app.stdin.write('\x1B');
    await expect.poll(() => t.frame()).toBeDefined();
    t.app.unmount();
  });
});

describe('kb tui beside the app', () => {
  it('searches an index another process is writing: what the app adds meanwhile is found', async () => {
    const app = await openEngine({ dataDir: join(dir, 'data') });
    try {
      const t = start();
      await t.type('narwhal');
      await expect.poll(t.frame).toMatch(/0 of 0/);
      await writeTree(dir, { 'later/arctic.md': '# Arctic\n\nA narwhal surfaced by the ice edge.\n' });
      await app.ingest([join(dir, 'later')]);
      t.app.stdin.write(' '); // the same query again, as the next keystroke sends it
      await expect.poll(t.frame).toMatch(/› Arctic \(markdown\)/);
      await expect.poll(t.frame).toMatch(/▌\s*3 A narwhal surfaced by the ice edge\./);
      t.app.unmount();
      await app.remove(join(dir, 'later/arctic.md'));
    } finally {
      app.close();
    }
  });
});

describe('kb tui filters', () => {
  it('cycles through the types the index holds, then its tags, with Tab; Shift-Tab goes back', async () => {
    const t = start({ filters: async () => filtersOf(await engine.facets()) });
    await t.type('walrus');
    await expect.poll(t.frame).toMatch(/walrus\.py/);
    // all → markdown → note → code → #field: only the types there are (no pdf, no audio…), then tags.
    for (const want of [/type: markdown · /, /type: note · /, /type: code · 1 of 1/, /tag: #field · /]) {
      t.app.stdin.write('\t');
      await expect.poll(t.frame).toMatch(want);
    }
    await expect.poll(t.frame).toMatch(/field\.md · L/);
    expect(t.frame()).not.toMatch(/walrus\.py/);
    t.app.stdin.write('\t'); // round to everything
    await expect.poll(t.frame).not.toMatch(/tag: #field/);
    await expect.poll(t.frame).toMatch(/walrus\.py/);
    t.app.stdin.write('\x1B[Z'); // Shift-Tab: back to the last, the tag
    await expect.poll(t.frame).toMatch(/tag: #field · /);
    // Only the code has a herd, and it is not tagged: nothing found says which filter hid it.
    t.app.stdin.write('\x15');
    await t.type('herd');
    await expect.poll(t.frame).toMatch(/No hits for “herd” \(tag: #field — Tab for the\s+others\)\./);
    t.app.unmount();
  });

  it('offers the types the index holds and its tags, the most used tag first', async () => {
    expect(await engine.facets()).toEqual({ types: ['markdown', 'note', 'code'], tags: [{ name: 'field', documents: 2 }] });
    expect(filtersOf({ types: ['pdf'], tags: [{ name: 'b' }, { name: 'a' }] })).toEqual([{}, { type: 'pdf' }, { tag: 'b' }, { tag: 'a' }]);
  });

  it('leaves out what only failed documents have: a filter that could find nothing', async () => {
    const d = await mkdtemp(join(tmpdir(), 'kb-facets-'));
    try {
      await writeTree(d, { 'docs/broken.pdf': 'not a pdf at all', 'docs/ok.md': '# Fine\n\nwords here\n' });
      const e = await openEngine({ dataDir: join(d, 'data') });
      await e.ingest([join(d, 'docs/broken.pdf')], { tags: ['broken'] });
      await e.ingest([join(d, 'docs/ok.md')], { tags: ['fine'] });
      expect((await e.list()).find((x) => x.type === 'pdf')?.status).toBe('failed');
      expect(await e.facets()).toEqual({ types: ['markdown'], tags: [{ name: 'fine', documents: 1 }] });
      e.close();
    } finally {
      await rm(d, { recursive: true, force: true });
    }
  });
});

describe('kb tui asks', () => {
  it('streams the answer to the query asked as a question, its sources numbered; Enter opens one, Esc goes back', async () => {
    const stub = await startOllamaStub({
      chat: { tokens: ['The walrus hauled out', ' on the ice floe at dawn [1].', ' The tide went out [2].'] },
    });
    const asker = await openEngine({ dataDir: join(dir, 'data'), config: { ask: { ollama_host: stub.url } } });
    try {
      // The same question asked outright: what [2] will be.
      const second = (await asker.ask({ question: 'walrus hauled ice' })).sources.find((s) => s.n === 2)!.hit;
      const t = start({ ask: (question, o) => asker.ask({ question, ...o }) });
      await t.type('walrus hauled ice');
      await expect.poll(t.frame).toMatch(/› Field notes/);
      t.app.stdin.write('\x01'); // Ctrl-A
      await expect.poll(t.frame).toMatch(/Q: walrus hauled ice/);
      // The answer wraps in its pane (55 of 100 columns; the preview of the chosen source beside it).
      await expect.poll(t.frame).toMatch(/The walrus hauled out on the ice floe at\s.*\n.*dawn \[1\]\. The tide went out \[2\]\./);
      await expect.poll(t.frame).toMatch(/\[1\] field\.md · L\d+/);
      expect(t.frame()).toMatch(/llama3\.2 · \d+ ms/);
      // Both cited sources carry a dot; the first is chosen, and previewed beside the answer.
      expect(t.frame()).toMatch(/›•\[1\] field\.md/);
      expect(t.frame()).toMatch(/ •\[2\] /);
      t.app.stdin.write('\r');
      await expect.poll(() => t.runs.length).toBe(1);
      expect(t.runs[0]!.launch.args[1]).toBe(join(dir, 'notes/field.md'));
      // 2 jumps to [2]: its passage previewed (its label is the preview's title), Enter opens it there.
      const label = second.citation.label!;
      t.app.stdin.write('2');
      await expect.poll(t.frame).toMatch(/›•\[2\] /);
      await expect.poll(() => t.frame().split(label).length - 1).toBe(2); // the preview follows
      t.app.stdin.write('\r');
      await expect.poll(() => t.runs.length).toBe(2);
      const c = second.citation as { kind: string; start?: number; path: string };
      expect(t.runs[1]!.launch.args).toEqual(c.kind === 'lines' ? [`+${c.start}`, c.path] : [c.path]);
      t.app.stdin.write('\x1B');
      await expect.poll(t.frame).toMatch(/› Field notes/);
      t.app.unmount();
    } finally {
      asker.close();
      await stub.close();
    }
  });

  it('says when the documents do not hold the answer, and when Ollama is not running', async () => {
    // A port nothing listens on (fetch refuses well-known ones like 9 outright).
    const port = await new Promise<number>((r) => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as AddressInfo).port;
        srv.close(() => r(p));
      });
    });
    const down = await openEngine({ dataDir: join(dir, 'data'), config: { ask: { ollama_host: `http://127.0.0.1:${port}` } } });
    try {
      const t = start({ ask: (question, o) => down.ask({ question, ...o }) });
      await t.type('who won the football world cup');
      await expect.poll(t.frame).toMatch(/searching…|of \d+|0 of 0/);
      t.app.stdin.write('\x01');
      await expect.poll(t.frame).toMatch(/Not in your documents/);
      t.app.stdin.write('\x1B');
      await expect.poll(t.frame).not.toMatch(/Q: who won/); // back to the hits (an Esc alone, not Alt+the next key)
      t.app.stdin.write('\x15'); // Ctrl-U
      await t.type('walrus hauled ice');
      await expect.poll(t.frame).toMatch(/› Field notes/);
      t.app.stdin.write('\x01');
      // Said in the answer's pane, wrapped there (the first source previewed beside it).
      await expect.poll(t.frame).toMatch(new RegExp(`Ollama is not running at .*\\nhttp://127\\.0\\.0\\.1:${port}\\.`));
      expect(t.frame()).toMatch(/the sources kb\s.*\n.*found are below/);
      expect(t.frame()).toMatch(/\[1\] field\.md/);
      t.app.unmount();
    } finally {
      down.close();
    }
  });
});

describe('kb tui without a terminal', () => {
  it('says it needs one and points at kb search', () => {
    const r = kb(['tui', 'walrus'], { env: { KB_DATA_DIR: join(dir, 'data'), KB_CONFIG: join(dir, 'none.yaml') } });
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/kb tui needs a terminal.*kb search QUERY/);
  });
});

// The desktop app's package, checked without an Electron binary (none can be downloaded here).
// electron-builder packs the app for this platform as an unpacked directory (--dir) around a
// stand-in Electron; the app.asar it wrote is read with @electron/asar and laid out as Electron reads
// it (the archive, with app.asar.unpacked over it). Then the packaged worker runs under plain Node
// through a day's work — an embedding model, Markdown, a PDF, CJK text in a font it does not embed,
// Word, Excel and PowerPoint files, an e-book, a mail, code, a web page, a scan to read — with every file it or its threads load or read
// noted (support/trace-loads.mjs): all of them come from the package, its native code from beside the
// archive; and the package's own `kb` command line searches what it indexed. Nothing but production
// dependencies is in. The installers themselves are built by the release workflow.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { extractAll, listPackage } from '@electron/asar';
import { createCanvas } from '@napi-rs/canvas';
import { describe, expect, it } from 'vitest';
import { utilityWorker } from '../src/main/worker-process.js';
import { Supervisor } from '../src/shared/supervisor.js';
import { NATIVE_MODULES } from '../packaging/config.js';
import { packDir } from '../packaging/pack-dir.js';
import { electronViteBin } from '../tools/electron-tools.mjs';
import { pdfjsData } from '../src/worker/ingest/pdfjs-data.js';
import { docx, eml, epub, pptx, xlsx } from './support/format-fixtures.js';
import { CJK_FONTS, makePdf, unembeddedCjkPdf } from './support/make-test-pdf.js';
import { makeTestModel } from './support/make-test-model.js';
import { nodeFork } from './support/node-fork.js';
import { repoRoot, tempDir, writeTree } from './helpers.js';

const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  version: string;
  devDependencies: Record<string, string>;
};
/** A scanned page: black words on white, for OCR. */
function scan(words: string): Buffer {
  const c = createCanvas(900, 200);
  const g = c.getContext('2d');
  g.fillStyle = '#fff';
  g.fillRect(0, 0, 900, 200);
  g.fillStyle = '#000';
  g.font = '48px sans-serif';
  g.fillText(words, 40, 120);
  return c.toBuffer('image/png');
}

/** The worker of an app laid out in `app` (its out/main/worker.js) through a day's work, noting every file it loads; those files. */
async function filesTheWorkerLoads(app: string, data: string): Promise<string[]> {
  const work = await tempDir();
  const trace = join(work, 'trace.txt');
  const docs = join(work, 'docs');
  await writeTree(docs, {
    'notes.md': '# Heron\n\nThe grey heron waits in the shallows for fish.\n',
    'tool.py': 'def heron_count(birds):\n    """How many herons."""\n    return len([b for b in birds if b == "heron"])\n',
    'page.html': '<html><head><title>Herons</title></head><body><h1>Herons</h1><p>Wading birds of the marsh.</p></body></html>',
  });
  writeFileSync(join(docs, 'guide.pdf'), await makePdf({ pages: [{ lines: ['Page one is about the heron and its nest.'] }] }));
  // CJK text in a font the PDF does not embed: read through pdf.js's CMaps.
  writeFileSync(join(docs, 'tokyo.pdf'), unembeddedCjkPdf(['東京の電車はいつも混んでいる', '日本語の文書です'], CJK_FONTS.japanese));
  writeFileSync(join(docs, 'report.docx'), await docx([{ text: 'The report counts herons by the river.' }]));
  writeFileSync(
    join(docs, 'counts.xlsx'),
    await xlsx([
      {
        name: 'Birds',
        rows: [
          ['bird', 'count'],
          ['heron', 12],
        ],
      },
    ]),
  );
  writeFileSync(join(docs, 'talk.pptx'), await pptx([{ title: 'Herons', body: ['Where the herons nest'] }]));
  writeFileSync(join(docs, 'guide.epub'), await epub([{ title: 'Herons', paras: ['A book chapter about herons.'] }]));
  writeFileSync(
    join(docs, 'sighting.eml'),
    eml({
      from: 'a@example.org',
      to: 'b@example.org',
      subject: 'Heron seen',
      date: 'Fri, 27 Nov 2026 10:00:00 +0000',
      id: 'h1@example.org',
      body: 'A heron by the pond.',
      html: '<p>A <b>heron</b> by the pond.</p>',
    }),
  );
  writeFileSync(join(docs, 'scan.png'), scan('herons nest in tall trees'));
  const model = makeTestModel({ arch: 'tiny', out: join(work, 'model'), sentenceTransformers: { pooling: 'mean' } });
  const hook = join(repoRoot, 'test/support/trace-loads.mjs');
  const w = utilityWorker(
    nodeFork({ execArgv: ['--import', hook], env: { ...process.env, KB_TRACE_LOADS: trace } }),
    join(app, 'out/main/worker.js'),
    data,
  );
  const sup = new Supervisor(() => w);
  await sup.start();
  try {
    await sup.request('models.import', { path: model, as: 'tiny' }).result;
    await sup.request('models.use', { name: 'tiny' }).result;
    const s = await sup.request('ingest', { paths: [docs] }).result;
    expect(s.added, JSON.stringify(s.errors)).toBe(11);
    const hits = await sup.request('search', { query: 'heron', mode: 'hybrid' }).result;
    expect(hits.results.length).toBeGreaterThan(0);
    const cjk = await sup.request('search', { query: '電車' }).result;
    expect(cjk.results.map((r) => r.citation.path)).toContain(join(docs, 'tokyo.pdf'));
    const scanned = await sup.request('search', { query: 'tall trees' }).result;
    expect(scanned.results.map((r) => r.citation.path)).toContain(join(docs, 'scan.png'));
  } finally {
    sup.stop();
  }
  return [...new Set(readFileSync(trace, 'utf8').split('\n').filter(Boolean))];
}

describe('the desktop package (electron-builder)', () => {
  it("runs a day of the worker's work from the package alone, its native code unpacked, its kb command too, and holds no dev dependency", async () => {
    execFileSync(process.execPath, [electronViteBin(repoRoot), 'build'], { cwd: repoRoot, stdio: 'ignore' });
    const resources = await packDir(repoRoot, await tempDir());
    expect(existsSync(join(resources, 'app.asar')), resources).toBe(true);
    const inAsar = new Set(
      listPackage(join(resources, 'app.asar'), { isPack: false }).map((f) => f.split(sep).join('/').replace(/^\//, '')),
    );
    const unpacked = join(resources, 'app.asar.unpacked');
    // The app as Electron reads it: the archive's files, the unpacked ones taken from beside it.
    const app = await tempDir();
    extractAll(join(resources, 'app.asar'), app);
    const data = join(await tempDir(), 'data');
    const loaded = await filesTheWorkerLoads(app, data);

    // Nothing came from the checkout: a file the package lacks would have been found nowhere (Node
    // does not look above the app's folder), not quietly taken from here.
    const notNode = (f: string): boolean => !f.startsWith(join(repoRoot, '.tools') + sep) && !f.startsWith(join(repoRoot, 'test') + sep);
    expect(loaded.filter((f) => f.startsWith(repoRoot + sep) && notNode(f))).toEqual([]);
    const ours = loaded
      .filter((f) => f.startsWith(app + sep))
      .map((f) => relative(app, f).split(sep).join('/'))
      // Node looks for package.json files that need not exist (a folder's module type).
      .filter((f) => existsSync(join(app, f)));
    expect(ours).toContain('out/main/worker.js');
    expect(ours.some((f) => f.endsWith('.wasm'))).toBe(true); // tree-sitter's grammar, tesseract's core
    expect(ours.some((f) => f.includes('traineddata'))).toBe(true); // tesseract's language data
    expect(ours.some((f) => f.startsWith('node_modules/onnxruntime-node/') && f.endsWith('.node'))).toBe(true);
    expect(ours.some((f) => f.startsWith('node_modules/pdfjs-dist/cmaps/'))).toBe(true); // read on a parse thread
    // Native code the operating system loads is a real file, outside the archive.
    const native = ours.filter((f) => f.endsWith('.node') || /\.(so|dylib|dll)(\.\d+)*$/.test(f));
    expect(native.length).toBeGreaterThan(0);
    expect(native.filter((f) => !existsSync(join(unpacked, f)))).toEqual([]);
    // pdf.js's data, all of it, whichever a PDF asks for: CMaps, standard fonts, image decoders, colour profiles.
    for (const folder of Object.values(pdfjsData()).filter((v): v is string => typeof v === 'string')) {
      const inPackage = join(app, relative(repoRoot, folder));
      expect(readdirSync(inPackage).sort(), folder).toEqual(readdirSync(folder).sort());
    }

    // The package's own command line (what resources/bin/kb runs) searches what its worker indexed.
    const cli = (args: string[]): string =>
      execFileSync(process.execPath, [join(app, 'bin/kb.js'), ...args], { encoding: 'utf8', env: { ...process.env, KB_DATA_DIR: data } });
    expect(cli(['--version']).trim()).toBe(pkg.version);
    const found = JSON.parse(cli(['search', 'heron', '--json'])) as { results: { citation: { path: string } }[] };
    expect(found.results.map((r) => r.citation.path).some((p) => p.endsWith('notes.md'))).toBe(true);

    // Every listed native module is in, unpacked; and a native module not listed would be a surprise.
    const nativePackages = new Set(
      [...inAsar]
        .filter((f) => f.endsWith('.node'))
        .map((f) => /^node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(f)?.[1])
        .filter((p): p is string => p !== undefined),
    );
    for (const m of NATIVE_MODULES) expect(existsSync(join(unpacked, 'node_modules', m)), m).toBe(true);
    const platformPackages = (name: string): boolean => NATIVE_MODULES.some((m) => name === m || name.startsWith(`${m}-`));
    expect([...nativePackages].filter((p) => !platformPackages(p))).toEqual([]);

    // Only production dependencies: none of the tools kb is built and tested with. (electron-builder
    // lays node_modules out its own way, so packages are compared by name.)
    const names = (args: string[]): Set<string> =>
      new Set(
        execFileSync('npm', ['ls', '--all', '--parseable', ...args], { cwd: repoRoot, encoding: 'utf8' })
          .split('\n')
          .map((l) => /node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)$/.exec(l)?.[1]?.replace('\\', '/'))
          .filter((n): n is string => n !== undefined),
      );
    const production = names(['--omit=dev']);
    const devOnly = [...names([])].filter((n) => !production.has(n));
    const packaged = new Set(
      [...inAsar]
        .map((f) => /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\/package\.json$/.exec(f)?.[1])
        .filter((n): n is string => n !== undefined),
    );
    expect(devOnly.length).toBeGreaterThan(100);
    expect(devOnly.filter((n) => packaged.has(n))).toEqual([]);
    expect([...packaged].filter((n) => !production.has(n))).toEqual([]);
    for (const dev of ['electron', 'electron-builder', 'vite', 'vitest', 'typescript', 'eslint', 'playwright-core', 'tsx'])
      expect(inAsar.has(`node_modules/${dev}/package.json`), dev).toBe(false);
    expect(Object.keys(pkg.devDependencies)).toContain('electron-builder');

    // The app's own pieces, and the kb command beside the archive.
    for (const f of [
      'package.json',
      'bin/kb.js',
      'dist/cli.js',
      'dist/renderer/index.html',
      'out/preload/index.cjs',
      'out/renderer/index.html',
    ])
      expect(inAsar.has(f), f).toBe(true);
    expect([...inAsar].filter((f) => f.endsWith('.map') && !f.startsWith('node_modules/'))).toEqual([]);
    // What main loads besides Electron: the updater, and the README its Help menu opens as a file.
    expect(inAsar.has('node_modules/electron-updater/package.json')).toBe(true);
    expect(existsSync(join(resources, 'README.md'))).toBe(true);
    expect(existsSync(join(resources, 'bin', 'kb'))).toBe(true);
    expect(existsSync(join(resources, 'bin', 'kb.cmd'))).toBe(true);
  }, 600_000);
});

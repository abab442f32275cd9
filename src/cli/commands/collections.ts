// Collections: folders kb keeps in sync. `kb add` brings a folder in and remembers it; `kb watch`
// keeps every collection in sync until Ctrl-C (the app and kb serve do the same while they run).
import { resolve } from 'node:path';
import type { BackgroundEvent } from '../../shared/events.js';
import { SCHEMA_VERSION } from '../../shared/wire.js';
import { type GlobalOptions, splitList, withClient, withEngine } from '../context.js';
import { countBar } from '../progress.js';
import { bold, dim, displayPath, line, printJson, red } from '../output.js';
import { plural } from '../../shared/words.js';

/** What kb watch says when work it did by itself is over. */
const DONE: Record<BackgroundEvent['task'], string> = {
  ocr: 'waiting scans read',
  transcribing: 'waiting audio transcribed',
  embedding: 'vectors brought up to date',
  upgrading: 'the index is upgraded',
};

export async function addCommand(
  folder: string,
  flags: { name?: string; tags?: string; glob?: string; yes?: boolean },
  g: GlobalOptions,
): Promise<number> {
  return withClient(g, async (kb) => {
    const bar = await countBar(g);
    try {
      const r = await kb['collections.add'](
        {
          path: resolve(folder),
          ...(flags.name ? { name: flags.name } : {}),
          tags: splitList(flags.tags),
          ...(flags.glob ? { glob: flags.glob } : {}),
          ...(flags.yes ? { many: true } : {}),
        },
        { onProgress: (p) => (p.phase === 'ingest' ? bar?.update('ingesting', p.done, p.total, p.path) : undefined) },
      );
      bar?.stop();
      if (g.json) printJson(r);
      else {
        line(
          `Added the collection ${bold(r.collection.name)} (${displayPath(r.collection.root)}): ${plural(r.collection.documents, 'document')}, ${r.reconciled.ingested.toLocaleString('en-US')} read now, in ${(r.reconciled.took_ms / 1000).toFixed(1)} s`,
        );
        line(dim('It is kept in sync while the app, kb serve or kb watch runs, and checked on every start.'));
      }
    } finally {
      bar?.stop();
    }
  });
}

export async function collectionsCommand(g: GlobalOptions): Promise<number> {
  return withClient(g, async (kb) => {
    const list = (await kb['collections.list']({})).collections;
    if (g.json) return void printJson({ schema_version: SCHEMA_VERSION, collections: list });
    if (list.length === 0) return void line(`No collections yet. Add a folder with: kb add ~/notes`);
    for (const c of list) {
      const extra = [
        c.failed && red(`${c.failed} failed`),
        c.waiting && `${c.waiting} waiting`,
        c.glob && `glob ${c.glob}`,
        c.tags.length && `tags ${c.tags.join(', ')}`,
      ].filter(Boolean);
      line(
        `${bold(c.name.padEnd(20))} ${String(c.documents).padStart(6)} ${c.documents === 1 ? 'document ' : 'documents'} ${displayPath(c.root)}${extra.length ? dim(`  (${extra.join('; ')})`) : ''}`,
      );
    }
  });
}

export async function forgetCommand(name: string, g: GlobalOptions): Promise<number> {
  return withClient(g, async (kb) => {
    const r = await kb['collections.forget']({ name });
    if (g.json) printJson(r);
    else line(`Forgot ${name}: ${plural(r.removed, 'document')} removed from the index (your files are untouched)`);
  });
}

export async function watchCommand(g: GlobalOptions): Promise<number> {
  return withEngine(g, async (engine) => {
    if ((await engine.collections()).length === 0) return void line('No collections to watch. Add a folder with: kb add ~/notes');
    const rec = await engine.reconcileCollections();
    for (const r of rec) {
      const msg = { schema_version: SCHEMA_VERSION, event: 'reconciled', ...r };
      if (g.json) line(JSON.stringify(msg));
      else
        line(
          dim(`${r.collection}: ${plural(r.files, 'file')}, ${r.ingested} indexed, ${r.removed} removed since last time (${r.took_ms} ms)`),
        );
    }
    const w = await engine.watchCollections({
      onBatch: (e) => {
        if (g.json) line(JSON.stringify({ schema_version: SCHEMA_VERSION, event: 'changed', ...e }));
        else {
          for (const p of e.ingested) line(`${dim(e.collection)} indexed ${displayPath(p)}`);
          for (const p of e.removed) line(`${dim(e.collection)} removed ${displayPath(p)}`);
          for (const x of e.errors) line(`${dim(e.collection)} ${red('failed')} ${displayPath(x.path)}: ${x.message}`);
        }
      },
      onError: (e) => line(red(`watch error: ${e.message}`)),
    });
    // Listening for Ctrl-C before saying it watches: whoever reads that may stop it at once.
    const stopped = new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    if (!g.json) line(`Watching ${(await engine.collections()).map((c) => c.name).join(', ')} (Ctrl-C stops)`);
    else
      line(
        JSON.stringify({ schema_version: SCHEMA_VERSION, event: 'watching', collections: (await engine.collections()).map((c) => c.name) }),
      );
    // Scans left waiting for OCR, recordings whose speech model arrived, passages without vectors.
    engine.keepUp((e) => {
      if (e.phase === 'running') return;
      if (g.json) line(JSON.stringify({ schema_version: SCHEMA_VERSION, event: 'background', ...e }));
      else line(e.phase === 'failed' ? red(`${e.task} failed: ${e.message ?? ''}`) : dim(DONE[e.task]));
    });
    await stopped;
    await w.close();
  });
}

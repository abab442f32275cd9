// Commands that look at or change what is indexed: ls, inspect, remove, gc, init, doctor.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KbError } from '../../shared/errors.js';
import { formatClock } from '../../shared/citation.js';
import { type DocumentSummary, SCHEMA_VERSION } from '../../shared/wire.js';
import { plural } from '../../shared/words.js';
import { CONFIG_FILE, CONFIG_TEMPLATE, resolveSettings } from '../../worker/index.js';
import { type GlobalOptions, withClient } from '../context.js';
import { EXIT, bold, dim, displayPath, line, printJson, red, reportError, yellow } from '../output.js';
import { countBar } from '../progress.js';
import { terminalSafe } from '../terminal-text.js';
import { formatBytes } from '../../shared/bytes.js';

/** Documents asked for at a time: kb ls prints each page as it comes, never holding every document. */
const LS_PAGE = 500;

export async function lsCommand(g: GlobalOptions): Promise<number> {
  return withClient(g, async (kb) => {
    let page = await kb['documents.page']({ sort: 'path', limit: LS_PAGE });
    const counts = page.counts ?? { all: page.total, failed: 0, waiting: 0 };
    // The --json document is written as it goes: the same DocumentList, a document per line.
    if (g.json) process.stdout.write(`{\n  "schema_version": ${SCHEMA_VERSION},\n  "documents": [`);
    else if (counts.all === 0) return void line('Nothing indexed yet. Try: kb ingest ~/notes');
    let shown = 0;
    for (;;) {
      for (const d of page.documents) {
        if (g.json) process.stdout.write(`${shown > 0 ? ',' : ''}\n    ${JSON.stringify(d)}`);
        else lsLine(d);
        shown++;
      }
      const last = page.documents.at(-1);
      if (!last || page.documents.length < LS_PAGE) break;
      page = await kb['documents.page']({ sort: 'path', limit: LS_PAGE, after: last.path });
    }
    if (g.json) return void process.stdout.write(`${shown > 0 ? '\n  ' : ''}]\n}\n`);
    const more = [counts.waiting && `${counts.waiting} waiting`, counts.failed && `${counts.failed} failed`].filter(Boolean);
    line(dim(`${plural(shown, 'document')}${more.length ? ` (${more.join(', ')})` : ''}`));
  });
}

function lsLine(d: DocumentSummary): void {
  // Padded before colouring: escape codes would count as width.
  const word = d.status.padEnd(7);
  const status = d.status === 'failed' ? red(word) : d.status === 'waiting' ? yellow(word) : word;
  const orig = d.original === 'copy' ? 'copy' : d.original_available ? 'ref ' : red('missing');
  // A recording's length before its path (the path stays last, whole, for tools that cut at it).
  const length = d.duration !== undefined ? `${formatClock(d.duration)}  ` : '';
  line(
    `${d.doc_id}  ${status}  ${d.type.padEnd(8)} ${String(d.chunks).padStart(4)} ${d.chunks === 1 ? 'chunk ' : 'chunks'}  ${orig}  ${length}${terminalSafe(displayPath(d.path))}`,
  );
  if (d.reason) line(dim(`    ${terminalSafe(d.reason)}`));
}

export async function inspectCommand(what: string, id: string, g: GlobalOptions): Promise<number> {
  return withClient(g, async (kb) => {
    if (what !== 'doc' && what !== 'chunk')
      throw new KbError('INVALID_ARGUMENT', 'inspect what? use "kb inspect doc ID|PATH" or "kb inspect chunk ID"');
    const record = what === 'doc' ? await kb['inspect.document']({ target: id }) : await kb['inspect.chunk']({ chunk_id: id });
    // The raw records are the point of inspect: the same JSON either way, so nothing is hidden.
    printJson(record);
  });
}

export async function removeCommand(target: string, g: GlobalOptions): Promise<number> {
  return withClient(g, async (kb) => {
    const r = await kb.remove({ target });
    if (g.json) printJson(r);
    else {
      for (const d of r.removed) line(`removed ${terminalSafe(displayPath(d.path))}`);
      // Their stored copies went with them (documents/remove.ts), but a copy another document keeps.
      line(dim(`${plural(r.removed.length, 'document')} removed, with the copies kb kept of them; your files are untouched`));
    }
  });
}

export async function gcCommand(g: GlobalOptions): Promise<number> {
  return withClient(g, async (kb) => {
    const r = await kb.gc({});
    if (g.json) printJson(r);
    else
      line(
        `Removed ${plural(r.removed_blobs, 'unreferenced original')}${r.removed_uploads > 0 ? ` and ${plural(r.removed_uploads, "dropped file's copy", "dropped files' copies")}` : ''}, freed ${formatBytes(r.freed_bytes)}` +
          (r.compacted_bytes > 0 ? `; the index gave back ${formatBytes(r.compacted_bytes)} of free pages` : '') +
          (r.vector_bytes > 0 ? `; the vectors' replaced versions ${formatBytes(r.vector_bytes)}` : ''),
      );
  });
}

/** kb migrate --to URL: this data dir's index copied into PostgreSQL, with a progress bar; Ctrl-C stops it, the next run resumes. */
export async function migrateCommand(flags: { to: string }, g: GlobalOptions): Promise<number> {
  return withClient(g, async (kb) => {
    const bar = await countBar(g);
    const ctl = new AbortController();
    const onSigint = (): void => ctl.abort();
    process.once('SIGINT', onSigint);
    let r;
    try {
      r = await kb['store.migrate']({ to: flags.to }, { signal: ctl.signal, onProgress: (p) => bar?.update('copying', p.done, p.total) });
    } finally {
      process.off('SIGINT', onSigint);
      bar?.stop();
    }
    if (g.json) printJson(r);
    else {
      const before = r.skipped > 0 ? `, ${plural(r.skipped, 'document')} copied by an earlier run` : '';
      line(
        `${r.cancelled ? yellow('Interrupted: ') : ''}Copied ${plural(r.documents, 'document')} (${plural(r.chunks, 'passage')}, ` +
          `${plural(r.originals, 'original')}, ${plural(r.vectors, 'vector')}) into ${r.to}${before}` +
          dim(` in ${(r.took_ms / 1000).toFixed(1)} s`),
      );
      if (r.vectors_skipped) line(yellow(`Vectors not copied: ${r.vectors_skipped}`));
      line(
        r.cancelled
          ? 'Run the same command again to go on where it stopped.'
          : dim(`Use it with: kb --store ${r.to} … (or store.url in config.yaml)`),
      );
    }
    return r.cancelled ? EXIT.partial : EXIT.ok;
  });
}

export async function doctorCommand(g: GlobalOptions, flags: { fix?: boolean } = {}): Promise<number> {
  let code: number = EXIT.ok;
  const r = await withClient(
    g,
    async (kb) => {
      let report;
      if (flags.fix) {
        const fixed = await kb['doctor.fix']({});
        report = fixed.report;
        if (g.json) printJson(fixed);
        else for (const a of fixed.actions) line(`${yellow('fixed')} ${bold(a.name)}: ${a.detail}`);
        if (!g.json && fixed.actions.length === 0) line(dim('nothing to repair'));
      } else report = await kb.doctor({});
      if (g.json && !flags.fix) printJson(report);
      else if (!g.json) {
        for (const c of report.checks) {
          const mark = c.status === 'ok' ? '✓' : c.status === 'warn' ? yellow('!') : red('✗');
          line(`${mark} ${bold(c.name)}: ${c.detail}`);
        }
      }
      if (!report.ok) code = EXIT.error;
    },
    { lenientConfig: !flags.fix },
  );
  return r !== EXIT.ok ? r : code;
}

export async function initCommand(flags: { force?: boolean }, g: GlobalOptions): Promise<number> {
  try {
    const { dataDir } = await resolveSettings(g.dataDir);
    const file = join(dataDir, CONFIG_FILE);
    if (existsSync(file) && !flags.force) throw new KbError('INVALID_ARGUMENT', `${file} already exists (use --force to overwrite)`);
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    await writeFile(file, CONFIG_TEMPLATE, { mode: 0o600 });
    if (g.json) printJson({ schema_version: SCHEMA_VERSION, config: file, data_dir: dataDir });
    else line(`Wrote ${displayPath(file)}. Next: kb ingest ~/notes`);
    return EXIT.ok;
  } catch (e) {
    return reportError(e, g.json === true);
  }
}

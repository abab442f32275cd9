// Reading a cited span back (kb get, the MCP get tool): `notes.md#L12-L34` gives those lines of the
// file (the stored copy when kb keeps one), `paper.pdf#page=3` the indexed text of that page,
// `talk.mp3#t=10,20` the timed transcript of that stretch, `scan.png#xywh=…` the OCR text there.
// The target is a citation URI, a path with a fragment, or a document id with one; no fragment reads
// the whole document. Everything is capped at max_chars.
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { citationLabel, makeCitation, parseCitationUri, pathToFileUri } from '../../shared/citation.js';
import { DOC_ID } from '../../shared/doc-id.js';
import { KbError } from '../../shared/errors.js';
import { plural } from '../../shared/words.js';
import type { Config } from '../../shared/config.js';
import { SCHEMA_VERSION, type Anchor, type Citation, type DocumentSource, type Span } from '../../shared/wire.js';
import { isStructured } from '../../shared/doc-types.js';
import { blockRange, rangeText, wholeAnchor } from './block-span.js';
import { documentBlocks } from './doc-blocks.js';
import { transcriptText } from '../ingest/speech/chunks.js';
import type { Segment } from '../audio/whisper-protocol.js';
import { decodeText } from '../ingest/decode-text.js';
import type { Store } from '../store/port.js';
import type { DocRow } from '../store/rows.js';

export interface SpanContext {
  store: Store;
  config: Config;
  source(docId: string): Promise<DocumentSource>;
}

/** Splits a target into the document it names and the anchor it asks for (null: the whole document). */
async function parseTarget(store: Store, target: string): Promise<{ doc: DocRow; anchor: Anchor | null }> {
  const hash = target.indexOf('#');
  const left = hash < 0 ? target : target.slice(0, hash);
  const frag = hash < 0 ? '' : target.slice(hash + 1);
  let doc: DocRow | undefined;
  if (DOC_ID.test(left)) doc = await store.tables.documents.byId(left);
  else {
    const path = left.startsWith('file://') ? parseCitationUri(`${left}#L1-L1`).path : resolve(left);
    doc = (await store.tables.documents.byPath(path)) ?? (await dropped(store, left));
    if (!doc) throw new KbError('NOT_FOUND', `${path} is not indexed (kb ls lists what is)`);
  }
  if (!doc) throw new KbError('NOT_FOUND', `no document with id ${left}`);
  if (!frag) return { doc, anchor: null };
  let c: Citation;
  try {
    c = parseCitationUri(`${pathToFileUri(doc.path)}#${frag}`);
  } catch {
    throw new KbError(
      'INVALID_ARGUMENT',
      `#${frag} is not a span kb knows: #L12-L34, #L1C4097-L1C8192, #page=3, #t=10,20, #xywh=x,y,w,h, #para=12-18, #slide=7, #row=12-40, #:~:text=…, #epubcfi(…) or #msg=…`,
    );
  }
  const { uri: _u, path: _p, ...anchor } = c;
  return { doc, anchor: anchor as Anchor };
}

/**
 * A file dropped in a browser is cited by its path in the drop (`docs/Q3%20report.pdf#page=7`: the
 * browser never says where it lives): that names the copy kb serve keeps, when one copy has that name.
 */
async function dropped(store: Store, left: string): Promise<DocRow | undefined> {
  if (left.startsWith('file://') || isAbsolute(left)) return undefined;
  let name: string;
  try {
    name = decodeURIComponent(left).replace(/\\/g, '/').replace(/^\.\//, '');
  } catch {
    return undefined;
  }
  // A file's name is at most 255 bytes: a longer one names no dropped file (and LIKE's cost grows with it).
  if (name.split('/').some((part) => Buffer.byteLength(part) > 255)) return undefined;
  const copies = await store.tables.documents.droppedAs(name);
  if (copies.length > 1)
    throw new KbError(
      'INVALID_ARGUMENT',
      `${name} names ${copies.length} files dropped in a browser: cite one by its id (${copies
        .slice(0, 3)
        .map((d) => d.id)
        .join(', ')}), as kb ls lists them`,
    );
  return copies[0];
}

const cap = (text: string, max: number): { text: string; truncated: boolean } =>
  text.length > max ? { text: text.slice(0, max), truncated: true } : { text, truncated: false };

export async function readSpan(ctx: SpanContext, target: string, maxChars = 20_000): Promise<Span> {
  const { doc, anchor } = await parseTarget(ctx.store, target);
  if (doc.status !== 'indexed') throw new KbError('NOT_FOUND', `${doc.path} is not indexed (${doc.error ?? doc.status})`);
  const chunks = (await ctx.store.tables.chunks.ofDoc(doc.id)).map((c) => ({ text: c.text, anchor: JSON.parse(c.anchor) as Anchor }));
  let text: string;
  let stale = false;
  let anchorOut: Anchor;
  const kind = anchor?.kind;
  if (isStructured(doc.type)) {
    const src = await ctx.source(doc.id);
    stale = src.stale;
    const blocks = await documentBlocks({ file: src.file, path: doc.path }, ctx.config, false);
    const range = anchor ? blockRange(blocks, anchor) : null;
    if (anchor && !range) throw new KbError('NOT_FOUND', `nothing at #${target.split('#')[1]} of ${doc.path}`);
    text = rangeText(blocks, range);
    anchorOut = anchor ?? wholeAnchor(blocks, chunks[0]?.anchor) ?? { kind: 'lines', start: 1, end: 1 };
  } else if (doc.type === 'audio') {
    const t = await ctx.store.tables.transcripts.of(doc.id);
    if (!t?.segments)
      throw new KbError('NOT_FOUND', `${doc.path} has no transcript yet (${t?.status ?? 'not queued'}${t?.error ? `: ${t.error}` : ''})`);
    const segs = JSON.parse(t.segments) as Segment[];
    if (anchor && anchor.kind !== 'time')
      throw new KbError('INVALID_ARGUMENT', `${doc.path} is a recording: ask for a time range, #t=start,end`);
    const from = anchor?.kind === 'time' ? anchor.start : 0;
    const to = anchor?.kind === 'time' ? anchor.end : Infinity;
    if (to < from) throw new KbError('INVALID_ARGUMENT', `#${target.split('#')[1]} ends before it starts: ask for #t=start,end`);
    // #t=4 (an instant) reads the line of the transcript playing then, and cites where it starts and ends;
    // a range past the end is cited up to where the transcript ends.
    const instant = anchor?.kind === 'time' && from === to;
    const heard = segs.filter((s) => s.end > from && (s.start < to || s.start === from));
    // Past the end, or in a silence: said, as a page past the last is (an empty span read as a fault).
    if (anchor && heard.length === 0) {
      const length = segs.at(-1)?.end ?? 0;
      const why = from >= length ? `its transcript ends at ${length.toFixed(1)} s` : 'no speech was heard then';
      throw new KbError('NOT_FOUND', `nothing at #${target.split('#')[1]} of ${doc.path}: ${why}`);
    }
    text = transcriptText(heard);
    anchorOut = instant
      ? { kind: 'time', start: heard[0]!.start, end: heard.at(-1)!.end }
      : { kind: 'time', start: from, end: Math.min(to, segs.at(-1)?.end ?? 0) };
  } else if (doc.type === 'pdf' || doc.type === 'image') {
    if (kind === 'lines') throw new KbError('INVALID_ARGUMENT', `${doc.path} has pages, not lines: ask for #page=N`);
    const pick = chunks.filter(({ anchor: a }) => {
      if (!anchor) return true;
      if (anchor.kind === 'page' && a.kind === 'page')
        return a.page <= (anchor.page_end ?? anchor.page) && (a.page_end ?? a.page) >= anchor.page;
      if (anchor.kind === 'region' && a.kind === 'region')
        return a.x < anchor.x + anchor.w && a.x + a.w > anchor.x && a.y < anchor.y + anchor.h && a.y + a.h > anchor.y;
      return false;
    });
    if (anchor && pick.length === 0) throw new KbError('NOT_FOUND', `no indexed text at #${target.split('#')[1]} of ${doc.path}`);
    text = pick.map((c) => c.text).join('\n\n');
    anchorOut = anchor ?? { kind: 'page', page: 1, ...(doc.page_count && doc.page_count > 1 ? { page_end: doc.page_count } : {}) };
  } else {
    if (anchor && anchor.kind !== 'lines') throw new KbError('INVALID_ARGUMENT', `${doc.path} has lines: ask for #L12-L34`);
    const src = await ctx.source(doc.id);
    stale = src.stale;
    const lines = decodeText(readFileSync(src.file)).text.split(/\r?\n/);
    // A final newline ends the last line; it does not start another.
    if (lines.length > 1 && lines.at(-1) === '') lines.pop();
    if (anchor?.kind === 'lines' && anchor.end < anchor.start) {
      throw new KbError(
        'INVALID_ARGUMENT',
        `#L${anchor.start}-L${anchor.end} ends before it starts: did you mean #L${anchor.end}-L${anchor.start}?`,
      );
    }
    const start = anchor?.kind === 'lines' ? Math.max(1, anchor.start) : 1;
    const end = anchor?.kind === 'lines' ? Math.min(lines.length, anchor.end) : lines.length;
    if (start > lines.length) throw new KbError('NOT_FOUND', `${doc.path} has ${plural(lines.length, 'line')}, not ${start}`);
    const picked = lines.slice(start - 1, end);
    // Characters inside a very long line: the first counts on the start line, the last on the end line.
    const cols =
      anchor?.kind === 'lines' && anchor.col_start !== undefined && anchor.col_end !== undefined
        ? { start: anchor.start, end: anchor.end, col_start: anchor.col_start, col_end: anchor.col_end }
        : null;
    if (cols && cols.start === cols.end && cols.col_end < cols.col_start)
      throw new KbError('INVALID_ARGUMENT', `#L${cols.start}C${cols.col_start}-L${cols.end}C${cols.col_end} ends before it starts`);
    if (cols && (lines[start - 1]?.length ?? 0) < cols.col_start)
      throw new KbError(
        'NOT_FOUND',
        `line ${start} of ${doc.path} has ${plural(lines[start - 1]?.length ?? 0, 'character')}, not ${cols.col_start}`,
      );
    if (cols && end === cols.end) {
      picked[picked.length - 1] = picked.at(-1)!.slice(0, cols.col_end);
      picked[0] = picked[0]!.slice(cols.col_start - 1);
    }
    text = picked.join('\n');
    anchorOut =
      cols && end === cols.end
        ? { kind: 'lines', start, end, col_start: cols.col_start, col_end: cols.col_end }
        : { kind: 'lines', start, end };
  }
  const citation = makeCitation(doc.path, anchorOut);
  const c = cap(text, maxChars);
  return {
    schema_version: SCHEMA_VERSION,
    doc_id: doc.id,
    title: doc.title,
    type: doc.type,
    citation: { ...citation, label: citationLabel(citation, doc.path.split(/[\\/]/).pop() ?? doc.path) },
    text: c.text,
    truncated: c.truncated,
    stale,
  };
}

// The stage that turns hits into what the wire carries: each chunk's text, snippet with highlights,
// citation (with its label) and source; a document with no passage yet cited at its start, with why.
import { turn } from '../turns.js';
import { citationLabel, makeCitation } from '../../shared/citation.js';
import type { Config } from '../../shared/config.js';
import { KbError } from '../../shared/errors.js';
import type { Anchor, Citation, Retrieval, SearchHit } from '../../shared/wire.js';
import { docState } from '../store/doc-state.js';
import type { HitsPort, Tables } from '../store/port.js';
import type { HitIn } from './fuse.js';
import { imageBox } from './image-box.js';
import { markdownMask } from './markup.js';
import type { NameMatch } from './names.js';
import { snippetFor } from './snippet.js';

/** The citation with its human label (file name, span, section), as the UI shows it. */
function labelled<C extends Citation>(c: C): C {
  return { ...c, label: citationLabel(c, c.path.split(/[\\/]/).pop() ?? c.path) };
}

/**
 * A hit's chunk gone between finding it and reading it: on PostgreSQL another process (or the folder
 * watcher's ingest) replaced its document meanwhile — each statement sees the latest commit. A search
 * meeting it runs once more (search.ts), and then leaves such hits out.
 */
export class ChunkVanished extends KbError {
  constructor(rowid: number) {
    super('INTERNAL', `chunk ${rowid} vanished during the search`);
  }
}

export class Hydrator {
  readonly reader: HitsPort;

  constructor(
    private readonly tables: Tables,
    private readonly config: Config,
    /** A file holding a stored copy's bytes (a waiting scan's frame is read from them). */
    private readonly blobPath: (sha256: string) => Promise<string | null>,
  ) {
    this.reader = tables.hits;
  }

  /** A waiting scan is cited as its whole frame, read from the file or its stored copy; never an empty region. */
  private async wholeImage(d: { id: string; path: string }): Promise<Anchor> {
    const blob = (await this.tables.originals.of(d.id))?.blob;
    const copy = blob ? await this.blobPath(blob) : null;
    const box = imageBox(copy ? [copy, d.path] : [d.path]);
    return box ? { kind: 'region', x: 0, y: 0, w: box.w, h: box.h } : { kind: 'page', page: 1 };
  }

  /** A document found by name that has no passage yet: cited at its start, with why it has none. */
  async chunkless(m: NameMatch, score: number, retrieval: Retrieval): Promise<SearchHit> {
    const d = m.doc;
    const anchor: Anchor =
      d.type === 'audio'
        ? { kind: 'time', start: 0, end: d.duration ?? 0 }
        : d.type === 'pdf'
          ? { kind: 'page', page: 1 }
          : d.type === 'image'
            ? await this.wholeImage(d)
            : { kind: 'lines', start: 1, end: 1 };
    const reason = docState(d).reason ?? undefined;
    return {
      rank: 1,
      chunk_id: '',
      doc_id: d.id,
      score,
      retrieval,
      text: '',
      snippet: reason ?? '',
      snippet_highlights: [],
      matched_terms: [],
      citation: labelled(makeCitation(d.path, anchor)),
      source: {
        title: d.title,
        type: d.type,
        tags: (await this.reader.tagsOf([d.id])).get(d.id) ?? [],
        chunk_index: 0,
        total_chunks: 0,
        original: d.original,
        ...(reason ? { reason } : {}),
      },
    };
  }

  /** `dropVanished`: leave out hits whose chunk is gone, rather than throwing ChunkVanished. */
  async hydrate(hits: HitIn[], opts: { dropVanished?: boolean } = {}): Promise<SearchHit[]> {
    if (hits.length === 0) return [];
    const rows = await this.reader.rows(hits.map((h) => h.rowid));
    const present = hits.filter((h) => rows.has(h.rowid));
    if (present.length < hits.length && !opts.dropVanished) throw new ChunkVanished(hits.find((h) => !rows.has(h.rowid))!.rowid);
    const out: SearchHit[] = [];
    for (const [i, h] of present.entries()) {
      // A thousand snippets are a few hundred ms: made in turns (turns.ts).
      if (i % 32 === 31) await turn();
      const row = rows.get(h.rowid)!;
      // Markdown reads as prose in a snippet: no #, **, link targets or table pipes. Code stays as is.
      const snippet = snippetFor(
        row.text,
        h.spans,
        this.config.search.snippet_chars,
        row.type === 'markdown' ? markdownMask(row.text) : undefined,
      );
      const anchor = JSON.parse(row.anchor) as Anchor;
      out.push({
        rank: i + 1,
        chunk_id: row.id,
        doc_id: row.doc_id,
        score: h.score,
        retrieval: h.retrieval,
        text: row.text,
        snippet: snippet.text,
        snippet_highlights: snippet.highlights,
        matched_terms: h.matched,
        citation: labelled(makeCitation(row.path, anchor, row.heading || undefined)),
        source: {
          title: row.title,
          type: row.type,
          tags: row.tags,
          chunk_index: row.ordinal,
          total_chunks: row.total_chunks,
          original: row.original,
        },
      });
    }
    return out;
  }
}

// A search, stage by stage — the request parsed, words and meaning retrieved, fused, cut to size,
// documents found by name added, hydrated, and the envelope — each stage a module of its own. The
// params come checked (search/pipeline.ts is the edge); this never validates them again.
import { KbError } from '../../shared/errors.js';
import type { Config } from '../../shared/config.js';
import type { ResolvedSearchParams, SearchHit, SearchResult } from '../../shared/wire.js';
import { byMeaningAlone } from '../../shared/by-meaning.js';
import type { Filters } from '../store/doc-filter.js';
import { docState } from '../store/doc-state.js';
import type { Tables } from '../store/port.js';
import type { Semantic } from '../vectors/semantic.js';
import { envelope } from './envelope.js';
import { similarFrom } from '../embed/registry.js';
import { fusedHits, type HitIn, type MeaningHit, meaningHits, nearEnoughByMeaning, wordHits } from './fuse.js';
import { ChunkVanished, Hydrator } from './hydrate.js';
import { LexicalSearcher } from './lexical.js';
import { type Named, NameSearcher } from './names.js';
import { type ParsedQuery, parseQuery } from './query.js';
import { searchRequest } from './request.js';
import { nameHit, withNames } from './with-names.js';
import type { WordSource } from './word-source.js';

export const VECTOR_UNAVAILABLE = 'no embedding model installed — run: kb models pull all-MiniLM-L6-v2';

export class Searcher {
  readonly lexical: LexicalSearcher;
  private readonly names: NameSearcher;
  private readonly hydrator: Hydrator;

  constructor(
    /** The store's word index (candidates.ts on SQLite, pg-word-source.ts on PostgreSQL). */
    words: WordSource,
    tables: Tables,
    private readonly config: Config,
    /** Where a stored copy's bytes are (a waiting scan's frame is read from them). */
    blobPath: (sha256: string) => Promise<string | null> = async () => null,
  ) {
    this.lexical = new LexicalSearcher(words, config);
    this.names = new NameSearcher(tables);
    this.hydrator = new Hydrator(tables, config, blobPath);
  }

  /**
   * The words of the query the index does not hold, each with the indexed word most likely meant
   * (spelling.ts); none when every word is held (or none has a correction one edit away).
   */
  spellingFixes(query: string, prefix: boolean): Promise<[string, string][]> {
    return this.lexical.spelling(parseQuery(query, { prefix }));
  }

  /**
   * One search. `meaning`: the vector table to search by meaning (vector and hybrid modes), or why there
   * is none — then a hybrid search is by words alone and says why, a vector search finds nothing.
   */
  async search(
    p: ResolvedSearchParams,
    meaning: Semantic | { unavailable: string } = { unavailable: VECTOR_UNAVAILABLE },
  ): Promise<SearchResult> {
    try {
      return await this.searchOnce(p, meaning, false);
    } catch (e) {
      // A document replaced while it was searched (ChunkVanished): once more, on what is there now.
      if (!(e instanceof ChunkVanished)) throw e;
      return this.searchOnce(p, meaning, true);
    }
  }

  private async searchOnce(
    p: ResolvedSearchParams,
    meaning: Semantic | { unavailable: string },
    dropVanished: boolean,
  ): Promise<SearchResult> {
    const started = performance.now();
    const { q, filters } = searchRequest(p);
    if ('unavailable' in meaning) {
      const why = { unavailable: meaning.unavailable };
      if (p.mode === 'vector') return envelope(p, q, [], { words: null, meaning: why }, started);
      const named = this.namesLookup(p, q, filters);
      const lex = await this.lexical.search(q, filters, p.top);
      const kept = p.threshold === undefined ? lex.hits : lex.hits.filter((h) => h.score >= p.threshold!);
      const hydrated = await this.hydrator.hydrate(wordHits(kept, lex, p.explain), { dropVanished });
      const results = await withNames(this.names, this.hydrator, hydrated, p, named);
      return envelope(
        p,
        q,
        results,
        { words: { total: lex.total, estimated: lex.totalEstimated }, meaning: p.mode === 'hybrid' ? why : null },
        started,
      );
    }
    const k = p.top * this.config.search.candidates_factor;
    // The query is embedded first; LanceDB then searches on its own threads while the words are
    // looked up here, so the two halves overlap.
    const qv = q.kind === 'empty' ? undefined : await meaning.embedQuery(p.query);
    const nearest = qv
      ? meaning.nearest(qv, k, {
          type: filters.type,
          lang: filters.lang?.toLowerCase(),
          tags: filters.tags,
          pathDocs: filters.path ? await this.lexical.docsMatching(filters.path) : undefined,
        })
      : Promise.resolve([]);
    nearest.catch(() => undefined); // awaited below; a lexical error must not leave it unhandled
    // Names are words: a search by meaning alone (vector mode) does not add them.
    const named = p.mode === 'vector' ? null : this.namesLookup(p, q, filters);
    const lex = p.mode === 'hybrid' ? await this.lexical.search(q, filters, k) : null;
    const vec = await nearest;
    // Vectors are keyed by chunk id; a vector whose chunk is gone (not yet reconciled) is dropped.
    const ids = await this.hydrator.reader.rowidsOf(vec.map((v) => v.chunk_id));
    const found: MeaningHit[] = vec.flatMap((v) =>
      ids.has(v.chunk_id) ? [{ rowid: ids.get(v.chunk_id)!, chunkId: v.chunk_id, similarity: v.similarity }] : [],
    );
    let items: HitIn[] =
      p.mode === 'vector'
        ? meaningHits(found)
        : fusedHits(
            { explain: p.explain, fusion: p.fusion ?? this.config.search.fusion },
            lex,
            found,
            await this.hydrator.reader.idsOf((lex?.hits ?? []).map((h) => h.rowid)),
            { rrfK: this.config.search.rrf_k, convexAlpha: this.config.search.convex_alpha, meaningGap: this.config.search.meaning_gap },
          );
    if (p.mode === 'hybrid') items = nearEnoughByMeaning(items, similarFrom(this.config, meaning.spec.id), this.config.search.meaning_gap);
    if (p.threshold !== undefined) items = items.filter((h) => h.score >= p.threshold!);
    items = items.slice(0, p.top);
    const hydrated = await this.hydrator.hydrate(items, { dropVanished });
    const results = named ? await withNames(this.names, this.hydrator, hydrated, p, named) : hydrated;
    const words = lex ? { total: lex.total, estimated: lex.totalEstimated } : null;
    // Hybrid counts the passages holding the words and the hits shown that only meaning found: the
    // meaning half's candidates beyond those grow with top, and a total that changed with it read as
    // a different search.
    const only = lex ? results.filter(byMeaningAlone).length : found.length;
    return envelope(p, q, results, { words, meaning: { only } }, started);
  }

  /** The documents the query names, looked up while the passages are searched (withNames adds them). */
  private namesLookup(p: ResolvedSearchParams, q: ParsedQuery, filters: Filters): Promise<Named[]> {
    const named = this.names.lookup(p.query, q, filters, p.top);
    named.catch(() => undefined); // awaited later; a failing passage search must not leave it unhandled
    return named;
  }

  /**
   * A document at its start, as a hit the viewer opens (a Library row): its first passage, or — with
   * none yet — the document itself, cited at its start with why it has none. A document that failed and
   * holds nothing says so.
   */
  async atStart(docId: string): Promise<SearchHit> {
    const m = await this.names.document(docId);
    if (!m) throw new KbError('NOT_FOUND', `no document with id ${docId}`);
    if (m.firstChunk === null && m.doc.status === 'failed') {
      const reason = docState(m.doc).reason;
      const name = m.doc.path.split(/[\\/]/).pop() ?? m.doc.path;
      throw new KbError('NOT_FOUND', `${name} has nothing to show yet${reason ? `: ${reason}` : ''}`);
    }
    return nameHit(this.hydrator, m, 1, 'lexical');
  }
}

// Documents found by their file name, their tags, or (when they have nothing to search yet) their title
// (documents_names, migration 6), for the documents whose text does not say it: a recording waiting for
// a speech model, a scan waiting for OCR, `jfk.mp3` when nobody says "jfk" in it, a note tagged
// #budget. Search adds them beside the passages (search.ts, withNames).
import type { Filters } from '../store/doc-filter.js';
import { pathPasses } from '../store/path-glob.js';
import type { Tables } from '../store/port.js';
import type { DocWithFacts, NamedDoc, NameWords } from '../store/rows.js';
import type { ParsedQuery } from './query.js';

/** A document a query names, before its facts are read. */
export interface Named {
  id: string;
  /** The query is the file name (with or without its extension) or the title, as typed. */
  exact: boolean;
}

export interface NameMatch {
  doc: DocWithFacts;
  /** The document's first chunk, to open it at its start; null when it has none yet. */
  firstChunk: number | null;
  /** The query is the file name (with or without its extension) or the title, as typed. */
  exact: boolean;
}

/** Every word must be in the name or title: a name match is a claim that this is the file meant. */
export function nameWords(q: ParsedQuery): NameWords | null {
  if (q.kind !== 'terms') return null;
  const words = [
    ...q.terms.filter((t) => !t.alternative).map((t) => ({ text: t.text, prefix: t.prefix })),
    ...q.cjk.map((text) => ({ text, prefix: false })),
  ];
  return words.length + q.phrases.length > 0 ? { words, phrases: q.phrases } : null;
}

function bare(s: string): string {
  return s.trim().toLowerCase().normalize('NFKC');
}

/** More documents than this sharing the words of their names: the words say nothing about which file is meant. */
const NOT_DISTINCTIVE = 20;

export class NameSearcher {
  constructor(private readonly tables: Tables) {}

  /** One document by its id, as a name match opens it (at its start); null when there is none. */
  async document(docId: string): Promise<NameMatch | null> {
    const doc = await this.tables.documents.withFacts(docId);
    return doc ? { doc, firstChunk: await this.tables.names.firstChunk(docId), exact: true } : null;
  }

  /**
   * Documents whose file name holds every word typed, and documents with no passages yet whose title
   * does (a title with passages is searched as part of them already: counting it again here would rank
   * by title twice), best first, with whether the query is that name exactly. Costs well under a
   * millisecond on 13,000 documents: no ranking, a limit, and the title query only over the documents
   * waiting. Started beside the passages' search (its three look-ups at once): on a server each is a
   * round trip.
   */
  async lookup(query: string, q: ParsedQuery, filters: Filters, limit: number): Promise<Named[]> {
    const expr = nameWords(q);
    if (!expr) return [];
    const byName = this.tables.names;
    const typed = bare(query);
    const exactly = (r: { path: string; title: string }): boolean => {
      const name = bare(r.path.split(/[\\/]/).pop() ?? r.path);
      return typed === name || typed === name.replace(/\.[^.]+$/, '') || typed === bare(r.title);
    };
    // A word that is a tag finds the documents carrying it, as their names do (a tag on more than a
    // handful of documents is a filter's job: the Tags box).
    const tag = /^#?[\p{L}\p{N}_-]+$/u.test(typed) ? typed.replace(/^#/, '') : null;
    const titlesOfWaiting = async (): Promise<NamedDoc[]> => {
      const waiting = await byName.waiting();
      return waiting.length === 0 ? [] : byName.matching('title', expr, filters, limit, waiting);
    };
    const [byWords, tagged, titles] = await Promise.all([
      byName.matching('name', expr, filters, NOT_DISTINCTIVE + 1),
      tag ? byName.tagged(tag, filters, NOT_DISTINCTIVE + 1) : Promise.resolve([]),
      titlesOfWaiting(),
    ]);
    let names = byWords;
    if (names.length > NOT_DISTINCTIVE) {
      // Words many file names share (note-0001.md … note-9999.md and "note") point at none of them,
      // unless the whole name was typed: look for that name as a phrase.
      const words = [...typed.matchAll(/[\p{L}\p{N}]+/gu)].map((m) => m[0]);
      names = words.length > 0 ? (await byName.matching('name', { words: [], phrases: [words] }, filters, 5)).filter(exactly) : [];
    }
    if (tagged.length <= NOT_DISTINCTIVE) names = [...names, ...tagged];
    // A path glob narrows what names find as it narrows the passages (PostgreSQL's look-ups above do
    // not ask it; SQLite's do, the same way).
    const passes = filters.path ? pathPasses(filters.path) : (): boolean => true;
    const seen = new Set<string>();
    return [...names, ...titles]
      .filter((r) => passes(r.path))
      .flatMap((r) => (seen.has(r.id) || !seen.add(r.id) ? [] : [{ id: r.id, exact: exactly(r) }]));
  }

  /**
   * The named documents to show beside the passages, with their facts. `skip`: documents the passages
   * found already — one comes back only when the query is its very name: that name typed means that
   * file, which goes first (a page saying "BILLING" must not beat bill.png).
   */
  async matches(named: Named[], skip: ReadonlySet<string>, limit: number): Promise<NameMatch[]> {
    const out: NameMatch[] = [];
    for (const r of named) {
      if ((skip.has(r.id) && !r.exact) || out.length >= limit) continue;
      const doc = await this.tables.documents.withFacts(r.id);
      if (doc) out.push({ doc, firstChunk: await this.tables.names.firstChunk(r.id), exact: r.exact });
    }
    return out;
  }
}

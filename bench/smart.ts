// Test collections in the SMART format (Cranfield, CACM, and the others of that family: MED, CISI,
// NPL, TIME…): records open with `.I id`, fields with `.X` on a line of their own. One loader for all
// of them, so a collection dropped into ../shared/corpora/ir/<name>/ is benchmarked like the rest.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface SmartDoc {
  id: string;
  title: string;
  /** The record as a person would keep it: title, abstract, authors and keywords. */
  text: string;
}

export interface SmartCollection {
  name: string;
  docs: SmartDoc[];
  /** Query texts, in file order. */
  queries: string[];
  /** Query number (1-based, file order) → document id → gain (> 0 relevant; graded where the qrels are). */
  qrels: Map<number, Map<string, number>>;
}

/** `.I` records, each a map of field letter → text (whitespace folded). */
export function smartRecords(text: string): { id: string; fields: Map<string, string> }[] {
  return text
    .split(/^\.I[ \t]+/m)
    .filter((r) => r.trim())
    .map((r) => {
      const nl = r.indexOf('\n');
      const fields = new Map<string, string>();
      for (const part of r.slice(nl + 1).split(/^\.(?=[A-Z][ \t]*$)/m)) {
        const tag = part[0];
        if (!tag || !/[A-Z]/.test(tag)) continue;
        fields.set(tag, part.slice(1).trim().replace(/\s+/g, ' '));
      }
      return { id: r.slice(0, nl < 0 ? undefined : nl).trim(), fields };
    });
}

/** The files of a collection folder: documents, queries, judgments (by the names these collections use). */
function filesIn(dir: string): { docs: string; queries: string; qrels: string } {
  const names = readdirSync(dir);
  const pick = (re: RegExp, what: string): string => {
    const f = names.find((n) => re.test(n));
    if (!f) throw new Error(`${dir}: no ${what} file (looked for ${re})`);
    return join(dir, f);
  };
  return {
    docs: pick(/\.all(\.\d+)?$/i, 'documents'),
    queries: pick(/\.qry$|^query\.text$|\.que$/i, 'queries'),
    qrels: pick(/qrel|\.rel$/i, 'judgments'),
  };
}

export function loadSmart(dir: string, name: string): SmartCollection {
  const f = filesIn(dir);
  const docs = smartRecords(readFileSync(f.docs, 'utf8')).map(({ id, fields }) => {
    const title = fields.get('T') ?? '';
    const body = [fields.get('W'), fields.get('A'), fields.get('K')].filter((x): x is string => Boolean(x));
    return { id, title, text: [title, ...body].filter(Boolean).join('\n\n') };
  });
  const queryRecords = smartRecords(readFileSync(f.queries, 'utf8'));
  const queries = queryRecords.map((r) => r.fields.get('W') ?? '');
  // Judgments name queries by their .I number in some collections and by their place in the file in
  // others (Cranfield's .I numbers have gaps, its qrels count 1..225). When every judged query number
  // is a place in the file, places they are; otherwise .I numbers.
  const ids = queryRecords.map((r) => Number(r.id));
  const byId = new Map(ids.map((id, i) => [id, i + 1]));
  const lines = readFileSync(f.qrels, 'utf8')
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter(([q, d]) => q && d);
  const byPlace = lines.every(([q]) => Number(q) >= 1 && Number(q) <= queries.length);
  const graded = /cranqrel/i.test(f.qrels);
  const qrels = new Map<number, Map<string, number>>();
  for (const [q, d, g] of lines) {
    const n = byPlace ? Number(q) : byId.get(Number(q));
    if (n === undefined || !d) continue;
    // Cranfield grades 1 (complete answer) … 4 (minimal interest) → gains 4 … 1; -1 (no interest) → 0.
    const gain = graded ? (Number(g) >= 1 && Number(g) <= 4 ? 5 - Number(g) : 0) : 1;
    const m = qrels.get(n) ?? new Map<string, number>();
    m.set(String(Number(d)), gain);
    qrels.set(n, m);
  }
  return { name, docs: docs.map((d) => ({ ...d, id: String(Number(d.id)) })), queries, qrels };
}

/** Every collection folder under corpora/ir that holds the three files. */
export function smartCollections(irDir: string): { name: string; dir: string }[] {
  if (!existsSync(irDir)) return [];
  return readdirSync(irDir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => ({ name: e.name, dir: join(irDir, e.name) }))
    .filter((c) => {
      try {
        filesIn(c.dir);
        return true;
      } catch {
        return false;
      }
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

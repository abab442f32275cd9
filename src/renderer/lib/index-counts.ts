// What the footer and the tag picker show of the index: its documents (the failed ones apart) and every
// tag with how many documents carry it, asked again when the index changes and, while files are being
// added, every second (not per file: a list is not free).
import { useEffect, useState } from 'react';
import type { KbBridge } from '../../shared/api';
import type { DocumentSummary } from '../../shared/wire';

export interface IndexCounts {
  /** Documents in the index (searchable or waiting), and how many rows failed; null until asked. */
  docs: { count: number; failed: number } | null;
  /** Every tag with how many documents carry it, most used first. */
  tagCounts: [string, number][];
}

function countOf(documents: DocumentSummary[]): IndexCounts {
  const failed = documents.filter((d) => d.status === 'failed').length;
  const tags = new Map<string, number>();
  for (const d of documents) for (const t of d.tags) tags.set(t, (tags.get(t) ?? 0) + 1);
  return {
    docs: { count: documents.length - failed, failed },
    tagCounts: [...tags].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])),
  };
}

export function useIndexCounts(kb: KbBridge, version: number, adding: boolean): IndexCounts {
  const [counts, setCounts] = useState<IndexCounts>({ docs: null, tagCounts: [] });
  useEffect(() => {
    const ask = (): void =>
      void kb.list({}).then(
        (l) => setCounts(countOf(l.documents)),
        () => undefined,
      );
    ask();
    if (!adding) return;
    const tick = setInterval(ask, 1000);
    return () => clearInterval(tick);
  }, [kb, version, adding]);
  return counts;
}

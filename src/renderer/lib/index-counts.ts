// What the footer and the tag picker show of the index: its documents (the failed ones apart) and every
// tag with how many documents carry it — the engine counts them (`facets`), asked again when the index
// changes and, while files are being added, every second (not per file).
import { useEffect, useState } from 'react';
import type { KbBridge } from '../../shared/api';

export interface IndexCounts {
  /** Documents in the index (searchable or waiting), and how many rows failed; null until asked. */
  docs: { count: number; failed: number } | null;
  /** Every tag with how many documents carry it, most used first. */
  tagCounts: [string, number][];
}

export function useIndexCounts(kb: KbBridge, version: number, adding: boolean): IndexCounts {
  const [counts, setCounts] = useState<IndexCounts>({ docs: null, tagCounts: [] });
  useEffect(() => {
    const ask = (): void =>
      void kb.facets({}).then(
        (f) => setCounts({ docs: { count: f.documents, failed: f.failed }, tagCounts: f.tags.map((t) => [t.name, t.documents]) }),
        () => undefined,
      );
    ask();
    if (!adding) return;
    const tick = setInterval(ask, 1000);
    return () => clearInterval(tick);
  }, [kb, version, adding]);
  return counts;
}

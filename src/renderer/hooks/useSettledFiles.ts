// A file listed as waiting for its words (a scan) is read later in the same run: each time the run's
// OCR moves on from a file, its line asks once what became of it, so a line never keeps saying "read
// next" about a file that was read.
import { useEffect, useState } from 'react';
import type { KbBridge } from '../../shared/api';
import type { Finished } from '../Ingest';

/** What a waiting file came to once its pages were read: read, read in part, or failed (with why). */
export interface Settled {
  outcome: 'added' | 'waiting' | 'failed';
  words: string;
}

export function useSettledFiles(
  kb: KbBridge | undefined,
  files: readonly Finished[],
  /** Files the run's OCR has finished with, in the order it did. */
  read: readonly string[],
): ReadonlyMap<string, Settled> {
  const [settled, setSettled] = useState<ReadonlyMap<string, Settled>>(new Map());
  // A new run starts with no lines: what the last one's files came to is not theirs.
  if (files.length === 0 && settled.size > 0) setSettled(new Map());
  const waiting = new Set(files.filter((f) => f.outcome === 'waiting' && !f.message).map((f) => f.path));
  const ask = read.filter((p) => waiting.has(p) && !settled.has(p)).join('\n');
  useEffect(() => {
    if (!kb || !ask) return;
    let live = true;
    void Promise.all(
      ask.split('\n').map(async (path): Promise<[string, Settled]> => {
        try {
          const { document: d, chunks } = await kb['inspect.document']({ target: path });
          if (d.status === 'failed') return [path, { outcome: 'failed', words: d.reason ?? 'its text could not be read' }];
          if (d.status === 'waiting') return [path, { outcome: 'waiting', words: `added; ${d.reason ?? 'its text is read next'}` }];
          if (chunks.length === 0) return [path, { outcome: 'added', words: `added; ${d.reason ?? 'no text in it'}` }];
          return [
            path,
            d.reason ? { outcome: 'waiting', words: `added; ${d.reason}` } : { outcome: 'added', words: 'added; its text was read' },
          ];
        } catch {
          // Removed meanwhile, or the engine is restarting: said as not known, and not asked again.
          return [path, { outcome: 'waiting', words: 'added' }];
        }
      }),
    ).then((found) => live && setSettled((m) => new Map([...m, ...found])));
    return () => {
      live = false;
    };
  }, [kb, ask]);
  return settled;
}

// The ingest summary made final after the OCR and audio passes: a file whose pixels or sound could
// not be read at all is counted as failed (not as added), once, with the most telling of its errors;
// problems that leave a file indexed or waiting become warnings. So the counts and the lines printed
// under them always agree.
import type { IngestError, IngestSummary } from '../../shared/wire.js';
import type { DocState } from '../store/doc-state.js';
import type { FileOutcome } from './pipeline.js';

export async function settleSummary(
  summary: IngestSummary,
  late: IngestError[],
  outcomes: Map<string, FileOutcome>,
  stateOf: (path: string) => Promise<DocState | null>,
): Promise<void> {
  const byPath = new Map<string, IngestError[]>();
  for (const e of late) byPath.set(e.path, [...(byPath.get(e.path) ?? []), e]);
  for (const [path, errs] of byPath) {
    // "No text found" after a failed read is that failure's consequence, not news.
    const first = errs.find((e) => e.code !== 'EMPTY') ?? errs[0]!;
    if ((await stateOf(path))?.status !== 'failed') {
      summary.warnings.push(first);
      continue;
    }
    if (summary.errors.some((e) => e.path === path)) continue;
    summary.errors.push(first);
    summary.failed++;
    const was = outcomes.get(path);
    if (was === 'added' || was === 'updated') summary[was]--;
    outcomes.set(path, 'failed');
  }
}

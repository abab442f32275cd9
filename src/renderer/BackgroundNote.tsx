// The footer's word on work going on by itself: embedding every passage, transcribing, reading scans.
import type { BackgroundEvent } from '../shared/events';

const WORDS: Record<BackgroundEvent['task'], { what: string; done: string; running: string }> = {
  embedding: { what: 'search by meaning', done: 'search by meaning is on', running: 'embedding passages' },
  transcribing: { what: 'audio', done: 'waiting audio transcribed', running: 'transcribing' },
  ocr: { what: 'OCR', done: 'waiting scans read', running: 'reading scans (OCR), page' },
  upgrading: { what: 'index upgrade', done: 'index upgraded', running: 'upgrading the index,' },
};

export function BackgroundNote({ e }: { e: BackgroundEvent }) {
  const w = WORDS[e.task];
  if (e.phase === 'failed')
    return (
      <span className="error">
        {' '}
        · {w.what}: {e.message}
      </span>
    );
  if (e.phase === 'done') return <span className="note"> · {w.done}</span>;
  // An upgrade counts each passage once per step it takes: a share says more than its count.
  const progress = e.task === 'upgrading' ? `${Math.floor((100 * e.done) / Math.max(1, e.total))}%` : `${e.done} of ${e.total}`;
  return (
    <span role="status" data-background={e.task}>
      {' '}
      · {w.running} {progress}
    </span>
  );
}

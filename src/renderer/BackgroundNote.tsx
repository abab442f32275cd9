// The footer's word on work a model's arrival started: embedding every passage, or transcribing.
import type { BackgroundEvent } from '../shared/api';

export function BackgroundNote({ e }: { e: BackgroundEvent }) {
  const what = e.task === 'embedding' ? 'search by meaning' : 'audio';
  if (e.phase === 'failed') return <span className="error"> · {what}: {e.message}</span>;
  if (e.phase === 'done') return <span className="note"> · {e.task === 'embedding' ? 'search by meaning is on' : 'waiting audio transcribed'}</span>;
  return (
    <span role="status">
      {' '}
      · {e.task === 'embedding' ? 'embedding passages' : 'transcribing'} {e.done} of {e.total}
    </span>
  );
}

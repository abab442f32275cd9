// "Get the speech model" for a recording that waits for one, turning into the download's progress.
import type { ModelPull } from './lib/model-pull';
import { PullProgress } from './views/Models';

/** For what waits for a speech model: get it here, with the download's progress. */
export function SpeechModelButton({ pull, name }: { pull: ModelPull; name: string }) {
  if (pull.pulling?.name === name) return <PullProgress pull={pull} />;
  return (
    <span className="speech-get">
      <button onClick={(e) => (e.stopPropagation(), pull.start(name))} disabled={pull.pulling !== null}>
        Get the speech model ({name})
      </button>
      {pull.outcome?.name === name && <span className={pull.outcome.ok ? 'note' : 'error'}>{pull.outcome.message}</span>}
    </span>
  );
}

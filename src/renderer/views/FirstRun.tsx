// What a new index shows before anything is searched: the steps left to set kb up — add files (a
// picker as well as drag and drop), add a folder to keep in sync, get the model that searches by
// meaning — and whether Ollama can answer questions, with the exact next step. Each goes once done.
import { AddFiles } from '../AddFiles';
import type { KbBridge, Result } from '../../shared/api';
import type { Settings } from '../../shared/settings';
import { type ModelPull } from '../lib/model-pull';
import { formatBytes } from '../../shared/bytes';
import { inApp } from '../lib/in-app';
import { AddFolder } from './Folders';
import { KINDS } from '../Ingest';
import { PullProgress } from './Models';

export interface SetupState {
  status: Result<'index.status'> | null;
  models: Result<'models.list'> | null;
  settings: Settings | null;
}

export function FirstRun({
  kb,
  setup,
  pull,
  onFiles,
  onPaths,
  onChanged,
}: {
  kb: KbBridge;
  setup: SetupState;
  pull: ModelPull;
  onFiles: (files: File[]) => void;
  onPaths: (paths: string[]) => void;
  onChanged: () => void;
}) {
  const { status, models, settings } = setup;
  if (!status) return null;
  const model = models?.models.find((m) => m.id === status.embedding.model);
  const size = model?.download_bytes ? ` (${formatBytes(model.download_bytes)})` : '';
  const needFiles = status.documents === 0;
  const needFolder = status.collections.length === 0;
  const needModel = !status.embedding.installed;
  const o = settings?.ollama;
  const needOllama = o !== undefined && !(o.reachable && o.model_pulled);
  if (!needFiles && !needFolder && !needModel && !needOllama) return null;
  return (
    <div className="first-run" aria-label="Set up kb">
      <h2>{needFiles ? 'Nothing indexed yet' : 'Finish setting up'}</h2>
      <ul className="steps">
        {needFiles && (
          <li data-step="files">
            <AddFiles kb={kb} onFiles={onFiles} onPaths={onPaths} primary /> {KINDS} — or drop files and folders anywhere on this window.
          </li>
        )}
        {needFolder && (
          <li data-step="folder">
            <strong>Add a folder to keep in sync</strong> — kb follows it: new and changed files are indexed as they are saved.
            <AddFolder kb={kb} onAdded={onChanged} compact />
          </li>
        )}
        {needModel && (
          <li data-step="model">
            {pull.pulling?.name === status.embedding.model ? (
              <PullProgress pull={pull} />
            ) : (
              <button onClick={() => pull.start(status.embedding.model)} disabled={pull.pulling !== null}>
                Search by meaning: get the model{size}
              </button>
            )}{' '}
            Until then kb searches by words only. The model ({status.embedding.model}) runs on this machine.
            {pull.outcome && !pull.outcome.ok && pull.outcome.name === status.embedding.model && (
              <p className="error">{pull.outcome.message}</p>
            )}
          </li>
        )}
        {needOllama && o && (
          <li data-step="ollama">
            <strong>Answers to questions</strong> (Ask) come from Ollama on this machine: <span className="warn">{inApp(o.detail)}</span>
          </li>
        )}
      </ul>
      <p className="hint">
        Type a few words: results appear as you type, each citing its exact lines, page, region or moment; ↑/↓ and Enter open the source
        right there.
      </p>
    </div>
  );
}

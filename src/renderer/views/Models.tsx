// The Models view: embedding models (search by meaning) and speech models (audio and video), each with
// its size, whether it is installed and which is in use; get one from the hub with progress and
// Cancel, import one from the machine running kb, remove one.
import { useEffect, useState } from 'react';
import type { KbBridge, Result } from '../../shared/api';
import { type ModelPull, megabytes } from '../lib/model-pull';

type List = Result<'models.list'>;

export function Models({ kb, version, pull, inUse, onChanged }: { kb: KbBridge; version: number; pull: ModelPull; inUse: { embedding: string; speech: string }; onChanged: () => void }) {
  const [list, setList] = useState<List | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [importPath, setImportPath] = useState('');
  const [importAs, setImportAs] = useState('');
  const [note, setNote] = useState<string | null>(null);
  useEffect(() => {
    kb['models.list']({}).then(setList, (e: Error) => setError(e.message));
  }, [kb, version, pull.outcome]);

  const remove = async (name: string): Promise<void> => {
    if (!window.confirm(`Remove ${name}? It can be downloaded again.`)) return;
    try {
      await kb['models.remove']({ name });
      setNote(`Removed ${name}`);
      onChanged();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const importModel = async (path: string): Promise<void> => {
    setError(null);
    setNote(`Importing ${path}…`);
    try {
      const r = await kb['models.import']({ path, ...(importAs.trim() ? { as: importAs.trim() } : {}) });
      setNote(`Imported ${r.model.id}`);
      setImportPath('');
      onChanged();
    } catch (e) {
      setNote(null);
      setError((e as Error).message);
    }
  };
  const pickAndImport = async (kind: 'folder' | 'file'): Promise<void> => {
    const picked = await kb.app?.pick(kind === 'folder' ? 'folder' : 'files');
    if (picked?.[0]) await importModel(picked[0]);
  };

  if (!list) return <section className="page" aria-label="Models">{error ? <p className="error">{error}</p> : <p className="hint">Loading…</p>}</section>;
  const row = (m: { id: string; installed: boolean; bytes: number | null; download_bytes?: number | null }, about: string, using: boolean) => {
    const busy = pull.pulling?.name === m.id;
    return (
      <tr key={m.id} data-model={m.id}>
        <td>
          <strong>{m.id}</strong>
          {using && <span className="badge">in use</span>}
          <div className="path">{about}</div>
        </td>
        <td>{m.installed ? megabytes(m.bytes ?? 0) : m.download_bytes ? `${megabytes(m.download_bytes)} to download` : '–'}</td>
        <td className={m.installed ? 'ok' : 'muted'}>{m.installed ? 'installed' : 'not installed'}</td>
        <td className="actions">
          {busy ? (
            <PullProgress pull={pull} />
          ) : m.installed ? (
            <button onClick={() => void remove(m.id)}>Remove</button>
          ) : (
            <button onClick={() => pull.start(m.id)} disabled={pull.pulling !== null}>
              Get
            </button>
          )}
        </td>
      </tr>
    );
  };
  return (
    <section className="page" aria-label="Models">
      <h2>Models</h2>
      {error && <p className="error" role="alert">{error}</p>}
      {pull.outcome && <p className={pull.outcome.ok ? 'note' : 'error'}>{pull.outcome.message}</p>}
      {note && <p className="note">{note}</p>}
      <h3>Search by meaning (embedding models)</h3>
      <table className="grid">
        <tbody>{list.models.map((m) => row(m, `${m.dimension}-dimensional vectors, up to ${m.max_tokens} tokens · ${m.repo}`, m.id === inUse.embedding))}</tbody>
      </table>
      <h3>Audio and video (speech models)</h3>
      <table className="grid">
        <tbody>{list.speech_models.map((m) => row(m, m.about, m.id === inUse.speech))}</tbody>
      </table>
      <h3>Import a model</h3>
      <p className="hint">A folder in the Hugging Face layout (config.json, tokenizer.json, onnx/…) is an embedding model; a whisper.cpp .bin file is a speech model.</p>
      {kb.app ? (
        <div className="row">
          <button onClick={() => void pickAndImport('folder')}>Import a model folder…</button>
          <button onClick={() => void pickAndImport('file')}>Import a speech model file…</button>
        </div>
      ) : (
        <form
          className="row"
          onSubmit={(e) => {
            e.preventDefault();
            if (importPath.trim()) void importModel(importPath.trim());
          }}
        >
          <input aria-label="Model path" placeholder="~/models/my-model, or a full path on the machine running kb serve" value={importPath} onChange={(e) => setImportPath(e.target.value)} />
          <input aria-label="Import as" placeholder="as (optional)" value={importAs} onChange={(e) => setImportAs(e.target.value)} />
          <button type="submit" disabled={!importPath.trim()}>
            Import
          </button>
        </form>
      )}
    </section>
  );
}

/** Bytes so far of the model being downloaded, and Cancel. */
export function PullProgress({ pull }: { pull: ModelPull }) {
  const p = pull.pulling;
  if (!p) return null;
  return (
    <span className="pull" role="status" aria-label={`Downloading ${p.name}`}>
      <progress value={p.total ? p.done : undefined} max={p.total ?? undefined} />
      <span className="pull-bytes">
        {megabytes(p.done)}
        {p.total ? ` of ${megabytes(p.total)}` : ''}
      </span>
      <button onClick={pull.cancel}>Cancel</button>
    </span>
  );
}

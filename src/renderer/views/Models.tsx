// The Models view: embedding models (search by meaning, kb's own or Ollama's), rerankers and speech
// models (audio and video), each with its size, whether it is installed and which is in use; get one
// from the hub with progress and Cancel, switch to one (re-embedding with progress while searches go
// on), import one from the machine running kb, remove one.
import { useEffect, useRef, useState } from 'react';
import type { KbBridge, Result } from '../../shared/api';
import { type ModelPull } from '../lib/model-pull';
import { formatBytes } from '../../shared/bytes';
import { Said, useSayings } from '../Said';
import { count, num } from '../lib/numbers';

type List = Result<'models.list'>;
type InUse = { embedding: string; speech: string; reranker: string };

export function Models({
  kb,
  version,
  pull,
  inUse,
  ollamaModels,
  onChanged,
}: {
  kb: KbBridge;
  version: number;
  pull: ModelPull;
  inUse: InUse;
  /** What the Ollama server has (ollama list), to pick an embedding model from. */
  ollamaModels: string[];
  onChanged: () => void;
}) {
  const [list, setList] = useState<List | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [importPath, setImportPath] = useState('');
  const [importAs, setImportAs] = useState('');
  const [ollamaName, setOllamaName] = useState('');
  // Each outcome beside what was pressed: a model's row (by its name), the Ollama form, the import form.
  const { sayings, say, fail } = useSayings<string>();
  const [switching, setSwitching] = useState<{ name: string; done: number; total: number } | null>(null);
  const switchCtl = useRef<AbortController | null>(null);
  useEffect(() => {
    kb['models.list']({}).then(setList, (e: Error) => setError(e.message));
  }, [kb, version, pull.outcome]);

  const remove = async (name: string): Promise<void> => {
    say(name, null);
    if (!window.confirm(`Remove ${name}? It can be downloaded again.`)) return;
    try {
      await kb['models.remove']({ name });
      say('import', null);
      say(name, { ok: true, text: `Removed ${name}` });
      onChanged();
    } catch (e) {
      fail(name, e);
    }
  };
  const importModel = async (path: string): Promise<void> => {
    say('import', { ok: true, text: `Importing ${path}…` });
    try {
      const r = await kb['models.import']({ path, ...(importAs.trim() ? { as: importAs.trim() } : {}) });
      say('import', { ok: true, text: `Imported ${r.model.id}` });
      say(r.model.id, null);
      setImportPath('');
      onChanged();
    } catch (e) {
      fail('import', e);
    }
  };
  const use = async (name: string): Promise<void> => {
    if (switchCtl.current) return;
    const ctl = new AbortController();
    switchCtl.current = ctl;
    // A name typed for Ollama answers beside the Ollama form; a listed model in its row.
    const place = name.startsWith('ollama:') ? 'ollama' : name;
    say(place, null);
    setSwitching({ name, done: 0, total: 0 });
    try {
      const r = await kb['models.use']({ name }, { signal: ctl.signal, onProgress: (p) => setSwitching({ name, ...p }) });
      if (r.kind === 'reranker') say(place, { ok: true, text: `Searches are reranked by ${r.model} once typing pauses` });
      else if (r.kind === 'speech') say(place, { ok: true, text: `Recordings are transcribed with ${r.model} after a restart` });
      else if (r.cancelled)
        say(place, { ok: true, text: `Stopped: searches still use ${r.previous ?? 'no'} vectors. Use ${name} again to resume.` });
      else
        say(place, {
          ok: true,
          text: r.embedded > 0 ? `Searching by meaning with ${r.model}: embedded ${r.embedded} passages` : `${r.model} is in use`,
        });
      onChanged();
    } catch (e) {
      if (ctl.signal.aborted)
        say(place, { ok: true, text: `Stopped: searches still use the previous vectors. Use ${name} again to resume.` });
      else fail(place, e);
    } finally {
      switchCtl.current = null;
      setSwitching(null);
    }
  };
  const pickAndImport = async (kind: 'folder' | 'file'): Promise<void> => {
    const picked = await kb.app?.pick(kind === 'folder' ? 'folder' : 'files');
    if (picked?.[0]) await importModel(picked[0]);
  };

  if (!list)
    return (
      <section className="page" aria-label="Models">
        {error ? <p className="error">{error}</p> : <p className="hint">Loading…</p>}
      </section>
    );
  const row = (
    m: { id: string; installed: boolean; bytes: number | null; download_bytes?: number | null },
    about: string,
    using: boolean,
    usable = false,
  ) => {
    const busy = pull.pulling?.name === m.id;
    if (switching?.name === m.id) return switchRow(m.id, about);
    const pulled = pull.outcome?.name === m.id ? pull.outcome : null;
    return (
      <tr key={m.id} data-model={m.id}>
        <td>
          <strong>{m.id}</strong>
          {/* Chosen but not installed is not "in use": nothing searches or transcribes with it yet. */}
          {using && (m.installed ? <span className="badge">in use</span> : <span className="badge muted">chosen, not installed</span>)}
          <div className="path">{about}</div>
          <Said said={sayings[m.id] ?? (pulled && { ok: pulled.ok, text: pulled.message })} as="div" place={m.id} />
        </td>
        <td>{m.installed ? formatBytes(m.bytes ?? 0) : m.download_bytes ? `${formatBytes(m.download_bytes)} to download` : '–'}</td>
        <td className={m.installed ? 'ok' : 'muted'}>{m.installed ? 'installed' : 'not installed'}</td>
        <td className="actions">
          {busy ? (
            <PullProgress pull={pull} />
          ) : m.installed ? (
            <>
              {usable && !using && (
                <button onClick={() => void use(m.id)} disabled={switching !== null}>
                  Use
                </button>
              )}
              <button onClick={() => void remove(m.id)}>Remove</button>
            </>
          ) : (
            <button
              onClick={() => {
                say(m.id, null);
                pull.start(m.id);
              }}
              disabled={pull.pulling !== null}
            >
              Get
            </button>
          )}
        </td>
      </tr>
    );
  };
  const switchRow = (name: string, about: string) => (
    <tr key={name} data-model={name}>
      <td>
        <strong>{name}</strong>
        <div className="path">{about}</div>
      </td>
      <td colSpan={3} className="actions">
        <span className="pull" role="status" aria-label={`Switching to ${name}`}>
          <progress value={switching?.total ? switching.done : undefined} max={switching?.total || undefined} />
          <span className="pull-bytes">
            {switching?.total
              ? `embedding ${num(switching.done)} of ${count(switching.total, 'passage')}; searches use the old vectors meanwhile`
              : 'loading the model…'}
          </span>
          <button onClick={() => switchCtl.current?.abort()}>Stop</button>
        </span>
      </td>
    </tr>
  );
  const embedding = list.models.filter((m) => m.kind === 'embedding');
  const rerankers = list.models.filter((m) => m.kind === 'reranker');
  const fromOllama = inUse.embedding.startsWith('ollama:') ? inUse.embedding : null;
  const about = (m: List['models'][number]): string =>
    `${m.dimension}-dimensional vectors, up to ${m.max_tokens} tokens · ${m.source === 'imported' ? `imported from ${m.repo}` : m.repo}`;
  return (
    <section className="page" aria-label="Models">
      <h2>Models</h2>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <h3>Search by meaning (embedding models)</h3>
      <table className="grid">
        <tbody>
          {embedding.map((m) => row(m, about(m), m.id === inUse.embedding, true))}
          {fromOllama && switching?.name !== fromOllama && (
            <tr data-model={fromOllama}>
              <td>
                <strong>{fromOllama}</strong>
                <span className="badge">in use</span>
                <div className="path">served by Ollama</div>
              </td>
              <td>–</td>
              <td className="ok">Ollama</td>
              <td />
            </tr>
          )}
          {switching?.name.startsWith('ollama:') && switching.name !== inUse.embedding && switchRow(switching.name, 'served by Ollama')}
        </tbody>
      </table>
      <form
        className="row"
        aria-label="Use an Ollama embedding model"
        onSubmit={(e) => {
          e.preventDefault();
          if (ollamaName.trim()) void use(`ollama:${ollamaName.trim()}`);
        }}
      >
        <input
          aria-label="Ollama embedding model"
          list="ollama-models"
          placeholder="or one Ollama serves: nomic-embed-text, mxbai-embed-large, bge-m3…"
          value={ollamaName}
          onChange={(e) => {
            setOllamaName(e.target.value);
            if (!sayings.ollama?.ok) say('ollama', null);
          }}
        />
        <datalist id="ollama-models">
          {ollamaModels.map((m) => (
            <option key={m} value={m} />
          ))}
        </datalist>
        <button type="submit" disabled={!ollamaName.trim() || switching !== null}>
          Use from Ollama
        </button>
      </form>
      <Said said={sayings.ollama} place="ollama" />
      <p className="hint">Switching embeds every passage again with the new model; searches use the old vectors until it is done.</p>
      <h3>Reranking (cross-encoders)</h3>
      <table className="grid">
        <tbody>
          {rerankers.map((m) =>
            row(
              m,
              `re-scores the best hits, up to ${m.max_tokens} tokens a pair · ${m.source === 'imported' ? `imported from ${m.repo}` : m.repo}`,
              m.id === inUse.reranker,
              true,
            ),
          )}
        </tbody>
      </table>
      <h3>Audio and video (speech models)</h3>
      <table className="grid">
        <tbody>{list.speech_models.map((m) => row(m, m.about, m.id === inUse.speech, true))}</tbody>
      </table>
      <h3>Import a model</h3>
      <p className="hint">
        A folder in the Hugging Face layout (config.json, tokenizer.json, onnx/…) is an embedding model or, if it is a one-label classifier,
        a reranker; under a name of your own, kb reads how it pools and its prompts from its sentence-transformers files. A whisper.cpp .bin
        file is a speech model.
      </p>
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
          <input
            aria-label="Model path"
            placeholder="~/models/my-model, or a full path on the machine running kb serve"
            value={importPath}
            onChange={(e) => {
              setImportPath(e.target.value);
              say('import', null);
            }}
          />
          <input aria-label="Import as" placeholder="as (optional)" value={importAs} onChange={(e) => setImportAs(e.target.value)} />
          <button type="submit" disabled={!importPath.trim()}>
            Import
          </button>
        </form>
      )}
      <Said said={sayings.import} place="import" />
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
        {formatBytes(p.done)}
        {p.total ? ` of ${formatBytes(p.total)}` : ''}
      </span>
      <button onClick={pull.cancel}>Cancel</button>
    </span>
  );
}

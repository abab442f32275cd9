// The library: every indexed document with its status and error, to remove or index again.
import { type ReactNode, useEffect, useState } from 'react';
import type { KbBridge } from '../shared/api';
import type { DocumentSummary } from '../shared/wire';
import { waitsForSpeechModel } from './lib/speech';

const size = (n: number): string => (n < 1024 ? `${n} B` : n < 1024 ** 2 ? `${(n / 1024).toFixed(0)} KB` : `${(n / 1024 ** 2).toFixed(1)} MB`);

export function Library({ kb, version, onReindex, onChanged, onOpen, speech }: { kb: KbBridge; version: number; onReindex: (paths: string[]) => void; onChanged: () => void; onOpen: (d: DocumentSummary) => void; speech: ReactNode }) {
  const [docs, setDocs] = useState<DocumentSummary[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [filter, setFilter] = useState('');
  useEffect(() => {
    kb.list({}).then(
      (l) => setDocs(l.documents),
      (e: Error) => setError(e.message),
    );
  }, [kb, version]);
  const remove = async (d: DocumentSummary): Promise<void> => {
    if (!window.confirm(`Remove “${d.title}” from kb? The file itself is not touched.`)) return;
    try {
      await kb.remove({ target: d.doc_id });
      onChanged();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  if (error) return <p className="error">{error}</p>;
  if (!docs) return <p className="hint">Loading…</p>;
  const f = filter.toLowerCase();
  const shown = docs.filter((d) => !f || d.title.toLowerCase().includes(f) || d.path.toLowerCase().includes(f) || d.tags.some((t) => t.toLowerCase().includes(f)));
  const failed = docs.filter((d) => d.status === 'failed').length;
  const waiting = docs.filter((d) => d.status === 'waiting').length;
  return (
    <section className="library" aria-label="Library">
      <div className="library-head">
        <strong>
          {docs.length} document{docs.length === 1 ? '' : 's'}
        </strong>
        {failed > 0 && <span className="error">{failed} failed</span>}
        {waiting > 0 && <span className="waiting">{waiting} waiting</span>}
        <input type="search" placeholder="Filter by name, path or tag" aria-label="Filter documents" value={filter} onChange={(e) => setFilter(e.target.value)} />
        <button onClick={() => onReindex(docs.map((d) => d.path))} disabled={docs.length === 0}>
          Re-index all
        </button>
      </div>
      <table>
        <thead>
          <tr>
            <th>Document</th>
            <th>Type</th>
            <th>Chunks</th>
            <th>Size</th>
            <th>Status</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {shown.map((d) => (
            <tr key={d.doc_id} className={d.status === 'indexed' ? undefined : d.status} data-doc={d.doc_id} data-status={d.status}>
              <td>
                <div className="title">
                  {d.status === 'failed' ? (
                    d.title
                  ) : (
                    <button className="link" onClick={() => onOpen(d)} title="Open it">
                      {d.title}
                    </button>
                  )}
                </div>
                <div className="path" title={d.path}>
                  {d.path}
                </div>
                {d.tags.length > 0 && <div className="tags">{d.tags.map((t) => <span key={t}>#{t}</span>)}</div>}
              </td>
              <td>{d.type}</td>
              <td>{d.chunks}</td>
              <td>{size(d.size)}</td>
              <td>
                {/* The same word and reason as kb ls: indexed, waiting or failed. */}
                <span className={`status status-${d.status}`}>{d.status}</span>
                {d.reason && <div className={d.status === 'failed' ? 'reason error' : 'reason'}>{d.reason}</div>}
                {d.status === 'waiting' && waitsForSpeechModel(d.reason) && <div className="reason-action">{speech}</div>}
                {!d.original_available && <div className="reason" title="the file was moved or deleted, and no copy was kept">original missing</div>}
              </td>
              <td className="actions">
                <button onClick={() => onReindex([d.path])} title="Read the file again">
                  Re-index
                </button>
                <button onClick={() => void remove(d)} title="Remove from kb">
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

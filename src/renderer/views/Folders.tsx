// The Folders view: the collections kb keeps in sync (kb add), with their counts and whether they are
// watched; add one (the system's folder dialog in the app, a path on the serving machine in a
// browser, with kb add's errors; its progress and Cancel; a yes asked before a folder of thousands of
// files), forget one (the confirmation names what leaves: only what the folder's own sync brought in).
import { useEffect, useRef, useState } from 'react';
import type { KbBridge, Result } from '../../shared/api';
import { useAdmin } from '../hooks/useAdmin';
import { Said, useSayings } from '../Said';
import { inApp } from '../lib/in-app';
import { count, num } from '../lib/numbers';

type Collection = Result<'collections.list'>['collections'][number];

export function Folders({ kb, version, onChanged }: { kb: KbBridge; version: number; onChanged: () => void }) {
  const [list, setList] = useState<Collection[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  // A failed Forget is said in that folder's row.
  const { sayings, say, fail } = useSayings<string>();
  // Adding and forgetting folders is an admin's: a team's reader or editor is shown the folders only.
  const admin = useAdmin(kb) === true;
  useEffect(() => {
    kb['collections.list']({}).then(
      (r) => {
        setList(r.collections);
        setError(null);
      },
      (e: Error) => setError(e.message),
    );
  }, [kb, version]);
  const forget = async (c: Collection): Promise<void> => {
    say(c.name, null);
    try {
      const leaving = await kb['collections.leaving']({ name: c.name });
      if (!window.confirm(forgetQuestion(c.root, leaving))) return;
      await kb['collections.forget']({ name: c.name });
      onChanged();
    } catch (e) {
      fail(c.name, e);
    }
  };
  return (
    <section className="page" aria-label="Folders">
      <h2>Folders kept in sync</h2>
      <p className="hint">
        kb reads a folder once, then follows it while the app (or kb serve) runs: new, changed, moved and deleted files are picked up, and
        what changed while kb was closed is caught up on the next start.
      </p>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {list === null ? (
        <p className="hint">Loading…</p>
      ) : list.length === 0 ? (
        <p className="none">No folders yet.</p>
      ) : (
        <table className="grid">
          <thead>
            <tr>
              <th>Folder</th>
              <th>Documents</th>
              <th>Status</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {list.map((c) => (
              <tr key={c.name} data-collection={c.name}>
                <td>
                  <strong>{c.name}</strong>
                  {(c.root || c.glob) && (
                    <div className="path" title={c.root}>
                      {c.root}
                      {c.glob ? `${c.root ? ' · ' : ''}only ${c.glob}` : ''}
                    </div>
                  )}
                  {c.tags.length > 0 && (
                    <div className="tags">
                      {c.tags.map((t) => (
                        <span key={t}>#{t}</span>
                      ))}
                    </div>
                  )}
                  <Said said={sayings[c.name]} as="div" place={c.name} />
                </td>
                <td>{c.documents}</td>
                <td>
                  <span className="ok">watched</span>
                  {c.failed > 0 && <div className="error">{c.failed} failed</div>}
                  {c.waiting > 0 && <div className="waiting">{c.waiting} waiting</div>}
                </td>
                <td className="actions">{admin && <button onClick={() => void forget(c)}>Forget</button>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {admin && <AddFolder kb={kb} onAdded={onChanged} />}
    </section>
  );
}

/** What Forget asks: the folder, and what leaves kb — by name where few; the files stay. */
export function forgetQuestion(root: string, leaving: { documents: number; names: string[] }): string {
  const n = leaving.documents;
  const what =
    n === 0
      ? 'No document leaves kb: none was brought in by this folder.'
      : n <= leaving.names.length
        ? `${n === 1 ? 'This document leaves' : `These ${n} documents leave`} kb: ${leaving.names.join(', ')}.`
        : `${num(n)} documents leave kb (${leaving.names.join(', ')}, …).`;
  return `Stop keeping ${root} in sync? ${what} Documents you added on their own stay, and the files themselves are not touched.`;
}

/** Add a folder: a dialog in the app; a checked path in a browser (the folder is on the serving machine). */
export function AddFolder({ kb, onAdded, compact = false }: { kb: KbBridge; onAdded: () => void; compact?: boolean }) {
  const [path, setPath] = useState('');
  const [tags, setTags] = useState('');
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const ctl = useRef<AbortController | null>(null);
  const add = async (folder: string, many = false): Promise<void> => {
    setError(null);
    setDone(null);
    setBusy(`Reading ${folder}…`);
    const mine = new AbortController();
    ctl.current = mine;
    try {
      const tagList = tags
        .split(/[,\s]+/)
        .map((t) => t.replace(/^#/, ''))
        .filter(Boolean);
      const r = await kb['collections.add'](
        { path: folder, ...(tagList.length ? { tags: tagList } : {}), ...(many ? { many: true } : {}) },
        {
          signal: mine.signal,
          onProgress: (p) => {
            if (p.phase === 'scan')
              setBusy(p.done > 0 ? `Looking through ${folder}: ${num(p.done)} files so far` : `Counting the files in ${folder}…`);
            else if (p.total > 0) setBusy(`Reading ${folder}: ${num(p.done)} of ${count(p.total, 'file')}`);
          },
        },
      );
      setDone(
        `Added ${r.collection.name}: ${r.collection.documents} document${r.collection.documents === 1 ? '' : 's'}, kept in sync from now on`,
      );
      setPath('');
      onAdded();
    } catch (e) {
      if (mine.signal.aborted || (e as { code?: string }).code === 'CANCELLED')
        setError(`Cancelled: ${folder} was not added, and nothing of it was kept`);
      else if (
        (e as { code?: string }).code === 'TOO_LARGE' &&
        !many &&
        window.confirm(`${inApp((e as Error).message)} Read all of them?`)
      ) {
        ctl.current = null;
        return add(folder, true);
      } else setError((e as Error).message);
    } finally {
      if (ctl.current === mine) {
        ctl.current = null;
        setBusy(null);
      }
    }
  };
  const choose = async (): Promise<void> => {
    const [folder] = (await kb.app?.pick('folder')) ?? [];
    if (folder) await add(folder);
  };
  return (
    <div className={compact ? 'add-folder compact' : 'add-folder'}>
      {!compact && <h3>Add a folder</h3>}
      {kb.app ? (
        <button onClick={() => void choose()} disabled={busy !== null}>
          Choose a folder…
        </button>
      ) : (
        <form
          className="row"
          onSubmit={(e) => {
            e.preventDefault();
            if (path.trim()) void add(path.trim());
          }}
        >
          <input
            aria-label="Folder path"
            placeholder="~/notes, or a full path on the machine running kb serve"
            value={path}
            onChange={(e) => {
              setPath(e.target.value);
              setError(null);
            }}
          />
          {!compact && (
            <input aria-label="Folder tags" placeholder="tags (optional)" value={tags} onChange={(e) => setTags(e.target.value)} />
          )}
          <button type="submit" disabled={!path.trim() || busy !== null}>
            Add folder
          </button>
        </form>
      )}
      {busy && (
        <p className="hint row" role="status">
          {busy}
          <button type="button" onClick={() => ctl.current?.abort()}>
            Cancel
          </button>
        </p>
      )}
      <Said said={error ? { ok: false, text: error } : done ? { ok: true, text: done } : null} place="add-folder" />
    </div>
  );
}

// The Status view: what the index holds and takes on disk (and a button that gives back what nothing
// uses: kb gc), and kb doctor's checks with how to fix what fails.
import { type ReactNode, useEffect, useState } from 'react';
import type { KbBridge, Result } from '../../shared/api';
import type { DoctorReport } from '../../shared/wire';
import { useAdmin } from '../hooks/useAdmin';
import { formatBytes } from '../../shared/bytes';
import { inApp } from '../lib/in-app';
import { Said, useSayings } from '../Said';
import { num } from '../lib/numbers';

export function Status({ kb, version }: { kb: KbBridge; version: number }) {
  const [status, setStatus] = useState<Result<'index.status'> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [again, setAgain] = useState(0);
  // The checks' report, with the round it answers: while the checks run again, none is shown.
  const round = `${version}:${again}`;
  const [checked, setChecked] = useState<{ round: string; report: DoctorReport } | null>(null);
  const report = checked?.round === round ? checked.report : null;
  // The checks (kb doctor) are an admin's: a team server's reader or editor is not sent to them.
  const admin = useAdmin(kb);
  useEffect(() => {
    kb['index.status']({}).then(setStatus, (e: Error) => setError(e.message));
    if (admin !== true) return;
    kb.doctor({}).then(
      (r) => setChecked({ round: `${version}:${again}`, report: r }),
      (e: Error) => setError(e.message),
    );
  }, [kb, version, again, admin]);
  const d = status?.disk;
  const { sayings, say, fail } = useSayings<'reclaim' | 'repair'>();
  const [repairing, setRepairing] = useState(false);
  /** kb doctor --fix: what can be rebuilt from what survives, and a drop cut short read. */
  const repair = async (): Promise<void> => {
    say('repair', null);
    setRepairing(true);
    try {
      const r = await kb['doctor.fix']({});
      say('repair', {
        ok: true,
        text: r.actions.length ? r.actions.map((a) => `${a.name}: ${inApp(a.detail)}`).join(' · ') : 'Nothing needed repairing',
      });
      setAgain((n) => n + 1);
    } catch (e) {
      fail('repair', e);
    } finally {
      setRepairing(false);
    }
  };
  const [reclaiming, setReclaiming] = useState(false);
  const reclaim = async (): Promise<void> => {
    say('reclaim', null);
    setReclaiming(true);
    try {
      const r = await kb.gc({});
      const freed = r.freed_bytes + r.compacted_bytes + r.vector_bytes;
      say('reclaim', {
        ok: true,
        text: freed > 0 ? `Gave back ${formatBytes(freed)} to the disk` : 'Nothing to give back: everything kept is in use',
      });
      setAgain((n) => n + 1);
    } catch (e) {
      fail('reclaim', e);
    } finally {
      setReclaiming(false);
    }
  };
  return (
    <section className="page" aria-label="Status">
      <h2>Status</h2>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {status && (
        <dl className="facts">
          <dt>Documents</dt>
          <dd>{num(status.documents)}</dd>
          <dt>Passages</dt>
          <dd>{num(status.chunks)}</dd>
          <dt>Folders kept in sync</dt>
          <dd>{status.collections.length}</dd>
          <dt>Search by meaning</dt>
          <dd>{status.embedding.installed ? `${status.embedding.model}` : `off: ${status.embedding.model} is not installed`}</dd>
          <dt>Audio</dt>
          <dd>{status.speech.installed ? status.speech.model : `waits for ${status.speech.model}`}</dd>
          <dt>Answers</dt>
          <dd>{inApp(status.llm.detail)}</dd>
          {d && (
            <>
              <dt>On disk</dt>
              <dd>
                {formatBytes(d.total)} in all: index {formatBytes(d.index)}, vectors {formatBytes(d.vectors)}, kept originals{' '}
                {formatBytes(d.originals)}, models {formatBytes(d.models)}
                {d.uploads ? `, files dropped in the browser ${formatBytes(d.uploads)}` : ''}
                {d.ocr ? `, OCR language data ${formatBytes(d.ocr)}` : ''}
                {d.other ? `, logs and the rest ${formatBytes(d.other)}` : ''}{' '}
                <button onClick={() => void reclaim()} disabled={reclaiming}>
                  {reclaiming ? 'Reclaiming…' : 'Reclaim space'}
                </button>
                <Said said={sayings.reclaim} as="div" place="reclaim" />
              </dd>
            </>
          )}
          {/* A team server tells its readers and editors none of its paths. */}
          {status.data_dir && (
            <>
              <dt>Data folder</dt>
              <dd>
                <code>{status.data_dir}</code>
              </dd>
            </>
          )}
          {status.logs && (
            <>
              <dt>Logs</dt>
              <dd>
                <code>{status.logs}</code>
              </dd>
            </>
          )}
        </dl>
      )}
      {admin === false ? <p className="hint">The checks of this server&apos;s index are its admin&apos;s.</p> : checks()}
    </section>
  );

  function checks(): ReactNode {
    return (
      <>
        <h3>
          Checks <button onClick={() => setAgain((n) => n + 1)}>Check again</button>{' '}
          {report?.checks.some(
            (c) => c.status !== 'ok' && c.name !== 'language model' && c.name !== 'embedding model' && c.name !== 'speech model',
          ) && (
            <button onClick={() => void repair()} disabled={repairing}>
              {repairing ? 'Repairing…' : 'Repair'}
            </button>
          )}
        </h3>
        <Said said={sayings.repair} as="div" place="repair" />
        {!report ? (
          <p className="hint">Checking…</p>
        ) : (
          <ul className="checks">
            {report.checks.map((c) => (
              <li key={c.name} className={c.status} data-check={c.name}>
                <strong>{c.name}</strong> <span>{c.status}</span> — {inApp(c.detail)}
              </li>
            ))}
          </ul>
        )}
      </>
    );
  }
}

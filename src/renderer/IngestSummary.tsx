// What an ingest came to, once it is over: the counts, what was not read (and Read them now), what the
// background OCR is doing now, the files that could not be added and why, the warnings.
import type { BackgroundEvent } from '../shared/events';
import type { IngestSummary } from '../shared/wire';
import { base, known } from './lib/file-names';
import { inApp } from './lib/in-app';
import { count, num } from './lib/numbers';

export function Summary({
  summary: s,
  names,
  onDismiss,
  onAgain,
  ocr,
}: {
  summary: IngestSummary;
  names: ReadonlyMap<string, string>;
  onDismiss: () => void;
  /** Reads again what the run was asked to read: only what it did not read is new work. */
  onAgain?: (() => void) | undefined;
  ocr: BackgroundEvent | null;
}) {
  const parts = [
    `${num(s.added)} added`,
    s.updated && `${num(s.updated)} updated`,
    s.unchanged && `${num(s.unchanged)} unchanged`,
    s.moved && `${num(s.moved)} moved`,
    s.failed && `${num(s.failed)} failed`,
    s.not_read && `${num(s.not_read)} not read`,
  ].filter(Boolean);
  // Pages left waiting are read by the engine by itself (engine.keepUp): what it is doing now is said,
  // not what was left when the run ended.
  const pending = s.ocr?.pending ?? 0;
  const later =
    pending === 0
      ? ''
      : ocr?.phase === 'done'
        ? ' · the pages left to OCR have been read'
        : ocr?.phase === 'running'
          ? ` · OCR in the background: ${num(ocr.done)} of ${num(ocr.total)} pages read`
          : ` · ${count(pending, 'page')} left to read by OCR, in the background`;
  const unread = s.not_read_paths ?? [];
  return (
    <div className="ingest-summary" data-cancelled={s.cancelled ? 'yes' : undefined}>
      <div className="ingest-head">
        <span>
          {s.cancelled ? 'Cancelled: ' : ''}
          {parts.join(' · ')} in {(s.took_ms / 1000).toFixed(1)} s{later}
        </span>
        <button onClick={onDismiss}>Close</button>
      </div>
      {unread.length > 0 && (
        <div className="ingest-unread">
          <span>
            Not read:{' '}
            {unread.length <= 5 && unread.length === s.not_read
              ? unread.map((p) => base(known(names, p))).join(', ')
              : count(s.not_read ?? unread.length, 'file')}
          </span>
          {onAgain && (
            <button className="again" onClick={onAgain}>
              Read {s.not_read === 1 ? 'it' : 'them'} now
            </button>
          )}
          {unread.length > 5 && (
            <details>
              <summary>Which</summary>
              <ul>
                {unread.map((p) => (
                  <li key={p}>{known(names, p)}</li>
                ))}
                {(s.not_read ?? 0) > unread.length && <li>… and {num((s.not_read ?? 0) - unread.length)} more</li>}
              </ul>
            </details>
          )}
        </div>
      )}
      {s.errors.length > 0 && (
        <details className="ingest-errors" open>
          <summary>
            {s.errors.length} file{s.errors.length === 1 ? '' : 's'} could not be added
          </summary>
          <ul>
            {s.errors.map((e) => (
              <li key={e.path}>
                <strong>{base(known(names, e.path))}</strong> <code>{e.code}</code> {inApp(e.message)}
                {known(names, e.path) !== base(known(names, e.path)) && <div className="path">{known(names, e.path)}</div>}
              </li>
            ))}
          </ul>
        </details>
      )}
      {s.warnings.length > 0 && (
        <details className="ingest-warnings">
          <summary>
            {s.warnings.length} warning{s.warnings.length === 1 ? '' : 's'}
          </summary>
          <ul>
            {s.warnings.map((w, i) => (
              <li key={`${w.path}-${i}`}>
                <strong>{base(known(names, w.path))}</strong> <code>{w.code}</code> {inApp(w.message)}
              </li>
            ))}
          </ul>
        </details>
      )}
      {s.transcribed?.waiting ? (
        <p className="hint">
          {s.transcribed.waiting} audio file{s.transcribed.waiting === 1 ? ' waits' : 's wait'} for a speech model: get it under Models, or
          with the button beside the recording
        </p>
      ) : null}
      {s.skipped.length > 0 && (
        <details>
          <summary>{s.skipped.length} skipped</summary>
          <ul>
            {s.skipped.map((k) => (
              <li key={k.path}>
                {base(known(names, k.path))}: {k.reason}
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}

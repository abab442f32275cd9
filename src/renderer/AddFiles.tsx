// "Add files…": the desktop app's file dialog, or in a browser the file picker (the files are sent to
// kb serve, which keeps them) — on a new index's first steps, and in the Library whenever it has files.
import { useRef, useState } from 'react';
import type { KbBridge } from '../shared/api';

export function AddFiles({
  kb,
  onFiles,
  onPaths,
  primary = false,
  into = null,
}: {
  kb: KbBridge;
  /** Files chosen in a browser, and the collection they go into (a team's editor), or null. */
  onFiles: (files: File[], to: string | null) => void;
  /** Paths chosen in the desktop app's dialog. */
  onPaths: (paths: string[]) => void;
  primary?: boolean;
  /** A team's user on the server itself: the collections they may add to (they choose one), else null. */
  into?: string[] | null;
}) {
  const picker = useRef<HTMLInputElement>(null);
  const [to, setTo] = useState<string | null>(null);
  const chosen = into ? (to !== null && into.includes(to) ? to : (into[0] ?? null)) : null;
  if (into && into.length === 0) return null; // a reader adds nothing
  const pick = async (): Promise<void> => {
    if (kb.app) onPaths(await kb.app.pick('files'));
    else picker.current?.click();
  };
  return (
    <>
      <button className={primary ? 'primary' : undefined} onClick={() => void pick()}>
        Add files…
      </button>
      {into && into.length > 1 && (
        <select aria-label="Into the collection" value={chosen ?? ''} onChange={(e) => setTo(e.target.value)}>
          {into.map((c) => (
            <option key={c} value={c}>
              into {c}
            </option>
          ))}
        </select>
      )}
      {into && into.length === 1 && <span className="hint"> into {into[0]}</span>}
      <input
        ref={picker}
        type="file"
        multiple
        hidden
        aria-label="Choose files"
        onChange={(e) => {
          const files = [...(e.target.files ?? [])];
          e.target.value = '';
          if (files.length) onFiles(files, chosen);
        }}
      />
    </>
  );
}

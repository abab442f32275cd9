// "Add files…": the desktop app's file dialog, or in a browser the file picker (the files are sent to
// kb serve, which keeps them) — on a new index's first steps, and in the Library whenever it has files.
import { useRef } from 'react';
import type { KbBridge } from '../shared/api';

export function AddFiles({
  kb,
  onFiles,
  onPaths,
  primary = false,
}: {
  kb: KbBridge;
  /** Files chosen in a browser. */
  onFiles: (files: File[]) => void;
  /** Paths chosen in the desktop app's dialog. */
  onPaths: (paths: string[]) => void;
  primary?: boolean;
}) {
  const picker = useRef<HTMLInputElement>(null);
  const pick = async (): Promise<void> => {
    if (kb.app) onPaths(await kb.app.pick('files'));
    else picker.current?.click();
  };
  return (
    <>
      <button className={primary ? 'primary' : undefined} onClick={() => void pick()}>
        Add files…
      </button>
      <input
        ref={picker}
        type="file"
        multiple
        hidden
        aria-label="Choose files"
        onChange={(e) => {
          const files = [...(e.target.files ?? [])];
          e.target.value = '';
          if (files.length) onFiles(files);
        }}
      />
    </>
  );
}

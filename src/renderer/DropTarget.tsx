// The drop target the whole window shows while files are dragged over it: one place, or with a team
// server connected one per destination.
import { useEffect, useRef, useState } from 'react';
import type { DropPlace } from './hooks/useServerLink';
import { KINDS } from './Ingest';

/**
 * A visible drop target while something is dragged over the window; with a team server connected,
 * one place per destination (this computer, each server collection the person may add to), and the
 * drop goes where it lands.
 */
export function DropTarget({ onDrop, places = [] }: { onDrop: (dt: DataTransfer, to: string | null) => void; places?: DropPlace[] }) {
  const [over, setOver] = useState(false);
  const [hovered, setHovered] = useState<string | null>(null);
  const depth = useRef(0);
  useEffect(() => {
    const hasFiles = (e: DragEvent): boolean => [...(e.dataTransfer?.types ?? [])].includes('Files');
    const enter = (e: DragEvent): void => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      depth.current++;
      setOver(true);
    };
    const leave = (): void => {
      depth.current = Math.max(0, depth.current - 1);
      if (depth.current === 0) setOver(false);
    };
    const placeOf = (e: DragEvent): string | null => {
      const zone = e.target instanceof Element ? e.target.closest('[data-drop-to]') : null;
      return zone ? zone.getAttribute('data-drop-to') : null;
    };
    const overFn = (e: DragEvent): void => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
      setHovered(placeOf(e));
    };
    const drop = (e: DragEvent): void => {
      e.preventDefault(); // never let the window navigate to a dropped file
      depth.current = 0;
      setOver(false);
      // Dropped beside the places: this computer, as without a server.
      // A team's user on the server itself has its collections only: one of them takes the drop unasked.
      const only = places.length === 1 ? places[0]!.collection : null;
      if (e.dataTransfer && hasFiles(e)) onDrop(e.dataTransfer, placeOf(e) || only);
    };
    window.addEventListener('dragenter', enter);
    window.addEventListener('dragleave', leave);
    window.addEventListener('dragover', overFn);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragenter', enter);
      window.removeEventListener('dragleave', leave);
      window.removeEventListener('dragover', overFn);
      window.removeEventListener('drop', drop);
    };
  }, [onDrop, places]);
  if (!over) return null;
  if (places.length > 1)
    return (
      <div className="drop-target places" aria-hidden>
        <div>
          <strong>Drop onto where it goes</strong>
          <span>Files and folders: {KINDS}</span>
          <ul>
            {places.map((p) => (
              <li key={p.collection ?? ''} data-drop-to={p.collection ?? ''} className={hovered === (p.collection ?? '') ? 'on' : ''}>
                {p.label}
              </li>
            ))}
          </ul>
        </div>
      </div>
    );
  return (
    <div className="drop-target" aria-hidden>
      <div>
        <strong>Drop to add to kb</strong>
        <span>Files and folders: {KINDS}</span>
      </div>
    </div>
  );
}

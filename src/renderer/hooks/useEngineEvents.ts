// What the engine tells every window (shared/events.ts), as the app reacts to it: the engine's state
// for the banner and footer, and the work that changes what the views show.
import { useEffect, useState } from 'react';
import type { KbBridge } from '../../shared/api';
import type { BackgroundEvent, EventData } from '../../shared/events';

export interface EngineReactions {
  /** Something changed what every view shows: ask again. */
  refresh: () => void;
  showHit: (hit: EventData<'app:show-hit'>) => void;
  openSettings: () => void;
  addPaths: (paths: string[]) => void;
}

export function useEngineEvents(kb: KbBridge, react: EngineReactions): { engine: string; background: BackgroundEvent | null } {
  const [engine, setEngine] = useState('connecting…');
  const [background, setBackground] = useState<BackgroundEvent | null>(null);
  const { refresh, showHit, openSettings, addPaths } = react;
  useEffect(() => {
    kb.status({}).then(
      () => setEngine('ready'),
      (e: Error) => setEngine(e.message),
    );
    const offs = [
      kb.on('engine', ({ state, reconnected }) => {
        setEngine(state);
        if (reconnected) refresh(); // back: the current search and counts are asked again
      }),
      kb.on('app:show-hit', showHit),
      kb.on('app:preferences', openSettings),
      kb.on('app:ingest', ({ paths }) => addPaths(paths)),
      // A watched folder changed: counts, the library and the current results follow.
      kb.on('collections', refresh),
      // Another process (a kb ingest beside the app, another server on a shared store) changed the index.
      kb.on('changed', refresh),
      // A model arrived: its background work (embedding every passage, transcribing) is shown as it goes.
      kb.on('background', (e) => {
        setBackground(e);
        if (e.phase !== 'running') refresh();
      }),
    ];
    return () => offs.forEach((off) => off());
  }, [kb, refresh, showHit, openSettings, addPaths]);
  return { engine, background };
}

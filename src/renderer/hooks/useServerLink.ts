// The team server this app is connected to (Settings → Team server), and the collections there the
// person may add to: where a drop can go besides this computer. Asked again when the engine says the
// index changed (connecting or disconnecting says so too).
import { useEffect, useState } from 'react';
import type { KbBridge, ServerLink } from '../../shared/api';

export interface DropPlace {
  /** The server's collection, or null for this computer's index. */
  collection: string | null;
  label: string;
}

/** The link's state, and where a drop can go (none when no server is connected, or it cannot be reached). */
async function placesOf(kb: KbBridge): Promise<{ link: ServerLink | null; places: DropPlace[] }> {
  const link = await kb['server.status']({});
  if (!link.connected || !link.url) return { link, places: [] };
  const host = new URL(link.url).host;
  const { collections } = await kb['collections.list']({});
  return {
    link,
    places: [
      { collection: null, label: 'This computer' },
      ...collections.filter((c) => c.writable).map((c) => ({ collection: c.name, label: `${c.name} on ${host}` })),
    ],
  };
}

export function useServerLink(kb: KbBridge): { link: ServerLink | null; places: DropPlace[] } {
  const [state, setState] = useState<{ link: ServerLink | null; places: DropPlace[] }>({ link: null, places: [] });
  useEffect(() => {
    let live = true;
    const load = (): void =>
      void placesOf(kb).then(
        (s) => live && setState(s),
        () => live && setState((s) => ({ ...s, places: [] })), // a server that cannot be reached takes no drops; Settings says why
      );
    load();
    const off = kb.on('changed', load);
    return () => {
      live = false;
      off();
    };
  }, [kb]);
  return state;
}

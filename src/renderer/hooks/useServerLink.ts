// The team server this app is connected to (Settings → Team server), and the collections there the
// person may add to: where a drop can go besides this computer. Asked again when the engine says the
// index changed (connecting or disconnecting says so too).
import { useCallback, useEffect, useState } from 'react';
import type { KbBridge, ServerLink } from '../../shared/api';

export interface DropPlace {
  /** The server's collection, or null for this computer's index. */
  collection: string | null;
  label: string;
}

export function useServerLink(kb: KbBridge): { link: ServerLink | null; places: DropPlace[] } {
  const [link, setLink] = useState<ServerLink | null>(null);
  const [places, setPlaces] = useState<DropPlace[]>([]);
  const load = useCallback(async () => {
    try {
      const l = await kb['server.status']({});
      setLink(l);
      if (!l.connected || !l.url) return setPlaces([]);
      const host = new URL(l.url).host;
      const { collections } = await kb['collections.list']({});
      setPlaces([
        { collection: null, label: 'This computer' },
        ...collections.filter((c) => c.writable).map((c) => ({ collection: c.name, label: `${c.name} on ${host}` })),
      ]);
    } catch {
      setPlaces([]); // a server that cannot be reached takes no drops; Settings says why
    }
  }, [kb]);
  useEffect(() => {
    void load();
    return kb.on('changed', () => void load());
  }, [kb, load]);
  return { link, places };
}

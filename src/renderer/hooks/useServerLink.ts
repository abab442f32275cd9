// The team server this app is connected to (Settings → Team server), and the collections there the
// person may add to: where a drop can go besides this computer. A page signed in to kb serve as a
// team's user is on the team server itself: its drops go only into the collections they edit. Asked
// again when the engine says the index changed (connecting or disconnecting says so too).
import { useEffect, useState } from 'react';
import type { KbBridge, ServerLink } from '../../shared/api';
import type { Role } from '../../shared/cli-output';

export interface DropPlace {
  /** The server's collection, or null for this computer's index. */
  collection: string | null;
  label: string;
}

/** Who this page is for: a team's user signed in to kb serve, or (user null) the machine's owner. */
export interface Me {
  user: string | null;
  role: Role;
}

interface LinkState {
  link: ServerLink | null;
  places: DropPlace[];
  me: Me | null;
}

/** The link's state, and where a drop can go (none when no server is connected, or it cannot be reached). */
async function placesOf(kb: KbBridge): Promise<LinkState> {
  const me = await kb.whoami({});
  if (me.user !== null) {
    // Signed in to the team server itself: the collections here they may add to (none for a reader).
    const { collections } = await kb['collections.list']({});
    return { link: null, places: collections.filter((c) => c.writable).map((c) => ({ collection: c.name, label: c.name })), me };
  }
  const link = await kb['server.status']({});
  if (!link.connected || !link.url) return { link, places: [], me };
  const host = new URL(link.url).host;
  const { collections } = await kb['collections.list']({});
  return {
    link,
    places: [
      { collection: null, label: 'This computer' },
      ...collections.filter((c) => c.writable).map((c) => ({ collection: c.name, label: `${c.name} on ${host}` })),
    ],
    me,
  };
}

export function useServerLink(kb: KbBridge): LinkState {
  const [state, setState] = useState<LinkState>({ link: null, places: [], me: null });
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

// The query and the view live in the address (?q=…&view=…): a reload, or a link, opens the same search.
import { useEffect, useState } from 'react';
import { type View, VIEW_IDS } from '../views/table';

function fromAddress(): { q: string; view: View } {
  const u = new URLSearchParams(location.search);
  const v = u.get('view');
  return { q: u.get('q') ?? '', view: (VIEW_IDS as readonly string[]).includes(v ?? '') ? (v as View) : 'search' };
}

export function useAddressState(): { query: string; setQuery: (q: string) => void; view: View; setView: (v: View) => void } {
  const [query, setQuery] = useState(() => fromAddress().q);
  const [view, setView] = useState<View>(() => fromAddress().view);
  useEffect(() => {
    const u = new URLSearchParams(location.search);
    if (query) u.set('q', query);
    else u.delete('q');
    if (view !== 'search') u.set('view', view);
    else u.delete('view');
    const next = `${location.pathname}${u.size ? `?${u}` : ''}${location.hash}`;
    if (next !== `${location.pathname}${location.search}${location.hash}`) history.replaceState(null, '', next);
  }, [query, view]);
  return { query, setQuery, view, setView };
}

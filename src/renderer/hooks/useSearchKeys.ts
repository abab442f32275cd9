// The search's keys: Ctrl/⌘-K to the search box, ↑/↓ through the hits, Enter opens one (the viewer
// takes the keyboard), Esc closes the ask drawer.
import { type RefObject, useEffect } from 'react';
import type { ViewKeyMessage } from '../../shared/view-keys';

export interface SearchKeys {
  input: RefObject<HTMLInputElement | null>;
  list: RefObject<HTMLElement | null>;
  viewer: RefObject<HTMLElement | null>;
  /** How many hits the list shows, when the search view is open (else 0). */
  hits: number;
  asking: boolean;
  toSearch: () => void;
  move: (by: 1 | -1) => void;
  closeAsk: () => void;
}

export function useSearchKeys(k: SearchKeys): void {
  const { input, list, viewer, hits, asking, toSearch, move, closeAsk } = k;
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      // ↑/↓ move through the hits only from the search box or the list (or with nothing focused):
      // in the ask box they move the caret, in the viewer they scroll it.
      const at = document.activeElement;
      const onList = !at || at === document.body || at === input.current || Boolean(list.current?.contains(at));
      if ((e.metaKey || e.ctrlKey) && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        toSearch();
        input.current?.focus();
        input.current?.select();
      } else if ((e.key === 'ArrowDown' || e.key === 'ArrowUp') && hits > 0 && onList) {
        e.preventDefault();
        move(e.key === 'ArrowDown' ? 1 : -1);
      } else if (e.key === 'Escape' && asking) {
        // The drawer closes as a dialog does; its question and answer stay for when it opens again.
        e.preventDefault();
        closeAsk();
        input.current?.focus();
      } else if (e.key === 'Enter' && document.activeElement === input.current && hits > 0) {
        e.preventDefault();
        viewer.current?.focus(); // open: the viewer takes the keyboard (scrolling), Ctrl-K comes back
      }
    };
    // A rendered document's frame keeps the keyboard after a click in it: its one script posts Ctrl-K
    // and Esc here (shared/view-keys.ts), taken only from a viewer frame of this window.
    const onFrameKey = (e: MessageEvent): void => {
      const key = (e.data as Partial<ViewKeyMessage> | null)?.kbViewKey;
      if (key !== 'k' && key !== 'Escape') return;
      const frames = [...document.querySelectorAll<HTMLIFrameElement>('iframe.docview')];
      if (!frames.some((f) => f.contentWindow === e.source)) return;
      if (key === 'Escape' && !asking)
        input.current?.focus(); // out of the frame, back to the search
      else onKey(new KeyboardEvent('keydown', { key, ctrlKey: key === 'k' }));
    };
    window.addEventListener('keydown', onKey);
    window.addEventListener('message', onFrameKey);
    return () => {
      window.removeEventListener('keydown', onKey);
      window.removeEventListener('message', onFrameKey);
    };
  }, [input, list, viewer, hits, asking, toSearch, move, closeAsk]);
}

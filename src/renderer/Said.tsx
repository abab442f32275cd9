// What an action ended in, said next to the control that did it: an error or a note, brought into
// view as it appears (a form at the bottom of a long page must not fail off-screen).
import { useCallback, useLayoutEffect, useRef, useState } from 'react';
import { inApp } from './lib/in-app';

export interface Saying {
  ok: boolean;
  text: string;
}

export function Said({ said, as = 'p', place }: { said: Saying | null | undefined; as?: 'p' | 'span' | 'div'; place?: string }) {
  const ref = useRef<HTMLElement | null>(null);
  const text = said?.text;
  useLayoutEffect(() => {
    // `nearest` scrolls only as far as needed, and not at all when it is already in view.
    if (text) ref.current?.scrollIntoView?.({ block: 'nearest' });
  }, [text]);
  if (!said) return null;
  const Tag = as;
  return (
    <Tag
      ref={(el: HTMLElement | null) => void (ref.current = el)}
      className={said.ok ? 'note said' : 'error said'}
      role={said.ok ? 'status' : 'alert'}
      data-said={place}
    >
      {said.text}
    </Tag>
  );
}

/** One saying per place on a page (a model's row, a form), each replaced or cleared on its own. */
export function useSayings<K extends string>() {
  const [sayings, setSayings] = useState<Partial<Record<K, Saying>>>({});
  const say = useCallback((place: K, said: Saying | null) => {
    setSayings((s) => {
      const next = { ...s };
      if (said) next[place] = said;
      else delete next[place];
      return next;
    });
  }, []);
  const fail = useCallback(
    (place: K, e: unknown) => say(place, { ok: false, text: inApp(e instanceof Error ? e.message : String(e)) }),
    [say],
  );
  return { sayings, say, fail };
}

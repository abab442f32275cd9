// One model download at a time for the whole window — from first run, the Models view or a recording
// that waits for a speech model — with its progress, Cancel, and what it ended in.
import { useCallback, useRef, useState } from 'react';
import type { KbBridge } from '../../shared/api';
import { inApp } from './in-app';
import { formatBytes } from '../../shared/bytes';

export interface PullState {
  name: string;
  done: number;
  /** null while the hub has not said how big the model is. */
  total: number | null;
  file: string;
}

export interface ModelPull {
  pulling: PullState | null;
  /** The last pull's end, for people: installed, cancelled, or why it failed. */
  outcome: { name: string; ok: boolean; message: string } | null;
  start(name: string): void;
  cancel(): void;
}

export function useModelPull(kb: KbBridge, onInstalled: () => void): ModelPull {
  const [pulling, setPulling] = useState<PullState | null>(null);
  const [outcome, setOutcome] = useState<ModelPull['outcome']>(null);
  const ctl = useRef<AbortController | null>(null);
  const start = useCallback(
    (name: string) => {
      if (ctl.current) return;
      const mine = new AbortController();
      ctl.current = mine;
      setOutcome(null);
      setPulling({ name, done: 0, total: null, file: '' });
      kb['models.pull'](
        { name },
        {
          signal: mine.signal,
          onProgress: (p) => {
            setPulling({ name, done: p.done_bytes, total: p.total_bytes, file: p.file });
          },
        },
      )
        .then(
          (r) => {
            setOutcome({ name, ok: true, message: `${name} is installed (${formatBytes(r.model.bytes ?? 0)})` });
            onInstalled();
          },
          (e: Error) =>
            setOutcome({
              name,
              ok: false,
              message: mine.signal.aborted
                ? `Cancelled: ${name} was not installed. Getting it again resumes the download.`
                : inApp(e.message),
            }),
        )
        .finally(() => {
          ctl.current = null;
          setPulling(null);
        });
    },
    [kb, onInstalled],
  );
  const cancel = useCallback(() => ctl.current?.abort(), []);
  return { pulling, outcome, start, cancel };
}

// Progress bars on stderr, only when it is a terminal and output is not --json.
import type { GlobalOptions } from './context.js';
import { displayPath } from './output.js';

export interface CountBar {
  /** Shows done/total under a label; a new label starts a new bar. */
  update: (label: string, done: number, total: number, detail?: string) => void;
  stop: () => void;
}

export async function countBar(g: GlobalOptions): Promise<CountBar | null> {
  if (!process.stderr.isTTY || g.json) return null;
  const { default: cliProgress } = await import('cli-progress');
  const bar = new cliProgress.SingleBar(
    { format: '{label} [{bar}] {value}/{total} {detail}', hideCursor: true, clearOnComplete: true, stream: process.stderr },
    cliProgress.Presets.shades_classic,
  );
  let current: string | null = null;
  return {
    update: (label, done, total, detail = '') => {
      if (label !== current) {
        if (current !== null) bar.stop();
        bar.start(total, 0, { label, detail: '' });
        current = label;
      }
      bar.setTotal(total);
      const d = detail ? displayPath(detail) : '';
      bar.update(done, { label, detail: d.length > 40 ? '…' + d.slice(-39) : d });
    },
    stop: () => {
      if (current !== null) bar.stop();
      current = null;
    },
  };
}

// Loaded with `node --import`: on exit, reports the process's peak resident memory (all threads) and
// the longest the main thread's event loop was blocked (what a search typed meanwhile would wait).
import { monitorEventLoopDelay } from 'node:perf_hooks';

const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();
process.on('exit', () => {
  loop.disable();
  const ms = (ns) => (ns / 1e6).toFixed(1);
  process.stderr.write(
    `\nkb-bench max_rss_kb=${process.resourceUsage().maxRSS} loop_p99_ms=${ms(loop.percentile(99))} loop_max_ms=${ms(loop.max)}\n`,
  );
});

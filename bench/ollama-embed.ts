// kb's own cost when Ollama embeds: the same batches of kb's chunks sent to /api/embed directly (fetch
// and JSON) and through kb's provider, against a stub server in a process of its own that answers at
// once — so what differs is kb's overhead, not the model's time.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { OllamaEmbedder, OLLAMA_BATCH } from '../src/worker/embed/ollama.js';
import { ollamaSpec } from '../src/worker/embed/resolve.js';
import type { Check } from './util.js';
import { repoRoot } from './util.js';

const MODEL = 'all-minilm'; // no prefixes: both sides send the very same texts
const ROUNDS = 5;

export async function ollamaOverhead(chunks: string[]): Promise<{ lines: string[]; checks: Check[] }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'scripts', 'ollama-stub.ts'), `${MODEL}:latest`], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const [url] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
    const kb = await OllamaEmbedder.open(url, ollamaSpec(`ollama:${MODEL}`));
    const direct = async (input: string[]): Promise<void> => {
      const res = await fetch(`${url}/api/embed`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, input, truncate: true }),
      });
      const body = (await res.json()) as { embeddings: number[][] };
      if (body.embeddings.length !== input.length) throw new Error('short answer');
    };
    const batches: string[][] = [];
    for (let i = 0; i + OLLAMA_BATCH <= chunks.length; i += OLLAMA_BATCH) batches.push(chunks.slice(i, i + OLLAMA_BATCH));
    for (const b of batches.slice(0, 3)) {
      await direct(b);
      await kb.embed(b, 'passage');
    }
    const tDirect: number[] = [];
    const tKb: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, b] of batches.entries()) {
        // Alternating which goes first cancels whatever the order itself costs.
        for (const side of i % 2 === 0 ? ['direct', 'kb'] : ['kb', 'direct']) {
          const t = performance.now();
          if (side === 'direct') await direct(b);
          else await kb.embed(b, 'passage');
          (side === 'direct' ? tDirect : tKb).push(performance.now() - t);
        }
      }
    }
    // Medians: a garbage collection or a scheduler hiccup lands on one side or the other at random.
    const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
    const n = tDirect.length;
    const overhead = (100 * (median(tKb) - median(tDirect))) / median(tDirect);
    return {
      lines: [
        `Ollama provider (stub server answering at once, ${kb.spec.dimension}-d): ${n} batches of ${OLLAMA_BATCH} chunks; ` +
          `/api/embed directly ${median(tDirect).toFixed(2)} ms a batch (median), through kb ${median(tKb).toFixed(2)} ms (${overhead >= 0 ? '+' : ''}${overhead.toFixed(1)}%)`,
      ],
      checks: [
        {
          what: "kb's overhead per batch over calling /api/embed directly",
          value: Math.max(0, overhead),
          target: 5,
          better: 'lower',
          unit: '%',
        },
      ],
    };
  } finally {
    child.kill();
  }
}

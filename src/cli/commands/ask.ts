// `kb ask QUESTION`: a grounded answer through the local Ollama model, streamed as it is written, then
// its sources; a refusal when the documents hold too little; the evidence and what to do when no
// model can be reached. Ctrl-C stops the answer.
import type { AskResult } from '../../shared/wire.js';
import { KbError } from '../../shared/errors.js';
import { type GlobalOptions, withClient } from '../context.js';
import { EXIT, bold, cyan, dim, displayPath, line, printJson, yellow } from '../output.js';

export async function askCommand(words: string[], flags: { top?: number }, g: GlobalOptions): Promise<number> {
  return withClient(g, async (kb) => {
    const question = words.join(' ').trim();
    if (!question) throw new KbError('INVALID_ARGUMENT', 'ask a question, e.g. kb ask "how do I set up git on Linux?"');
    const top = flags.top;
    const ctl = new AbortController();
    const stop = (): void => ctl.abort();
    process.once('SIGINT', stop);
    let streamed = false;
    try {
      const result = await kb.ask(
        { question, ...(top ? { top } : {}) },
        {
          signal: ctl.signal,
          onProgress: (p) => {
            if (g.json || p.kind !== 'token') return;
            streamed = true;
            process.stdout.write(p.text);
          },
        },
      );
      if (g.json) printJson(result);
      else printHuman(result, streamed);
      return result.llm.status === 'unavailable' ? EXIT.error : EXIT.ok;
    } catch (e) {
      if (streamed && !g.json) line();
      if (ctl.signal.aborted) throw new KbError('INVALID_ARGUMENT', 'stopped');
      throw e;
    } finally {
      process.off('SIGINT', stop);
    }
  });
}

function printHuman(r: AskResult, streamed: boolean): void {
  if (streamed) line('\n');
  else if (r.answer) line(`${r.answer}\n`);
  if (r.refused && !streamed) {
    if (!r.answer) line(`${r.reason}\n`);
    if (r.sources.length) line(dim('The nearest passages:'));
  }
  if (r.llm.status === 'unavailable') line(`${yellow(r.llm.reason ?? 'no language model')}\n${dim('The passages that match best:')}`);
  const used = new Set(r.citations.map((c) => c.n));
  for (const s of r.sources) {
    if (r.citations.length && !used.has(s.n) && !r.refused) continue; // an answer lists what it cites
    line(`${bold(`[${s.n}]`)} ${cyan(s.hit.citation.label ?? displayPath(s.hit.citation.path))}`);
    if (r.llm.status === 'unavailable' || r.refused) line(`    ${dim(s.hit.snippet)}`);
  }
  if (r.invalid_citations.length)
    line(yellow(`removed citations of sources that were not given: ${r.invalid_citations.map((n) => `[${n}]`).join(' ')}`));
  if (r.uncited_sentences.length)
    line(
      yellow(
        `${r.uncited_sentences.length} sentence${r.uncited_sentences.length === 1 ? '' : 's'} cite no source: check them against the documents`,
      ),
    );
  // Name the model only when it wrote something: a refusal or an unreachable server involved none.
  const by =
    r.llm.status === 'unavailable'
      ? 'no answer: the language model was not reached'
      : r.model === null
        ? 'refused without asking the model'
        : `answered by ${r.model}`;
  line(dim(`${by} · ${r.took_ms} ms`));
}

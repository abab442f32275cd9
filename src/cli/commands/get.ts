// `kb get TARGET`: prints a cited span — the lines, the page's text, the transcript of a stretch of time.
import { type GlobalOptions, withClient } from '../context.js';
import { cyan, dim, line, printJson, yellow } from '../output.js';
import { plural } from '../../shared/words.js';
import { terminalSafe } from '../terminal-text.js';

export async function getCommand(target: string, flags: { max?: number }, g: GlobalOptions): Promise<number> {
  return withClient(g, async (kb) => {
    const span = await kb.get({ target, ...(flags.max !== undefined ? { max_chars: flags.max } : {}) });
    if (g.json) return void printJson(span);
    line(cyan(terminalSafe(span.citation.label ?? span.citation.uri)));
    if (span.stale) line(yellow('(the file changed since it was indexed: the lines may have moved)'));
    line(terminalSafe(span.text));
    if (span.truncated) line(dim(`… cut at ${flags.max ?? 20000} characters (--max N for more)`));
  });
}

export async function statusCommand(g: GlobalOptions): Promise<number> {
  return withClient(g, async (kb) => {
    const s = await kb['index.status']({});
    if (g.json) return void printJson(s);
    // A team's reader or editor is told nothing of where the server keeps anything (read/team-view.ts).
    const at = (where: string): string => (where ? ` at ${where}` : '');
    const where = s.store.kind === 'postgres' ? `the PostgreSQL index${at(s.store.where)}` : s.data_dir || 'the index';
    line(`${plural(s.documents, 'document')}, ${plural(s.chunks, 'chunk')} in ${where}`);
    for (const c of s.collections) line(`  collection ${c.name}: ${plural(c.documents, 'document')}${c.root ? ` (${c.root})` : ''}`);
    line(`embedding model ${s.embedding.model}: ${s.embedding.installed ? 'installed' : dim('not installed')}`);
    line(`speech model ${s.speech.model}: ${s.speech.installed ? 'installed' : dim('not installed')}`);
    line(`language model ${s.llm.model}${at(s.llm.host)}: ${s.llm.status === 'ok' ? 'ready' : yellow(s.llm.detail)}`);
    if (s.logs) line(dim(`logs in ${s.logs} (kb logs)`));
  });
}

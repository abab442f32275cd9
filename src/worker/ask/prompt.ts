// The prompt: the model may use only the numbered sources, must cite each claim inline as [n], and must
// say so in a fixed sentence when the sources do not answer, so kb can tell that from an answer.
import type { AskSource } from '../../shared/wire.js';
import type { ChatMessage } from '../ollama.js';

/** What the model is told to write when the sources do not hold the answer. */
export const NOT_IN_DOCUMENTS = 'The documents do not say.';

const SYSTEM = `You answer questions from the user's own documents. You are given numbered sources.
Rules:
- Use only the sources. Do not use anything you know from elsewhere.
- After every sentence that states something from a source, cite it with its number in square brackets, like [1] or [2][3].
- Cite only the numbers of the sources given.
- If the sources do not contain the answer, reply with exactly: ${NOT_IN_DOCUMENTS}
- Be brief. Answer in the language of the question.`;

export function buildPrompt(question: string, sources: AskSource[]): ChatMessage[] {
  const blocks = sources.map((s) => `[${s.n}] ${s.hit.citation.label ?? s.hit.source.title}\n${s.hit.text.trim()}`);
  return [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: `Sources:\n\n${blocks.join('\n\n')}\n\nQuestion: ${question.trim()}` },
  ];
}

/** Tokens the prompt around the sources takes (system text, question, labels): kept out of the source budget. */
export function promptOverheadTokens(question: string): number {
  return Math.ceil((SYSTEM.length + question.length + 40) / 3.5);
}

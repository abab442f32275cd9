// Natural language of a document (ISO 639-1), for the `--lang` filter. Code documents carry their
// programming language instead, set by the code parser.
import { detect } from 'tinyld/light';

export function detectLanguage(text: string): string | null {
  // The first 400 characters decide the language about as well as the whole text, at a fraction of the cost.
  const sample = text.slice(0, 400);
  if (sample.trim().length < 20) return null;
  const lang = detect(sample);
  return lang || null;
}

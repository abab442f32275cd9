// Natural language of a document (ISO 639-1), for the `--lang` filter. Code documents carry their
// programming language instead, set by the code parser.
import { detect } from 'tinyld';

export function detectLanguage(text: string): string | null {
  const sample = text.slice(0, 4000);
  if (sample.trim().length < 20) return null;
  const lang = detect(sample);
  return lang || null;
}

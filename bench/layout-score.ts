// Scores a PDF's page texts against the layout ground truth (fixtures/pdf-layout/*.json, made by
// scripts/make-layout-pdfs.ts): phrase recall, paragraph order and header/footer leakage. Shared by
// `npm run bench -- pdf-layout` and the tests, so both judge reading order the same way.
import type { Truth } from '../scripts/make-layout-pdfs.js';

export type { Truth } from '../scripts/make-layout-pdfs.js';

const PHRASE = 8;

/**
 * Words as a search sees them: NFKC (ligatures undone), lower case, hyphens between letters dropped
 * whether a line break follows or not (so "well-known", "well- known" and "wellknown" compare equal:
 * hyphenation is judged by its own test, not here), everything else that is not a letter or digit a gap.
 */
export function words(text: string): string[] {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/(\p{L})-\s*(\p{L})/gu, '$1$2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** The truth's 8-word phrases of a paragraph, one every 4 words; a shorter paragraph is one phrase. */
function phrases(para: string): { phrase: string; offset: number }[] {
  const ws = words(para);
  if (ws.length <= PHRASE) return [{ phrase: ws.join(' '), offset: 0 }];
  const out: { phrase: string; offset: number }[] = [];
  for (let i = 0; i + PHRASE <= ws.length; i += 4) out.push({ phrase: ws.slice(i, i + PHRASE).join(' '), offset: i });
  return out;
}

export interface PageScore {
  phrases: number;
  found: number;
  pairs: number;
  ordered: number;
  furniture: number;
  leaked: number;
}

/** Where, in words, the paragraph starts in the page (from its first phrase that is found there). */
function locate(page: string, para: string): number | null {
  for (const { phrase, offset } of phrases(para)) {
    const at = page.indexOf(` ${phrase} `);
    if (at >= 0) return page.slice(0, at).split(' ').length - 1 - offset;
  }
  return null;
}

export function scorePage(text: string, truth: Truth['pages'][number]): PageScore {
  const page = ` ${words(text).join(' ')} `;
  const s: PageScore = { phrases: 0, found: 0, pairs: 0, ordered: 0, furniture: 0, leaked: 0 };
  for (const flow of truth.flows) {
    for (const para of flow.paras) {
      for (const { phrase } of phrases(para)) {
        s.phrases++;
        if (page.includes(` ${phrase} `)) s.found++;
      }
    }
    for (let i = 1; i < flow.paras.length; i++) {
      s.pairs++;
      const a = locate(page, flow.paras[i - 1]!);
      const b = locate(page, flow.paras[i]!);
      if (a !== null && b !== null && a < b) s.ordered++;
    }
  }
  for (const f of truth.furniture) {
    s.furniture++;
    // A page number leaks as a line of its own; a running title anywhere.
    const leaked = /^\d+$/.test(f) ? new RegExp(`(^|\\n)\\s*${f}\\s*(\\n|$)`).test(text) : page.includes(` ${words(f).join(' ')} `);
    if (leaked) s.leaked++;
  }
  return s;
}

export function addScores(a: PageScore, b: PageScore): PageScore {
  return {
    phrases: a.phrases + b.phrases,
    found: a.found + b.found,
    pairs: a.pairs + b.pairs,
    ordered: a.ordered + b.ordered,
    furniture: a.furniture + b.furniture,
    leaked: a.leaked + b.leaked,
  };
}

export const emptyScore = (): PageScore => ({ phrases: 0, found: 0, pairs: 0, ordered: 0, furniture: 0, leaked: 0 });

/** 8-word phrases of each truth paragraph as a person would type them (hyphens as spaces), with their page. */
export function truthPhrases(truth: Truth): { phrase: string; page: number }[] {
  const out: { phrase: string; page: number }[] = [];
  for (const p of truth.pages) {
    for (const para of p.flows.flatMap((f) => f.paras)) {
      const ws = para
        .normalize('NFKC')
        .toLowerCase()
        .split(/[^\p{L}\p{N}]+/u)
        .filter(Boolean);
      for (let i = 0; i + PHRASE <= ws.length; i += 4) out.push({ phrase: ws.slice(i, i + PHRASE).join(' '), page: p.page });
    }
  }
  return out;
}

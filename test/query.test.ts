import { describe, expect, it } from 'vitest';
import { ftsString, parseQuery, toFtsExpression } from '../src/worker/search/query.js';

describe('query parsing', () => {
  it('drops stopwords and stems what is left', () => {
    const q = parseQuery('How do I install the git client?', { prefix: false });
    expect(q.terms.map((t) => t.text)).toEqual(['install', 'git', 'client']);
    expect(q.terms[0]!.stem).toBe('instal');
  });

  it('keeps stopwords when nothing else is left', () => {
    expect(parseQuery('to be or not to be', { prefix: false }).terms.map((t) => t.text)).toEqual(['to', 'be', 'or', 'not']);
  });

  it('reads balanced double quotes as phrases and ignores an unbalanced one', () => {
    const q = parseQuery('"exact phrase here" extra', { prefix: false });
    expect(q.phrases).toEqual([['exact', 'phrase', 'here']]);
    expect(q.terms.map((t) => t.text)).toEqual(['extra']);
    const u = parseQuery('unbalanced "quote here', { prefix: false });
    expect(u.phrases).toEqual([]);
    expect(u.terms.map((t) => t.text)).toEqual(['unbalanced', 'quote']);
  });

  it('passes a single-quoted query through as raw FTS5', () => {
    const q = parseQuery("'git NEAR/3 install'", { prefix: false });
    expect(q.kind).toBe('raw');
    expect(q.raw).toBe('git NEAR/3 install');
  });

  it('makes the last word a prefix while typing', () => {
    const q = parseQuery('git conf', { prefix: true });
    expect(q.terms.at(-1)).toMatchObject({ text: 'conf', prefix: true });
    expect(toFtsExpression(q.terms, q.phrases)).toBe('"git" OR "conf"*');
    expect(parseQuery('git conf ', { prefix: true }).terms.at(-1)!.prefix).toBe(false);
    // One or two letters are not expanded yet (thousands of terms); the third makes it a prefix.
    expect(parseQuery('git co', { prefix: true }).terms.map((t) => t.prefix)).toEqual([false, false]);
    expect(parseQuery('git con', { prefix: true }).terms.at(-1)).toMatchObject({ text: 'con', prefix: true });
  });

  it('escapes everything FTS5 treats as syntax', () => {
    const q = parseQuery('a^b * c:d (e) -f +g "h', { prefix: false });
    const expr = toFtsExpression(q.terms, q.phrases);
    for (const part of expr.split(' OR ')) expect(part).toMatch(/^"[^"]+"\*?$/);
    expect(ftsString('say "hi"')).toBe('"say ""hi"""');
  });

  it('separates CJK and Korean words for substring matching', () => {
    const q = parseQuery('형태소 분석 parser', { prefix: false });
    expect(q.cjk).toEqual(['형태소', '분석']);
    expect(q.terms.map((t) => t.text)).toEqual(['parser']);
  });

  it('sees an empty or punctuation-only query as empty', () => {
    expect(parseQuery('', { prefix: false }).kind).toBe('empty');
    expect(parseQuery('  ?!* ', { prefix: false }).kind).toBe('empty');
    expect(parseQuery("''", { prefix: false }).kind).toBe('empty');
  });
});

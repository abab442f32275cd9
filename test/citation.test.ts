import { describe, expect, it } from 'vitest';
import { citationLabel, fileUriToPath, makeCitation, parseCitationUri, pathToFileUri } from '../src/shared/citation.js';

describe('citation URIs', () => {
  const awkward = ['/home/u/my notes/a b.md', '/tmp/#hash/100%.md', '/tmp/한국어/노트.md', '/tmp/ü é/ß?.txt', '/tmp/a&b=c;d.md'];

  it.each(awkward)('round-trips %s', (path) => {
    const c = makeCitation(path, { kind: 'lines', start: 12, end: 34 }, 'Setup > Linux');
    expect(c.uri).toMatch(/^file:\/\/\/[^ #%]*(%[0-9A-F]{2}[^ #%]*)*#L12-L34$/);
    expect(c.uri.split('#').length).toBe(2);
    const back = parseCitationUri(c.uri);
    expect(back.path).toBe(path);
    expect(back).toMatchObject({ kind: 'lines', start: 12, end: 34 });
    expect(fileUriToPath(pathToFileUri(path))).toBe(path);
  });

  it('formats every fragment of the citation grammar', () => {
    expect(makeCitation('/a.pdf', { kind: 'page', page: 7 }).uri).toBe('file:///a.pdf#page=7');
    expect(makeCitation('/t.mp3', { kind: 'time', start: 754, end: 812.5 }).uri).toBe('file:///t.mp3#t=754,812.5');
    expect(makeCitation('/i.png', { kind: 'region', x: 120, y: 40, w: 600, h: 180 }).uri).toBe('file:///i.png#xywh=120,40,600,180');
    expect(parseCitationUri('file:///t.mp3#t=754,812.5')).toMatchObject({ kind: 'time', start: 754, end: 812.5 });
  });

  it('encodes Windows drive paths', () => {
    expect(pathToFileUri('C:\\Users\\me\\a b.md')).toBe('file:///C:/Users/me/a%20b.md');
  });

  it('labels citations for people', () => {
    const c = makeCitation('/n/setup.md', { kind: 'lines', start: 12, end: 34 }, 'Setup > Linux');
    expect(citationLabel(c, 'setup.md')).toBe('setup.md · L12–34 § Setup › Linux');
    expect(citationLabel(makeCitation('/n/x.md', { kind: 'lines', start: 3, end: 3 }), 'x.md')).toBe('x.md · L3');
  });

  it('rejects what it cannot parse', () => {
    expect(() => parseCitationUri('file:///a.md')).toThrow(/fragment/);
    expect(() => parseCitationUri('file:///a.md#nope')).toThrow(/unknown/);
  });
});

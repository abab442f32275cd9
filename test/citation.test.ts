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

  it('reads the time fragments media players take: an instant, from the start, clocks, npt:', () => {
    expect(parseCitationUri('file:///t.mp3#t=4')).toMatchObject({ kind: 'time', start: 4, end: 4 });
    expect(parseCitationUri('file:///t.mp3#t=,20')).toMatchObject({ kind: 'time', start: 0, end: 20 });
    expect(parseCitationUri('file:///t.mp3#t=12:34,1:02:03.5')).toMatchObject({ kind: 'time', start: 754, end: 3723.5 });
    expect(parseCitationUri('file:///t.mp3#t=npt:10,20')).toMatchObject({ kind: 'time', start: 10, end: 20 });
    expect(() => parseCitationUri('file:///t.mp3#t=')).toThrow(/unknown citation fragment/);
    expect(() => parseCitationUri('file:///t.mp3#t=1:2:3:4')).toThrow(/unknown citation fragment/);
  });

  it.each([
    ['/r.docx', { kind: 'para', start: 12, end: 18 }, 'para=12-18', 'r.docx · ¶ 12–18'],
    ['/r.docx', { kind: 'para', start: 4, end: 4 }, 'para=4', 'r.docx · ¶ 4'],
    ['/d.pptx', { kind: 'slide', slide: 7 }, 'slide=7', 'd.pptx · slide 7'],
    ['/c.csv', { kind: 'rows', start: 12, end: 40 }, 'row=12-40', 'c.csv · rows 12–40'],
    ['/b.xlsx', { kind: 'rows', start: 3, end: 3, sheet: 'Q3 & Q4' }, 'sheet=Q3%20%26%20Q4&row=3', 'b.xlsx · Q3 & Q4 row 3'],
    [
      '/p.html',
      { kind: 'text', start: 'rock-solid, a & b', end: 'the end' },
      ':~:text=rock%2Dsolid%2C%20a%20%26%20b,the%20end',
      'p.html · “rock-solid, a & b”',
    ],
    ['/p.html', { kind: 'text', start: 'only start' }, ':~:text=only%20start', 'p.html · “only start”'],
    // Read from a URI alone, the chapter as a reader counts it is not known: the file of the reading order.
    ['/b.epub', { kind: 'cfi', cfi: '/6/14[chap05]!/4/2,/10,/18' }, 'epubcfi(/6/14[chap05]!/4/2,/10,/18)', 'b.epub · part 7'],
    ['/m.mbox', { kind: 'msg', id: 'abc@example.org' }, 'msg=abc%40example.org', 'm.mbox · message <abc@example.org>'],
    // Characters of a very long line, as GitHub writes them.
    ['/dump.txt', { kind: 'lines', start: 1, end: 1, col_start: 4097, col_end: 8192 }, 'L1C4097-L1C8192', 'dump.txt · L1 chars 4097–8192'],
    ['/a.js', { kind: 'lines', start: 2, end: 3, col_start: 9, col_end: 40 }, 'L2C9-L3C40', 'a.js · L2:9–L3:40'],
  ] as const)('%s#%s round-trips and reads as "%s"', (path, anchor, fragment, label) => {
    const c = makeCitation(path, anchor);
    expect(c.uri).toBe(`file://${path}#${fragment}`);
    expect(parseCitationUri(c.uri)).toMatchObject(anchor);
    expect(citationLabel(c, path.slice(1))).toBe(label);
  });

  it("labels a mailbox's message by its subject, not its Message-ID", () => {
    const c = makeCitation('/m.mbox', { kind: 'msg', id: 'CAF3xq9+Zk@mail.gmail.com' }, 'Re: the sluice gate');
    expect(citationLabel(c, 'm.mbox')).toBe('m.mbox · message § Re: the sluice gate');
    expect(c.uri).toBe('file:///m.mbox#msg=CAF3xq9%2BZk%40mail.gmail.com');
  });

  it('labels an e-book passage by its chapter as a reader counts them, when the index knows it', () => {
    const c = makeCitation('/b.epub', { kind: 'cfi', cfi: '/6/14[chap05]!/4/2,/10,/18', chapter: 5 });
    expect(c.uri).toBe('file:///b.epub#epubcfi(/6/14[chap05]!/4/2,/10,/18)');
    expect(citationLabel(c, 'b.epub')).toBe('b.epub · ch. 5');
  });

  it('reads RFC 7111 open ranges and text fragments with a prefix and suffix', () => {
    expect(parseCitationUri('file:///c.csv#row=5-*')).toMatchObject({ kind: 'rows', start: 5, end: Number.MAX_SAFE_INTEGER });
    expect(parseCitationUri('file:///p.html#:~:text=an-,start%20here,end%20here,-after')).toMatchObject({
      kind: 'text',
      start: 'start here',
      end: 'end here',
      prefix: 'an',
      suffix: 'after',
    });
    // Written back as browsers read it: prefix-,start,end,-suffix, each part's own - and , encoded.
    const c = makeCitation('/p.html', { kind: 'text', start: 'the report', end: 'its end', prefix: 'read-only', suffix: 'next' });
    expect(c.uri).toBe('file:///p.html#:~:text=read%2Donly-,the%20report,its%20end,-next');
    expect(parseCitationUri(c.uri)).toMatchObject({
      kind: 'text',
      start: 'the report',
      end: 'its end',
      prefix: 'read-only',
      suffix: 'next',
    });
    expect(parseCitationUri('file:///p.html#:~:text=only%20start,-after')).toMatchObject({
      kind: 'text',
      start: 'only start',
      suffix: 'after',
    });
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

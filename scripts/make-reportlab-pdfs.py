# Layout fixtures from another producer: ReportLab, as many generated reports, statements and
# transcripts are made. Writes fixtures/pdf-layout/rl-*.pdf and their ground truth (*.json, the format
# of scripts/make-layout-pdfs.ts: each page's paragraphs in reading order and its furniture — running
# heads, footers, page numbers — that must not reach the index). The PDFs are committed; this script
# only remakes them: python3 -m pip install reportlab==4.* && python3 scripts/make-reportlab-pdfs.py
import json
import os
import random

from reportlab.lib.pagesizes import A4, letter
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.pdfgen import canvas
from reportlab.platypus import BaseDocTemplate, Frame, PageTemplate, Paragraph, Spacer

OUT = os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'pdf-layout')

# No digits, and none of the words the heads and footers use, so a leak is unambiguous.
VOCAB = (
    'river mountain engine window theory garden silver market pattern signal harbour lantern meadow '
    'practical comprehensive responsibility administration environmental consideration organisation '
    'interpretation characteristic documentation infrastructure transportation acknowledgement '
    'apple basket candle dragon eagle falcon glacier hammer island jungle kettle ladder magnet '
    'needle orchard pepper quartz rabbit saddle tunnel umbrella valley walnut yellow zipper '
    'careful gentle honest humble lively modest narrow polite quiet rapid steady tender vivid '
    'measure observe arrange balance collect deliver explain follow gather handle improve '
    'journey kingdom library machine network orchestra passenger question research science '
    'the of and to in for with on by from as at into over under between through across'
).split()


def para(r, n):
    words = [r.choice(VOCAB) for _ in range(n)]
    words[0] = words[0].capitalize()
    return ' '.join(words) + '.'


def flowing(name, layout, pagesize, paragraphs, head, foot, columns=1, seed=1):
    """A report set by platypus: paragraphs flowing through one or two frames, heads and feet drawn per page."""
    total = None
    for _ in range(2):  # the second pass knows how many pages there are ("Page 2 of 6")
        total = set_flowing(name, layout, pagesize, paragraphs, head, lambda n: foot(n, total), columns, seed)


def set_flowing(name, layout, pagesize, paragraphs, head, foot, columns, seed):
    r = random.Random(seed)
    styles = getSampleStyleSheet()
    body = styles['BodyText']
    path = os.path.join(OUT, f'{name}.pdf')
    W, H = pagesize
    margin = 72
    gap = 18
    width = (W - 2 * margin - gap * (columns - 1)) / columns
    frames = [Frame(margin + i * (width + gap), margin, width, H - 2 * margin, id=f'c{i}') for i in range(columns)]
    furniture = {}
    placed = {}

    def decorate(c, doc):
        n = doc.page
        furniture[n] = []
        c.saveState()
        for text, x, y, size, align in head(n) + foot(n):
            c.setFont('Helvetica', size)
            {'l': c.drawString, 'r': c.drawRightString, 'c': c.drawCentredString}[align](x, y, text)
            furniture[n].append(text)
        c.restoreState()

    class Doc(BaseDocTemplate):
        def afterFlowable(self, flowable):
            if isinstance(flowable, Paragraph):
                placed.setdefault(self.page, []).append(flowable.getPlainText())

    # Paragraphs are never split across frames: the truth knows each one whole, where it stands.
    doc = Doc(path, pagesize=pagesize, title=name.replace('-', ' '), author='kb fixtures', invariant=1, allowSplitting=0)
    doc.addPageTemplates([PageTemplate(id='all', frames=frames, onPage=decorate)])
    story = []
    for _ in range(paragraphs):
        story.append(Paragraph(para(r, r.randint(40, 70)), body))
        story.append(Spacer(1, 6))
    doc.build(story)
    truth_pages = []
    for n in sorted(furniture):
        texts = placed.get(n, [])
        truth_pages.append({'page': n, 'flows': [{'kind': 'body', 'paras': texts}], 'furniture': furniture[n]})
    write_truth(name, layout, truth_pages)
    return len(truth_pages)


def write_truth(name, layout, pages):
    with open(os.path.join(OUT, f'{name}.json'), 'w') as f:
        json.dump({'name': name, 'layout': layout, 'producer': 'ReportLab', 'pages': pages}, f, indent=1)
        f.write('\n')


def report():
    W, H = A4
    flowing(
        'rl-report',
        'report: small running head, "Page N of M" footer',
        A4,
        50,
        lambda n: [('Ashby Water Board \u00b7 Annual Report on the Reservoir Works', 72, H - 44, 8, 'l')],
        lambda n, total: [(f'Page {n} of {total}', W / 2, 36, 9, 'c')],
        seed=11,
    )


def book():
    W, H = letter
    chapters = ['Chapter One: Fenland Crossings', 'Chapter Two: Weirs and Sluices', 'Chapter Three: Quarry Ponds']

    def head(n):
        # Alternating heads, the page number at the outer corner on the same line.
        if n % 2 == 0:
            return [(str(n + 112), 72, H - 50, 9, 'l'), ('THE DRAINAGE OF THE LOWLANDS', W / 2, H - 50, 9, 'c')]
        return [(chapters[min(n // 3, 2)], W / 2, H - 50, 9, 'c'), (str(n + 112), W - 72, H - 50, 9, 'r')]

    flowing('rl-book', 'book: alternating heads, numbers at the outer corner', letter, 60, head, lambda n, total: [], seed=12)


def journal():
    W, H = A4

    def head(n):
        if n == 1:
            return [('Journal of Lowland Hydrology 41 (2025) 233\u2013251', W / 2, H - 40, 8, 'c')]
        return [('J. Lowl. Hydrol. 41 (2025) 233\u2013251', 72, H - 40, 8, 'l'), (str(232 + n), W - 72, H - 40, 8, 'r')]

    def foot(n, total):
        return [('\u00a9 2025 Fenland Press. All rights reserved.', W / 2, 30, 7, 'c')] if n == 1 else []

    flowing('rl-journal', 'journal: two columns, first-page citation line and copyright', A4, 45, head, foot, columns=2, seed=13)


def memo():
    W, H = letter
    path = os.path.join(OUT, 'rl-memo.pdf')
    r = random.Random(14)
    c = canvas.Canvas(path, pagesize=letter, invariant=1)
    c.setTitle('rl memo')
    pages = []
    for n in range(1, 5):
        paras = []
        y = H - 90
        c.setFont('Helvetica', 10)
        for _ in range(5):
            text = para(r, 55)
            words = text.split()
            lines, line = [], []
            for w in words:
                if c.stringWidth(' '.join(line + [w]), 'Helvetica', 10) > W - 160:
                    lines.append(' '.join(line))
                    line = []
                line.append(w)
            lines.append(' '.join(line))
            for ln in lines:
                c.drawString(80, y, ln)
                y -= 13
            y -= 10
            paras.append(text)
        # A production stamp set vertically in the margin, and a footer with the page in dashes.
        c.saveState()
        c.setFont('Helvetica-Bold', 9)
        c.translate(40, H / 2)
        c.rotate(90)
        c.drawCentredString(0, 0, 'CONFIDENTIAL \u2014 DRAFT FOR THE BOARD ONLY')
        c.restoreState()
        c.setFont('Helvetica', 8)
        c.drawCentredString(W / 2, 30, f'- {n} -')
        c.drawRightString(W - 72, 30, 'Ashby Water Board')
        pages.append({'page': n, 'flows': [{'kind': 'body', 'paras': paras}], 'furniture': ['CONFIDENTIAL \u2014 DRAFT FOR THE BOARD ONLY', str(n), 'Ashby Water Board']})
        c.showPage()
    c.save()
    write_truth('rl-memo', 'memo: vertical margin stamp, dashed page number', pages)


def transcript():
    W, H = letter
    path = os.path.join(OUT, 'rl-transcript.pdf')
    r = random.Random(15)
    c = canvas.Canvas(path, pagesize=letter, invariant=1)
    c.setTitle('rl transcript')
    pages = []
    for n in range(1, 6):
        printed = 46 + n
        c.setFont('Courier', 12)
        c.drawRightString(W - 72, H - 60, str(printed))
        paras = []
        for i in range(25):
            y = H - 100 - i * 24
            text = para(r, 9)[:-1]
            while c.stringWidth(text, 'Courier', 12) > W - 120 - 60:  # a line the page can hold
                text = text.rsplit(' ', 1)[0]
            c.drawRightString(100, y, str(i + 1))
            c.drawString(120, y, text)
            paras.append(text)
        c.setFont('Courier', 9)
        c.drawCentredString(W / 2, 40, 'FENLAND DISTRICT REPORTERS, P.C.')
        # Each numbered line is a paragraph of its own: a phrase never runs across a line number.
        pages.append({'page': n, 'flows': [{'kind': 'body', 'paras': paras}], 'furniture': [str(printed), 'FENLAND DISTRICT REPORTERS, P.C.']})
        c.showPage()
    c.save()
    write_truth('rl-transcript', 'transcript: bare printed page number, numbered lines', pages)


if __name__ == '__main__':
    report()
    book()
    journal()
    memo()
    transcript()

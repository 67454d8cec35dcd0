"""compendium.book.pdf prints HTML to PDF with headless Chromium, offline, after MathJax; check_pdf reads it back."""

import base64
import shutil
import subprocess
import zlib

import pytest

from compendium.book import pdf
from compendium.pipeline import paths

needs_chromium = pytest.mark.skipif(
    not (shutil.which("chromium") or shutil.which("chromium-browser")), reason="no Chromium installed"
)
needs_poppler = pytest.mark.skipif(not shutil.which("pdftotext"), reason="poppler-utils not installed")

# a 2x2 red PNG
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg=="
)
MATHJAX = (paths.BOOK / "_static" / "mathjax" / "tex-svg.js").as_uri()


def _page(tmp_path, mathjax=True):
    (tmp_path / "dot.png").write_bytes(PNG)
    script = f'<script defer src="{MATHJAX}"></script>' if mathjax else ""
    html = tmp_path / "page.html"
    html.write_text(
        f"""<!doctype html><html><head><meta charset="utf-8"><title>t</title>{script}</head>
<body><main><h1>Tiny chapter</h1>
<p>Agreement: quadratic-weighted κ = 0.70, Krippendorff's α = 0.54, every rating ≥ 3 counts as high.</p>
<p>Inline math: \\(\\kappa_w \\geq \\frac{{1}}{{2}}\\)</p>
<figure><img src="dot.png" width="40"><figcaption>Fig. 1.1 A dot.</figcaption></figure>
<table><caption>Table 1.1 Zones</caption><tr><th>zone</th><th>tasks</th></tr><tr><td>green</td><td>364</td></tr></table>
</main></body></html>""",
        encoding="utf-8",
    )
    return html


@needs_chromium
def test_a_tiny_page_prints_with_its_text_math_and_print_stylesheet(tmp_path):
    out = pdf.print_pdf(_page(tmp_path), tmp_path / "out" / "t.pdf", budget_ms=10_000, timeout=120)
    assert out.read_bytes()[:5] == b"%PDF-"
    assert pdf.page_count(out) == 1
    assert (tmp_path / "print.html").read_text().count('<style media="print">') == 1
    assert pdf.check_pdf(out, must_contain=("Tiny chapter", "κ = 0.70", "α = 0.54", "≥ 3", "Table 1.1", "364")) == []


@needs_chromium
@needs_poppler
def test_math_left_unrendered_is_reported(tmp_path):
    """Without MathJax the TeX delimiters reach the paper, and check_pdf says so (the check can fail)."""
    out = pdf.print_pdf(_page(tmp_path, mathjax=False), tmp_path / "raw.pdf", budget_ms=2_000, timeout=120)
    problems = pdf.check_pdf(out)
    assert problems and "raw markup" in problems[0] and "\\\\(" in problems[0]


def test_check_pdf_rejects_what_is_not_a_pdf(tmp_path):
    fake = tmp_path / "x.pdf"
    fake.write_text("<html></html>")
    assert "not a PDF" in pdf.check_pdf(fake)[0]
    assert "missing" in pdf.check_pdf(tmp_path / "none.pdf")[0]


def test_page_count_without_poppler_counts_page_objects(tmp_path, monkeypatch):
    monkeypatch.setattr(pdf.shutil, "which", lambda name: None)
    f = tmp_path / "x.pdf"
    f.write_bytes(
        b"%PDF-1.4\n1 0 obj <</Type /Pages /Kids [2 0 R 3 0 R]>>\n2 0 obj <</Type /Page>>\n"
        b"3 0 obj <</Type/Page /Parent 1 0 R>>\n"
    )
    assert pdf.page_count(f) == 2


def test_add_print_css_needs_a_head(tmp_path):
    f = tmp_path / "a.html"
    f.write_text("<p>no head</p>")
    with pytest.raises(ValueError, match="no </head>"):
        pdf.add_print_css(f)


def _layout(monkeypatch, texts, images):
    monkeypatch.setattr(pdf, "page_texts", lambda f: texts)
    monkeypatch.setattr(pdf, "image_pages", lambda f: images)


def test_layout_problems_find_empty_pages_and_figures_split_from_their_captions(tmp_path, monkeypatch):
    html = tmp_path / "book.html"
    html.write_text(
        '<figure><img src="a.png"><figcaption><span class="caption-number">Fig. 4.6 </span>'
        '<span class="caption-text">Each line joins a <em>skill</em>&#8217;s rank by wage</span></figcaption></figure>'
        '<figure><img src="b.png"><figcaption><span class="caption-number">Fig. 4.7 </span>'
        '<span class="caption-text">Tasks per zone as the cut-off moves</span></figcaption></figure>'
    )
    # the 146-page PDF of issue 24: a blank page, the image alone, its caption on the next page
    texts = [
        "Intro text",
        "",
        "",
        "Fig. 4.6 Each line joins a\nskill\u2019s rank by wage (left) ...",
        "Fig. 4.7 Tasks per zone as the cut-off moves",
    ]
    _layout(monkeypatch, texts, {3: 1, 5: 1})
    got = pdf.layout_problems(tmp_path / "x.pdf", html)
    assert got == [
        f"{tmp_path / 'x.pdf'}: page 2 is empty (no text, no image)",
        f"{tmp_path / 'x.pdf'}: page 3 holds an image without any text: a figure split from its caption",
        f"{tmp_path / 'x.pdf'}: Fig. 4.6 is split from its caption: page 4 has the caption, no image",
    ]
    # after the fix: each image on its caption's page
    _layout(
        monkeypatch,
        ["Intro text", "Fig. 4.6 Each line joins a skill\u2019s rank", "Fig. 4.7 Tasks per zone as the cut-off moves"],
        {2: 1, 3: 1},
    )
    assert pdf.layout_problems(tmp_path / "x.pdf", html) == []
    # a caption that reached no page at all is a problem too
    _layout(monkeypatch, ["Fig. 4.6 Each line joins a skill\u2019s rank"], {1: 1})
    assert pdf.layout_problems(tmp_path / "x.pdf", html)[-1].endswith("is on no page")
    # without poppler nothing can be said (and nothing is claimed)
    _layout(monkeypatch, None, None)
    assert pdf.layout_problems(tmp_path / "x.pdf", html) == []


def test_outline_entries_count_bookmarks_and_check_pdf_requires_them(tmp_path, monkeypatch):
    with_outline = tmp_path / "o.pdf"
    with_outline.write_bytes(
        b"%PDF-1.4\n1 0 obj <</Type /Catalog /Outlines 2 0 R>>\n"
        b"3 0 obj\n<</Title (1. Claims)\n/Dest [2 0 R /XYZ 41 611 0]\n/Parent 2 0 R>>\n"
        b"4 0 obj\n<</Title (1.1. Summary)\n/Dest [2 0 R /XYZ 41 500 0]\n/Parent 3 0 R>>\n"
        b"5 0 obj <</Type /Page /Parent 6 0 R>>\n"
    )
    assert pdf.outline_entries(with_outline) == 2
    bare = tmp_path / "b.pdf"
    bare.write_bytes(b"%PDF-1.4\n1 0 obj <</Type /Catalog>>\n5 0 obj <</Type /Page /Parent 6 0 R>>\n")
    assert pdf.outline_entries(bare) == 0
    monkeypatch.setattr(pdf, "pdf_text", lambda f: None)
    monkeypatch.setattr(pdf, "page_count", lambda f: 1)
    monkeypatch.setattr(pdf, "print_problems", lambda f, measures=None: [])  # these files have no pages to measure
    assert pdf.check_pdf(bare, min_bookmarks=1) == [f"{bare}: 0 bookmarks in its outline, expected at least 1"]
    assert pdf.check_pdf(with_outline, min_bookmarks=2) == []


def test_chromium_is_asked_for_an_outline_and_figures_that_fit_a_page():
    assert "--generate-pdf-document-outline" in pdf.CHROMIUM_FLAGS
    assert f"max-height: {pdf.FIGURE_MAX_MM}mm" in pdf.PRINT_CSS
    # a figure and a six-line caption fit in what a page less than a quarter full leaves (263 mm printable)
    printable = pdf.PAGE_MM[1] - pdf.MARGIN_MM["top"] - pdf.MARGIN_MM["bottom"]
    assert printable == 263 and pdf.FIGURE_MAX_MM + 37 <= printable * (1 - pdf.MIN_FILL)
    assert f"font-size: {pdf.BODY_PT}pt" in pdf.PRINT_CSS and pdf.BODY_PT >= pdf.MIN_BODY_PT


# --- the size the text is printed at, and how full each page is ---------------------------------------------------


def _write_pdf(path, contents):
    """A minimal PDF 1.4 as Chromium writes one: a page per content stream (Flate), fonts /F1 (Type0, two bytes a
    glyph) and /F2 (Type1, one byte), a classic cross-reference table."""
    objs = {
        1: b"<</Type /Catalog /Pages 2 0 R>>",
        3: b"<</Type /Font /Subtype /Type0 /BaseFont /DejaVuSans /Encoding /Identity-H>>",
        4: b"<</Type /Font /Subtype /Type1 /BaseFont /Helvetica>>",
    }
    kids, n = [], 5
    for content in contents:
        data = zlib.compress(content)
        objs[n] = b"<</Filter /FlateDecode\n/Length %d>> stream\n" % len(data) + data + b"\nendstream"
        objs[n + 1] = (
            b"<</Type /Page\n/Resources <</Font <</F1 3 0 R\n/F2 4 0 R>>>>\n/MediaBox [0 0 595 842]\n/Contents %d 0 R\n"
            b"/Parent 2 0 R>>" % n
        )
        kids.append(n + 1)
        n += 2
    objs[2] = b"<</Type /Pages /Count %d /Kids [%s]>>" % (len(kids), b" ".join(b"%d 0 R" % k for k in kids))
    out, offsets = bytearray(b"%PDF-1.4\n"), {}
    for num in sorted(objs):
        offsets[num] = len(out)
        out += b"%d 0 obj\n" % num + objs[num] + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % n + b"".join(b"%010d 00000 n \n" % offsets[i] for i in range(1, n))
    out += b"trailer\n<</Size %d /Root 1 0 R>>\nstartxref\n%d\n%%%%EOF\n" % (n, xref)
    path.write_bytes(bytes(out))
    return path


def test_stream_text_sizes_multiply_font_size_text_matrix_and_transformation():
    """Chromium's own pattern: the page at 0.24 pt a unit, a layer at 2.0833 (0.5 pt a CSS px), a font at 39 units
    in a flipped text matrix: 39 x 0.5 = 19.5 pt; after Q the layer's scale is gone (12 x 0.24 = 2.9 pt)."""
    stream = (
        b".23999999 0 0 -.23999999 0 841.91998 cm\nq\n2.0833335 0 0 2.0833335 165.625 187.5 cm\n"
        b"0 0 1032 1491 re\nf\nBT\n/F12 39 Tf\n1 0 0 -1 106.171875 74 Tm\n<002B00580050> Tj\n"
        b"255.34717 0 Td <00480047> Tj\nET\nQ\nBT\n/F2 12 Tf\n1 0 0 1 0 0 Tm\n[(ab) -250 (c)] TJ\nET\n"
    )
    assert pdf.stream_text_sizes(stream, {b"F12": 2, b"F2": 1}) == {19.5: 5, 2.9: 3}
    # a matrix with fewer than six numbers before it is not guessed at
    with pytest.raises(ValueError, match="cm at byte 6 of a content stream: six numbers expected"):
        pdf.stream_text_sizes(b"q\n2 0 cm\n")


def test_text_sizes_read_each_page_and_the_body_is_the_size_with_the_most_glyphs(tmp_path):
    f = _write_pdf(
        tmp_path / "t.pdf",
        [
            b"BT /F1 10 Tf 1 0 0 1 72 700 Tm <0001000200030004000500060007> Tj ET BT /F2 6 Tf (caption) Tj ET",
            b"q .5 0 0 .5 0 0 cm BT /F1 20 Tf <00010002> Tj ET Q BT /F1 20 Tf <0001> Tj ET",
        ],
    )
    sizes = pdf.text_sizes(f)
    assert sizes == [{10.0: 7, 6.0: 7}, {10.0: 2, 20.0: 1}]
    # 10 pt carries 9 of the 17 glyphs; 6 pt carries 7 of them (more than 1 %), so it is the smallest size that counts
    assert pdf.body_size(sizes) == (10.0, 6.0)
    assert pdf.body_size([]) == (0.0, 0.0)
    # a PDF without a classic cross-reference table is refused with the reason, not misread
    (tmp_path / "x.pdf").write_bytes(b"%PDF-1.5\n1 0 obj <</Type /Catalog>> endobj\nstartxref\n9\n%%EOF\n")
    with pytest.raises(ValueError, match="cross-reference"):
        pdf.text_sizes(tmp_path / "x.pdf")


@needs_poppler
def test_page_fill_is_the_share_of_the_printable_height_above_the_lowest_mark(tmp_path):
    # a bar whose lower edge is 200 pt from the top (70.6 mm: (70.6 - 16) / 263 = 0.21 full), one at 700 pt (0.86),
    # and a blank page
    f = _write_pdf(tmp_path / "f.pdf", [b"0 0 0 rg 72 642 200 20 re f", b"0 0 0 rg 72 142 200 20 re f", b""])
    fills = pdf.page_fill(f)
    mm = 25.4 / 72
    assert fills == pytest.approx([(200 * mm - 16) / 263, (700 * mm - 16) / 263, 0.0], abs=0.01)


def test_print_problems_fail_on_a_small_body_and_a_page_less_than_a_quarter_full(tmp_path):
    f = tmp_path / "book.pdf"
    # issue 33's PDF: body 6.5 pt, table notes at 4.5 pt, page 30 at 17 % and page 116 at 5 % (the last may be short)
    got = pdf.print_problems(f, (6.5, 4.5, [0.9, 0.17, 0.8, 0.05, 0.9, 0.1]))
    assert [p.split(": ", 1)[1].split(",")[0].split(":")[0] for p in got] == [
        "the body text is 6.5 pt",
        "text at 4.5 pt carries 1% or more of the glyphs",
        "page 2 is 17% full (less than 25%)",
        "page 4 is 5% full (less than 25%)",
    ]
    # at the limits: a body of 9 pt, small print at 6.5 pt, a page a quarter full; an empty page is layout_problems'
    assert pdf.print_problems(f, (9.0, 6.5, [0.25, 0.0, 1.0, 0.01])) == []
    assert "8.9 pt, under 9 pt" in pdf.print_problems(f, (8.9, 7.0, None))[0]
    assert pdf.print_problems(f, (0.0, 0.0, None)) == [f"{f}: no text found in its content streams"]
    # a file it cannot read is a problem, not a pass
    f.write_bytes(b"%PDF-1.4\n")
    assert "cannot read the size of its text" in pdf.print_problems(f)[0]


def _png(width, height):
    """A grey PNG of ``width`` x ``height`` pixels."""
    import struct

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = (b"\x00" + b"\x80" * width) * height
    head = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", head) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


# What made issue 33's PDF, as the theme and the old print stylesheet had it: A4 with the same margins, the screen's
# minimum column widths, tables in scrolling boxes, and print rules by which no table or note may break.
THEME_CSS = """html { font-size: 13px; }
@page { size: A4; margin: 16mm 14mm 18mm 14mm; }
td { min-width: 4.5em; } th { min-width: 6em; }
.scroll { overflow-x: auto; max-width: 100%; }
@media print { .bd-main .bd-content table, .admonition { break-inside: avoid; } .admonition { overflow: hidden; } }
"""


PROSE = "<p>" + "Body text of the chapter. " * 100 + "</p>"  # the size with the most glyphs is the body text's


def _theme_page(path, body):
    path.write_text(
        f'<!doctype html><html><head><meta charset="utf-8"><title>t</title><style>{THEME_CSS}</style></head>'
        f'<body><main class="bd-main"><div class="bd-content"><h1>Tiny chapter</h1>{body}</div></main></body></html>',
        encoding="utf-8",
    )
    return path


@needs_chromium
def test_a_table_wider_than_the_page_no_longer_shrinks_the_body_text(tmp_path):
    """17 columns headed p_rank_consolidated (Table 6.5, 1,410 px): Chromium shrank the whole book to fit it."""
    heads = "".join(f"<th>p_rank_consolidated_{i}</th>" for i in range(17))
    html = _theme_page(
        tmp_path / "wide.html", f"{PROSE}<table><tr>{heads}</tr><tr>{'<td>0.999</td>' * 17}</tr></table>"
    )
    bare = pdf.print_pdf(html, tmp_path / "bare.pdf", budget_ms=2_000, timeout=120, print_css=False)
    assert pdf.text_sizes(bare)[0] and pdf.body_size(pdf.text_sizes(bare))[0] < pdf.MIN_BODY_PT
    assert "the body text is" in pdf.print_problems(bare, (*pdf.body_size(pdf.text_sizes(bare)), None))[0]
    out = pdf.print_pdf(html, tmp_path / "out.pdf", budget_ms=2_000, timeout=120)
    assert pdf.body_size(pdf.text_sizes(out))[0] == pdf.BODY_PT
    assert pdf.check_pdf(out, must_contain=("Body text of the chapter.", "p_rank", "0.999")) == []


@needs_chromium
@needs_poppler
@pytest.mark.parametrize("ncol", [10, 17])
def test_short_column_headers_keep_their_words_whole_and_many_columns_still_fit(tmp_path, ncol):
    """HUMANE Table 6.5 (ten columns, a column of "5" under "models") printed its headers as "mo del s" and
    "spre ad": a header of a table of up to twelve columns is at least a short word wide; seventeen such columns
    still fit the page (no shrunken book)."""
    words = ["models", "spread", "ties", "design", "boards", "reported", "verdict", "gap", "share", "right"]
    heads = "".join(f"<th>{words[k % len(words)]}</th>" for k in range(ncol))
    gap, gap2 = "0.723 → 0.734: +0.011 [−0.015, +0.036]", "0.988 → 0.984: −0.004 [−0.014, +0.006]"
    row = ["5", "study", "none", "information gain, TrueSkill (HUMANE)", "8406", gap, "calibrated", "4594", gap2]
    row += ["calibrated"] + ["0.999"] * (ncol - 10)
    cells = "".join(f"<td>{c}</td>" for c in row)
    html = _theme_page(
        tmp_path / "t.html", f"{PROSE}<table><thead><tr>{heads}</tr></thead><tbody><tr>{cells}</tr></tbody></table>"
    )
    out = pdf.print_pdf(html, tmp_path / "out.pdf", budget_ms=2_000, timeout=120)
    assert pdf.body_size(pdf.text_sizes(out))[0] == pdf.BODY_PT
    text = subprocess.run(["pdftotext", "-layout", str(out), "-"], capture_output=True, text=True, check=True).stdout
    header = next(line for line in text.splitlines() if "ties" in line.split())
    if ncol == 10:
        assert {"models", "spread", "design", "reported", "verdict"} <= set(header.split()), header
    assert pdf.check_pdf(out, must_contain=("Body text of the chapter.",)) == []


@needs_chromium
@needs_poppler
def test_long_blocks_break_and_tall_figures_fit_so_no_page_is_left_nearly_empty(tmp_path):
    """A block that runs onto a second page by 27 mm, then a table of 250 mm in a scrolling box: kept whole (the
    theme's print rule), it moved to the third page and left the second 19 % full. Then, on a page of its own, a figure
    265 mm tall below 55 mm of text: at most 215 mm tall, as it was, it still moved on and left that page 21 % full."""
    (tmp_path / "tall.png").write_bytes(_png(600, 1000))
    rows = "".join(f"<tr style='height: 5mm'><td>{i}</td><td>value {i}</td></tr>" for i in range(50))
    html = _theme_page(
        tmp_path / "long.html",
        '<div style="height: 290mm; background: #eee"></div><p>A paragraph before a long table.</p>'
        f'<div class="scroll"><table><tr><th>row</th><th>value</th></tr>{rows}</table></div>'
        '<div style="height: 40mm; background: #eee"></div>'
        '<div style="break-before: page; height: 55mm; background: #eee"></div>'
        '<figure><img src="tall.png" alt="a tall figure"><figcaption>Fig. 1.1 A tall figure.</figcaption></figure>'
        f"{PROSE}<p>The end.</p>",
    )
    bare = pdf.print_pdf(html, tmp_path / "bare.pdf", budget_ms=2_000, timeout=120, print_css=False)
    fills = pdf.page_fill(bare)
    assert min(fills[:-1]) < pdf.MIN_FILL, fills
    assert any("full (less than 25%)" in p for p in pdf.print_problems(bare)), fills
    out = pdf.print_pdf(html, tmp_path / "out.pdf", budget_ms=2_000, timeout=120)
    fills = pdf.page_fill(out)
    assert min(fills[:-1]) >= pdf.MIN_FILL, fills
    assert pdf.check_pdf(out, must_contain=("Fig. 1.1", "value 49", "The end.")) == []


def test_a_checked_pdf_gets_the_info_file_the_html_book_links_it_by(tmp_path, monkeypatch):
    """The HTML book links the PDF only when book-pdf.js loads (compendium.book.sphinx_chrome, chrome.js)."""
    import json

    monkeypatch.setattr(pdf.shutil, "which", lambda name: None)
    f = tmp_path / "book.pdf"
    f.write_bytes(b"%PDF-1.4\n1 0 obj <</Type /Page>>\n2 0 obj <</Type /Page>>\n")
    info = pdf.write_pdf_info(f)
    assert info == tmp_path / "book-pdf.js" and pdf.PDF_INFO.name == "book-pdf.js"
    text = info.read_text()
    assert text.startswith("window.COMPENDIUM_PDF = ") and text.endswith(";\n")
    assert json.loads(text.removeprefix("window.COMPENDIUM_PDF = ").removesuffix(";\n")) == {
        "bytes": f.stat().st_size,
        "file": "book.pdf",
        "pages": 2,
    }


@pytest.mark.parametrize("problems", [[], ["book.pdf: page 3 is empty (no text, no image)"]])
def test_make_pdf_writes_the_info_file_only_for_a_pdf_that_passed_its_checks(tmp_path, monkeypatch, problems):
    from compendium.book import html

    out, info = tmp_path / "book.pdf", tmp_path / "book-pdf.js"
    info.write_text("window.COMPENDIUM_PDF = {};\n")  # the last build's
    monkeypatch.setattr(pdf, "PDF", out)
    monkeypatch.setattr(pdf, "PDF_INFO", info)
    monkeypatch.setattr(html, "failed_chapters", lambda: [])
    monkeypatch.setattr(pdf, "missing_chapters", lambda: [])
    monkeypatch.setattr(pdf, "build_singlehtml", lambda: tmp_path / "intro.html")
    seen = []

    def fake_print(master, target, budget):
        seen.append(info.exists())  # the old info file is gone while the new PDF is made
        target.write_bytes(b"%PDF-1.4\n")
        return target

    monkeypatch.setattr(pdf, "print_pdf", fake_print)
    monkeypatch.setattr(pdf, "check_pdf", lambda *a, **k: list(problems))
    monkeypatch.setattr(pdf, "page_count", lambda p: 3)
    assert pdf.main([]) == (1 if problems else 0)
    assert seen == [False]
    assert info.exists() == (not problems)

"""compendium.book.pdf prints HTML to PDF with headless Chromium, offline, after MathJax; check_pdf reads it back."""

import base64
import shutil

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
    assert pdf.check_pdf(bare, min_bookmarks=1) == [f"{bare}: 0 bookmarks in its outline, expected at least 1"]
    assert pdf.check_pdf(with_outline, min_bookmarks=2) == []


def test_chromium_is_asked_for_an_outline_and_figures_that_fit_a_page():
    assert "--generate-pdf-document-outline" in pdf.CHROMIUM_FLAGS
    assert "max-height: 215mm" in pdf.PRINT_CSS


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

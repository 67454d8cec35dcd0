"""The book checker's static part on a hand-made site: each kind of breakage is caught, clean pages pass."""

import shutil

import pytest
from bs4 import BeautifulSoup

from compendium.book import browsercheck as bc
from compendium.book.browsercheck import static_problems
from compendium.pipeline import paths


def _site(tmp_path, body_a, body_b="<main><h1 id='top'>B</h1></main>"):
    (tmp_path / "a.html").write_text(f"<html><body><main>{body_a}</main></body></html>")
    (tmp_path / "b.html").write_text(f"<html><body>{body_b}</body></html>")
    (tmp_path / "img.png").write_bytes(b"\x89PNG")
    return tmp_path


def test_clean_site_has_no_problems(tmp_path):
    site = _site(
        tmp_path,
        "<p>See <a href='b.html#top'>B</a> and <a href='https://dvc.org'>DVC</a>.</p>"
        "<img src='img.png' alt='Bar chart of two groups: A is twice B.'><pre>```python\n$$x$$</pre><span class='math'>\\(x\\)</span>",
    )
    assert static_problems(site) == []


def test_each_breakage_is_reported(tmp_path):
    site = _site(
        tmp_path,
        "<a href='missing.html'>x</a><a href='b.html#nowhere'>y</a><img src='gone.png'>"
        "<p>{glue:text}`wb_share:.1f` and :::</p><span class='problematic'>{numref}`fig-x`</span>",
    )
    probs = static_problems(site)
    text = "\n".join(probs)
    assert "a.html: broken link missing.html" in text
    assert "no anchor #nowhere in b.html" in text
    assert "a.html: missing image gone.png" in text
    assert "raw markup in text: '{glue:text}'" in text
    assert "unresolved markup (problematic)" in text


def test_a_role_broken_inside_inline_code_is_caught(tmp_path):
    # "`{glue:text}`key``" renders as <code>{glue:text}</code>key``: the role never ran
    site = _site(tmp_path, "<p>commit <code>{glue:text}</code>repro_commit``</p>")
    assert any("raw markup in text: '{glue:text}'" in p for p in static_problems(site))


# --- the layout check in Chromium: each way the issue found content hidden is reported; the fixed page passes

_CSS = (paths.BOOK / "_static" / "custom.css").read_text()
_JS = (paths.BOOK / "_static" / "scrollcue.js").read_text()


def _png(width: int, height: int = 20) -> bytes:
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (width, height), "white").save(buf, format="PNG")
    return buf.getvalue()


needs_chromium = pytest.mark.skipif(
    not (shutil.which("chromium") or shutil.which("chromium-browser")),
    reason="no Chromium installed (`make chromium`; CI installs it before the tests)",
)


def _layout_problems(tmp_path, body: str, css: str = _CSS, js: str = _JS, measure: str | None = None):
    """The layout check's problems on a page laid out as the book's (its text column of 784 px beside the
    contents column of 272 px), with the book's stylesheet and scroll-cue script unless told otherwise; with
    ``measure`` (a JavaScript function), (problems, what it returns)."""
    from playwright.sync_api import sync_playwright

    (tmp_path / "wide.png").write_bytes(_png(1400))
    (tmp_path / "page.html").write_text(
        f"<!doctype html><html><head><meta charset='utf-8'><style>{css}</style><script>{js}</script></head><body>"
        f"<main class='bd-main'><div class='bd-content' style='display:flex'>"
        f"<div class='bd-article-container' style='max-width:784px'>"
        f"<article class='bd-article' style='width:784px'>{body}</article></div>"
        f"<div class='bd-sidebar-secondary' style='width:272px;flex:none'></div></div></main></body></html>"
    )
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=bc.chromium_path(), headless=True, args=bc.CHROMIUM_ARGS)
        page = b.new_page(viewport={"width": 1280, "height": 900})
        page.goto((tmp_path / "page.html").as_uri(), wait_until="load")
        out = page.evaluate(bc._LAYOUT_CHECK)
        measured = page.evaluate(measure) if measure else None
        b.close()
    return (out, measured) if measure else out


_WIDE_TABLE = (
    "<div class='pst-scrollable-table-container'><table class='table'><caption>Table 2.3 A wide table</caption>"
    "<tr>" + "".join(f"<th>column number {i}</th>" for i in range(14)) + "</tr>"
    "<tr>" + "".join(f"<td>{'x' * 14}</td>" for i in range(14)) + "</tr></table></div>"
)
_LONG_CODE = (
    "<div class='highlight'><pre>" + "result = compendium.function(" + ", ".join(["argument"] * 30) + ")</pre></div>"
)


@needs_chromium
def test_layout_check_reports_each_kind_of_hidden_content(tmp_path):
    probs = _layout_problems(
        tmp_path,
        "<table><tr><td>"
        + "y" * 300
        + "</td></tr></table>"  # no scrolling box: runs past the column
        + _WIDE_TABLE.replace("pst-scrollable-table-container", "plain")  # its caption scrolls with it
        + _LONG_CODE
        + "<p style='font-size:7px'>tiny print</p>"
        + "<figure><img src='wide.png' alt='a wide figure' style='max-width:100%'><figcaption>Fig. 6.3 Wide</figcaption></figure>"
        + "<table><tr><td style='width:30px;max-width:30px;min-width:0'>a long description squeezed into a column</td>"
        + "<td>"
        + "z" * 60
        + "</td></tr></table>",
        css="",  # the book's stylesheet off: what the issue saw
    )
    text = "\n".join(probs)
    assert 'table cut at the edge: 2406 px in no scrolling box, 784 px shown: table "yyyyyyyy' in text
    assert 'table cut at the edge: 1626 px in no scrolling box, 784 px shown: table "Table 2.3 A wide table"' in text
    assert "code overflows sideways" in text
    assert "text smaller than 9 px: P 7px: tiny print" in text
    assert "figure shown at 50 % of its width" in text  # 704 px of 1,400 (figure margins)
    assert "squeezed column" in text


@needs_chromium
def test_layout_check_passes_wide_tables_that_scroll_with_their_caption_in_view_and_wrapped_code(tmp_path):
    assert _layout_problems(tmp_path, _WIDE_TABLE + _LONG_CODE + "<p>ordinary text</p>") == []
    # the same table without the book's stylesheet: its caption is as wide as the table and scrolls away
    probs = _layout_problems(tmp_path, _WIDE_TABLE + _LONG_CODE, css=".pst-scrollable-table-container{overflow-x:auto}")
    assert any("caption wider than the visible table" in p for p in probs)
    assert any("code overflows sideways" in p for p in probs)


def _budget_site(tmp_path, rows: int):
    page = tmp_path / "executed" / "05_claims.html"
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(
        "<html><body><main><table>" + "<tr><td>1</td><td>2</td></tr>" * rows + "</table></main></body></html>"
    )
    return tmp_path


def test_a_page_over_its_size_or_element_budget_is_reported(tmp_path):
    site = _budget_site(tmp_path, 100)  # html, body, main, table + 3 per row = 304 elements, 2,954 bytes
    assert bc.html_elements(BeautifulSoup((site / "executed/05_claims.html").read_text(), "html.parser")) == 304
    assert static_problems(site, {"executed/05_claims.html": (2_954, 304)}) == []  # at the budget: within it
    probs = static_problems(site, {"executed/05_claims.html": (2_953, 303)})
    assert len(probs) == 2 and "MB of HTML, over its budget of" in probs[0]
    assert probs[1] == "executed/05_claims.html: 304 HTML elements, over its budget of 303"
    assert static_problems(tmp_path / "nowhere") == []  # a page not built is not a problem of its budget


def test_the_report_marks_a_slow_load_without_failing_it(tmp_path):
    site = _budget_site(tmp_path, 10)
    stats = {"executed/05_claims.html": (2_100_000, 2.4), "intro.html": (50_000, 0.3)}
    report = bc.size_time_report(stats)
    claims_line = next(line for line in report.splitlines() if line.startswith("executed/05_claims.html"))
    assert "2051 KB" in claims_line and "2.40 s" in claims_line and "<= 2 MB, <= 25,000 elements" in claims_line
    assert claims_line.endswith("slow (over 2 s)")
    assert "slow" not in next(line for line in report.splitlines() if line.startswith("intro.html"))
    assert static_problems(site) == []  # a slow load is a reading on a busy machine, never a problem


# --- tables cut at the edge (issue 33): 31 tables on 9 pages scrolled with nothing to show they were cut

#: a notebook's HTML output box and the claims tables' box, styled as pydata-sphinx-theme and the claims chapter do
_CLIPPED = "<div class='cell_output'><div class='output text_html'>{}</div></div>"
_CLIPPED_CSS = "div.cell_output .output{max-width:100%;overflow-x:auto} .cl-wrap{overflow-x:auto;max-width:100%}"
_BOX_RIGHT = "() => Math.round(document.querySelector('.pst-scrollable-table-container, .cl-wrap').getBoundingClientRect().right)"


@needs_chromium
def test_a_table_cut_at_its_box_edge_with_no_cue_is_counted(tmp_path):
    probs = _layout_problems(tmp_path, _WIDE_TABLE, js="")  # the stylesheet, but no script to mark the cut edge
    assert [p for p in probs if p.startswith(bc.CUT)] == [
        'table cut at the edge with no cue (784 of 1516 px shown): table "Table 2.3 A wide table"'
    ]


@needs_chromium
def test_a_table_that_scrolls_with_its_cut_edge_faded_passes(tmp_path):
    probs, mask = _layout_problems(
        tmp_path,
        _WIDE_TABLE,
        measure="() => getComputedStyle(document.querySelector('.pst-scrollable-table-container')).maskImage",
    )
    assert probs == [] and mask.startswith("linear-gradient(to right")


@needs_chromium
def test_a_full_width_table_uses_the_margin_and_a_box_that_clips_it_is_caught(tmp_path):
    wide = _WIDE_TABLE.replace("<table class='table'>", "<table class='table full-width'>")
    probs, right = _layout_problems(tmp_path, wide, measure=_BOX_RIGHT)
    assert probs == [] and right == 8 + 784 + 280  # the column, then 2rem + 17rem - 1.5rem of margin
    # a claims table: its box inside a notebook's output box, which the stylesheet lets it leave
    cl = wide.replace(  # a claims table has a heading, no caption
        "<div class='pst-scrollable-table-container'><table class='table full-width'><caption>Table 2.3 A wide "
        "table</caption>",
        "<h3>Per-model dimension scores</h3><div class='cl-wrap'><table class='cl full-width'>",
    )
    probs, right = _layout_problems(tmp_path, _CLIPPED.format(cl), css=_CLIPPED_CSS + _CSS, measure=_BOX_RIGHT)
    assert probs == [] and right == 1072
    # without that rule the output box clips the table's box at the column's edge
    css = _CLIPPED_CSS + _CSS.replace(".output:has(", ".no-such-box:has(")
    probs = _layout_problems(tmp_path, _CLIPPED.format(cl), css=css)
    assert probs == [
        'table cut at the edge: its scrolling box (1064 px) is cut 280 px short of its right edge: table under "Per-model'
        ' dimension scores"'
    ]
    # and a full-width box may reach the margin, not beyond the page
    css = _CSS.replace("var(--pst-sidebar-secondary, 17rem) - 1.5rem)", "var(--pst-sidebar-secondary, 17rem) + 20rem)")
    assert any("is cut" in p for p in _layout_problems(tmp_path, wide, css=css))


# --- the book's chrome (issue 33): one search box, a full-size link for every figure, wrapped code indented


def test_a_figure_image_without_a_link_to_its_own_file_is_reported(tmp_path):
    fig = "<figure>{}<figcaption>Fig. 1.1 Bars.</figcaption></figure>"
    img = "<img src='img.png' alt='Bar chart of two groups: A is twice B.'>"
    assert static_problems(_site(tmp_path, fig.format(img))) == [
        "a.html: figure image without a full-size link: img.png"
    ]
    assert static_problems(_site(tmp_path, fig.format(f"<a href='b.html'>{img}</a>"))) == [
        "a.html: figure image without a full-size link: img.png"
    ]  # a link elsewhere is no full-size view
    assert (
        static_problems(_site(tmp_path, fig.format(f"<a class='compendium-fullsize' href='img.png'>{img}</a>"))) == []
    )
    assert static_problems(_site(tmp_path, img)) == []  # an image outside a figure (an icon, a badge) needs none


def test_search_box_count_is_one():
    assert bc.search_box_problems(["#pst-primary-sidebar button.btn.search-button-field"]) == []
    assert bc.search_box_problems(["#pst-header button.a", "#pst-primary-sidebar button.b"]) == [
        "2 search boxes on the page, one expected: #pst-header button.a, #pst-primary-sidebar button.b"
    ]
    assert bc.search_box_problems([]) == ["0 search boxes on the page, one expected: none"]
    assert bc.search_box_problems([], themed=False) == []  # a plain source page (code/) has none
    assert bc.search_box_problems(["a", "b"], themed=False) != []


def test_a_pdf_said_to_be_not_built_is_never_linked():
    assert bc.pdf_problems(["not-built"], []) == [] and bc.pdf_problems(["built"], ["../../pdf/book.pdf"]) == []
    assert bc.pdf_problems(["not-built"], ["../../pdf/book.pdf"]) == [
        "a link to a PDF that is not built: ../../pdf/book.pdf"
    ]
    assert bc.pdf_problems([""], []) == ["the PDF mention was not resolved by chrome.js (state '')"]
    assert bc._optional("http://127.0.0.1:4000/pdf/book-pdf.js") and not bc._optional("http://127.0.0.1/_static/a.js")


@needs_chromium
def test_search_boxes_a_reader_sees_are_counted(tmp_path):
    from playwright.sync_api import sync_playwright

    field = "<button class='btn search-button-field search-button__button'>Search</button>"
    (tmp_path / "two.html").write_text(
        f"<html><body><div class='bd-sidebar-primary'></div><header id='pst-header'>{field}</header>"
        f"<div id='side'>{field}</div>"
        f"<dialog id='pst-search-dialog'><form class='bd-search'><input type='search'></form></dialog>"
        "<button class='search-button search-button__button' style='display:none'>icon</button></body></html>"
    )
    (tmp_path / "one.html").write_text(
        (tmp_path / "two.html").read_text().replace(f"<header id='pst-header'>{field}</header>", "")
    )
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=bc.chromium_path(), headless=True, args=bc.CHROMIUM_ARGS)
        page = b.new_page(viewport={"width": 1280, "height": 900})
        found = {}
        for name in ("two", "one"):
            page.goto((tmp_path / f"{name}.html").as_uri(), wait_until="load")
            found[name] = page.evaluate(bc._CHROME)
        b.close()
    assert found["two"]["boxes"] == [
        "#pst-header button.btn.search-button-field.search-button__button",
        "#side button.btn.search-button-field.search-button__button",
    ]  # the closed dialog's field and the hidden icon are not seen
    assert bc.chrome_problems(found["two"]) == [
        "2 search boxes on the page, one expected: #pst-header button.btn.search-button-field.search-button__button, "
        "#side button.btn.search-button-field.search-button__button"
    ]
    assert bc.chrome_problems(found["one"]) == []


@needs_chromium
def test_a_wrapped_code_line_continues_indented_not_at_column_0(tmp_path):
    # the book's stylesheet: a wrapped line continues 4 characters in (text-indent: 4ch hanging each-line)
    assert _layout_problems(tmp_path, _LONG_CODE) == []
    probs, starts = _layout_problems(
        tmp_path,
        _LONG_CODE.replace("<pre>", "<pre>short = 1\n"),
        measure="""() => { const pre = document.querySelector('pre'), r = document.createRange(), t = pre.firstChild;
          const x = (i) => { r.setStart(t, i); r.setEnd(t, i + 1); return r.getBoundingClientRect(); };
          const first = x(0), second = x(10), wrapped = [...Array(t.length).keys()].slice(11).map(x)
            .find(b => b.top > second.top + 5);
          return [first.left, second.left, wrapped.left - pre.getBoundingClientRect().left]; }""",
    )
    assert probs == []
    left, line2, indent = starts
    assert line2 == left  # a line of the code starts at the edge
    assert 4 * 7 < indent < 4 * 10 + 20  # its continuation 4 characters (of 7-9 px) in, past the padding
    # without the hanging indent (the book before issue 33) the continuation restarts at column 0
    css = _CSS.replace("text-indent: 4ch hanging each-line", "text-indent: 0")
    assert [p for p in _layout_problems(tmp_path, _LONG_CODE, css=css) if "wrapped" in p] == [
        "wrapped code line restarts at column 0: result = compendium.function(argument, argument, a"
    ]

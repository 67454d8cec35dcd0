"""The search page's script sets result titles and descriptions as text (compendium.book.sphinx_safe_search)."""

from pathlib import Path

import pytest
import sphinx

from compendium.book.sphinx_safe_search import SearchPatchError, patch_searchtools

SEARCHTOOLS = Path(sphinx.__file__).parent / "themes" / "basic" / "static" / "searchtools.js"


def test_installed_searchtools_is_patched_to_text_content():
    js = SEARCHTOOLS.read_text(encoding="utf-8")
    assert "linkEl.innerHTML = title;" in js  # what Sphinx ships: titles parsed as HTML
    out = patch_searchtools(js)
    assert "linkEl.textContent = title;" in out and "linkEl.innerHTML" not in out
    assert ".innerHTML =" not in out
    assert patch_searchtools(out) == out  # idempotent (a rebuild over a patched copy)


def test_an_unknown_searchtools_fails_the_build_with_a_message():
    with pytest.raises(SearchPatchError, match="a Sphinx release other than 7.4"):
        patch_searchtools("const x = 1;")
    js = patch_searchtools(SEARCHTOOLS.read_text(encoding="utf-8")) + "\nel.innerHTML = summary;"
    with pytest.raises(SearchPatchError, match="still uses innerHTML"):
        patch_searchtools(js)


def test_the_built_book_uses_the_patched_script():
    from compendium.pipeline import paths

    built = paths.ROOT / "book" / "_build" / "html" / "_static" / "searchtools.js"
    if not built.exists():
        pytest.skip("the book is not built (make reproduce)")
    js = built.read_text(encoding="utf-8")
    assert "linkEl.textContent = title;" in js and "linkEl.innerHTML" not in js


# --- the index holds titles as text (issue 33: every result title showed <span class="section-number">)


def test_html_text_drops_tags_and_decodes_references():
    from compendium.book.sphinx_safe_search import html_text

    assert html_text('<span class="section-number">5. </span>Human preferences') == "5. Human preferences"
    assert html_text("Cohen’s <em>d</em><sub>pooled</sub>") == "Cohen’s d_pooled"
    # what a page shows as text stays that text: an escaped tag is a "<" of the title, never a tag
    assert (
        html_text("p &lt; 0.05 &amp; &lt;img src=x onerror=alert(1)&gt;") == "p < 0.05 & <img src=x onerror=alert(1)>"
    )


def _doctree(rst: str):
    from docutils.core import publish_doctree

    return publish_doctree(rst, settings_overrides={"report_level": 5, "raw_enabled": True, "doctitle_xform": False})


_RST = """\
Chapter
=======

.. role:: raw-html(raw)
   :format: html

Cohen's *d*\\ :raw-html:`<sub>`\\ pooled\\ :raw-html:`</sub>`
--------------------------------------------------------------

.. table:: <img src=x onerror=pwn()> from data

   ===  ===
   a    b
   ===  ===
"""


def test_a_title_with_raw_html_is_read_as_html_and_text_stays_text():
    from compendium.book.sphinx_safe_search import raw_html_titles

    doctree = _doctree(_RST)
    found = raw_html_titles(doctree)
    # only the section title holds raw HTML of the prose; the caption from data is a text node: left as it is
    assert found == {("Cohen's d<sub>pooled</sub>", "cohen-s-d-sub-pooled-sub"): "Cohen's d_pooled"}


def test_text_titles_rewrites_page_titles_raw_titles_and_page_entries_only():
    from compendium.book.sphinx_safe_search import text_titles

    payload = "<img src=x class=pwn-title onerror=window.pwned=1>"
    index = {
        "docnames": ["a", "b"],
        "titles": ['<span class="section-number">2. </span>The data', "Reproducibility &amp; &lt;checks&gt;"],
        "alltitles": {
            "The data": [[0, None]],
            "Cohen's d<sub>pooled</sub>": [[0, "cohen"], [1, "other"]],
            payload: [[1, "tbl-x"]],
            "p < 0.05": [[1, "tbl-p"]],
            "Reproducibility & <checks>": [[1, None]],
        },
        "terms": {"data": 0},
    }
    raw = {"a": {("Cohen's d<sub>pooled</sub>", "cohen"): "Cohen's d_pooled"}}
    out = text_titles(index, raw)
    assert out["titles"] == ["2. The data", "Reproducibility & <checks>"]
    assert out["alltitles"] == {
        "2. The data": [[0, None]],  # the page's own entry under its numbered title: listed once, not "2. X > X"
        "Cohen's d_pooled": [[0, "cohen"]],
        "Cohen's d<sub>pooled</sub>": [[1, "other"]],  # the same text elsewhere, not from raw HTML: unchanged
        payload: [[1, "tbl-x"]],  # text from data stays the text it is (shown by textContent)
        "p < 0.05": [[1, "tbl-p"]],
        "Reproducibility & <checks>": [[1, None]],
    }
    assert out["terms"] == index["terms"] and index["titles"][0].startswith("<span")  # nothing else; no mutation


# --- a small Sphinx book, built with the extensions, searched in Chromium from the file system

needs_chromium = pytest.mark.skipif(
    not (__import__("shutil").which("chromium") or __import__("shutil").which("chromium-browser")),
    reason="no Chromium installed (`make chromium`; CI installs it before the tests)",
)

_PAGES = {
    "index.rst": "Book\n====\n\n.. toctree::\n   :numbered:\n\n   data\n   executed/05_claims\n",
    "data.rst": _RST.replace("Chapter\n=======", "The data\n========")
    + "\nThe data are here. A data table:\n\n.. table:: Files of the data\n\n   ===  ===\n   x    y\n   ===  ===\n",
    "executed/05_claims.rst": "Claims check\n============\n\nThe data claims.\n\n.. raw:: html\n\n"
    '   <h3 class="cl-h" id="claims-hitl-bt_table">Bradley-Terry strengths</h3>\n'
    '   <ul><li id="why-pwb.table8.m.x">pwb.table8.m.x: paper 2.48, ours 1.93</li></ul>\n',
}


@pytest.fixture(scope="module")
def small_book(tmp_path_factory):
    """A three-page Sphinx book (numbered chapters, a title with raw HTML, a caption with a payload, a claims
    page with a table's section and a reason's anchor), built with this extension and the claims search, with
    a claims.csv of three claims (one whose places the page does not hold)."""
    from sphinx.cmd.build import build_main

    from compendium.pipeline import paths

    root = tmp_path_factory.mktemp("searchbook")
    src, out, results = root / "src", root / "html", root / "results"
    for name, text in _PAGES.items():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text(text)
    (src / "conf.py").write_text(
        "extensions = ['compendium.book.sphinx_safe_search', 'compendium.book.sphinx_claim_search']\n"
        "html_theme = 'basic'\n"
    )
    (results / "claims").mkdir(parents=True)
    (results / "claims" / "claims.csv").write_text(
        "study,claim_id,table,status\nhitl,hitl.bt.recipe_c,bt_table,reproduced\n"
        "pwb,pwb.table8.m.x,table8,differs\npwb,pwb.gone,table99,reproduced\n"
    )
    mp = pytest.MonkeyPatch()
    mp.setattr(paths, "stage_dir", lambda stage: results / stage)
    try:
        assert build_main(["-q", "-b", "html", str(src), str(out)]) == 0
    finally:
        mp.undo()
    return {"html": out, "claims_csv": results / "claims" / "claims.csv"}


def _index(html_dir):
    from sphinx.search import js_index

    return js_index.loads((html_dir / "searchindex.js").read_text(encoding="utf-8"))


def test_the_built_index_holds_titles_as_text_and_claim_ids_at_their_anchors(small_book):
    idx = _index(small_book["html"])
    assert idx["titles"][idx["docnames"].index("data")] == "1. The data"
    assert "Cohen’s d_pooled" in idx["alltitles"] and "1. The data" in idx["alltitles"]
    assert "<img src=x onerror=pwn()> from data" in idx["alltitles"]  # a text node: its text, listed as text
    claims = idx["docnames"].index("executed/05_claims")
    assert idx["alltitles"]["hitl.bt.recipe_c"] == [[claims, "claims-hitl-bt_table"]]
    assert idx["alltitles"]["pwb.table8.m.x"] == [[claims, "why-pwb.table8.m.x"]]
    assert "pwb.gone" not in idx["alltitles"]  # no place on the page: no entry that lands nowhere


@needs_chromium
def test_the_browser_check_reads_the_search_page_from_the_file_system(small_book, tmp_path):
    import shutil

    from playwright.sync_api import sync_playwright

    from compendium.book import browsercheck as bc

    site = tmp_path / "html"
    shutil.copytree(small_book["html"], site)
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=bc.chromium_path(), headless=True, args=bc.CHROMIUM_ARGS)
        page = b.new_page()
        assert bc.search_problems(page, site, "hitl.bt.recipe_c") == []
        titles = [r["title"] for r in bc.search(page, site, "data")]
        assert "1. The data" in titles and not any("<span" in t for t in titles)
        found = bc.search(page, site, "pwb.table8.m.x")
        assert found[0]["title"] == "2. Claims check > pwb.table8.m.x"
        assert found[0]["href"].endswith("executed/05_claims.html#why-pwb.table8.m.x")
        # the index as Sphinx writes it (page titles as HTML), and a claim id it does not hold: both are problems
        idx = (site / "searchindex.js").read_text(encoding="utf-8")
        (site / "searchindex.js").write_text(
            idx.replace('"1. The data"', '"<span class=\\"section-number\\">1. </span>The data"')
        )
        probs = bc.search_problems(page, site, "hitl.no_such_claim")
        b.close()
    assert (
        "search.html?q=data: a result title holds markup: '<span class=\"section-number\">1. </span>The data'" in probs
    )
    assert any(p.startswith("search.html?q=hitl.no_such_claim: the claim id finds no anchor") for p in probs)


def test_the_claim_search_picks_a_claim_of_a_register_table(small_book):
    from compendium.book import browsercheck as bc

    assert bc.search_claim(small_book["claims_csv"]) == "hitl.bt.recipe_c"
    assert bc.search_claim(small_book["claims_csv"].parent / "none.csv") is None


def test_the_built_book_lists_page_titles_as_text():
    from sphinx.search import js_index

    from compendium.book.browsercheck import MARKUP
    from compendium.pipeline import paths

    built = paths.ROOT / "book" / "_build" / "html" / "searchindex.js"
    if not built.exists():
        pytest.skip("the book is not built (make reproduce)")
    idx = js_index.loads(built.read_text(encoding="utf-8"))
    assert [t for t in idx["titles"] if MARKUP.search(t)] == []
    assert any(t.startswith("1. ") for t in idx["titles"])  # the chapter numbers stay

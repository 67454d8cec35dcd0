"""A claim id typed into the book's search finds the claim on the claims page (compendium.book.sphinx_claim_search).

The search itself, in Chromium on a small built book, is tested in test_sphinx_safe_search.py."""

import pytest

from compendium.book import sphinx_claim_search as cs


def test_the_anchors_are_the_claims_pages_own():
    from compendium.claims import html

    for cid in ("hitl.bt.recipe_c", "pwb.table8.glm51.cognitive_forcing", "wb.zones/odd id+x"):
        assert cs.why_anchor(cid) == html.anchor(cid)
    for study, slug in (("hitl", "bt_table"), ("workbank", "nb_has_avg"), ("pwb", "text"), ("pwb", "a.b c")):
        assert cs.section_anchor(study, slug) == html.section_id(study, slug)


def test_a_claim_lands_on_its_own_place_else_its_reason_else_its_table_else_its_text_claims():
    row = {"claim_id": "pwb.table8.x", "study": "pwb", "table": "table8"}
    ids = {"why-pwb.table8.x", "claims-pwb-table8", "claims-pwb-text"}
    assert cs.claim_anchor(row, ids | {"pwb.table8.x"}) == "pwb.table8.x"  # its cell, anchored by its id
    assert cs.claim_anchor(row, ids) == "why-pwb.table8.x"
    assert cs.claim_anchor(row, ids - {"why-pwb.table8.x"}) == "claims-pwb-table8"
    assert cs.claim_anchor({**row, "table": ""}, {"claims-pwb-text"}) == "claims-pwb-text"
    assert cs.claim_anchor(row, {"claims-pwb-text"}) is None  # a table claim never lands on the text claims


def test_add_claims_adds_each_id_once_at_its_anchor_and_leaves_the_rest():
    index = {
        "docnames": ["intro", "executed/05_claims"],
        "titles": ["A", "1. Claims check"],
        "alltitles": {"Claims check": [[1, None]], "pwb.a": [[1, "claims-pwb-t"]]},
    }
    claims = [
        {"claim_id": "pwb.a", "study": "pwb", "table": "t"},  # already listed there
        {"claim_id": "pwb.b", "study": "pwb", "table": "t"},
        {"claim_id": "pwb.c", "study": "pwb", "table": "gone"},  # its section is not on the page
    ]
    out, n = cs.add_claims(index, "executed/05_claims", claims, {"claims-pwb-t"})
    assert n == 1 and out["alltitles"]["pwb.b"] == [[1, "claims-pwb-t"]] and "pwb.c" not in out["alltitles"]
    assert out["alltitles"]["pwb.a"] == [[1, "claims-pwb-t"]] and "pwb.b" not in index["alltitles"]
    assert cs.add_claims(index, "no/such/page", claims, {"claims-pwb-t"}) == (index, 0)


def test_a_claims_csv_without_a_column_is_refused_naming_file_and_column(tmp_path):
    f = tmp_path / "claims.csv"
    f.write_text("claim_id,study\npwb.a,pwb\n")
    with pytest.raises(
        cs.ClaimSearchError, match=r"claims.csv: no column 'table' \(columns: claim_id, study\).*dvc repro claims"
    ):
        cs.read_claims(f)


def test_page_ids_reads_every_element_id():
    assert cs.page_ids('<h3 class="cl-h" id="claims-hitl-x">x</h3><li id=\'why-a.b\'>') == {"claims-hitl-x", "why-a.b"}


def test_every_claim_of_the_built_book_is_found_at_an_anchor_of_its_page():
    from sphinx.search import js_index

    from compendium.pipeline import paths

    html = paths.ROOT / "book" / "_build" / "html"
    csv_path = paths.stage_dir("claims") / "claims.csv"
    if not (html / "searchindex.js").exists() or not csv_path.exists():
        pytest.skip("the book is not built (make reproduce)")
    idx = js_index.loads((html / "searchindex.js").read_text(encoding="utf-8"))
    page = cs.page_ids((html / f"{cs.CLAIMS_DOC}.html").read_text(encoding="utf-8"))
    k = idx["docnames"].index(cs.CLAIMS_DOC)
    claims = cs.read_claims(csv_path)
    missing = [
        r["claim_id"]
        for r in claims
        if not any(e[0] == k and e[1] in page for e in idx["alltitles"].get(r["claim_id"], []))
    ]
    assert missing == [], f"{len(missing)} of {len(claims)} claim ids not found by the search, e.g. {missing[:5]}"

"""The trail from a claim to its code, its test and its raw data, in the built book (issue 24): every claim row
of the claims chapter links to the function that computes it, its test and its raw file(s); every such link
lands on a file and an anchor that exist; every "differs" lands on its own reason; the source pages are
offline and byte-stable. Skipped when the book is not built (``dvc repro book``)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urldefrag

import pandas as pd
import pytest
from bs4 import BeautifulSoup

from compendium.book import sphinx_sources
from compendium.claims import links
from compendium.pipeline import paths

HTML = paths.BOOK / "_build" / "html"
CLAIMS = HTML / "executed" / "05_claims.html"

pytestmark = pytest.mark.skipif(not CLAIMS.is_file(), reason="the book is not built (dvc repro book)")


@pytest.fixture(scope="module")
def page():
    return BeautifulSoup(CLAIMS.read_text(encoding="utf-8"), "html.parser")


def _ids(path: Path, cache: dict) -> set[str]:
    if path not in cache:
        soup = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
        cache[path] = {t["id"] for t in soup.find_all(id=True)}
    return cache[path]


def _kinds(el) -> dict[str, int]:
    hrefs = [a["href"] for a in el.find_all("a", href=True)]
    return {
        "code": sum(h.startswith("../code/src/") for h in hrefs),
        "test": sum(h.startswith("../code/tests/") for h in hrefs),
        "data": sum(h.startswith(links.Path(links.DATA_PAGE).name + "#") for h in hrefs),
    }


def test_every_claim_row_links_to_its_code_test_and_data(page):
    """Text claims: one row each; table claims: the table's 'Computed by' line under it (one click away)."""
    rows = page.select("tr.cl-row")
    table = pd.read_csv(paths.RESULTS / "claims" / "claims.csv", dtype=str, keep_default_na=False)
    text_ids = set(table.loc[table["table"] == "", "claim_id"])
    assert len(rows) == len(text_ids) > 200
    no_data = set(table.loc[table["data"] == "", "claim_id"])
    counts = []
    for row in rows:
        cid = row.find("code").get_text()
        assert cid in text_ids
        k = _kinds(row)
        counts.append(k)
        assert k["code"] >= 1 and k["test"] == 1, (cid, k)
        assert k["data"] >= (0 if cid in no_data else 1), (cid, k)
    trails = page.select("p.cl-trail")
    from compendium.claims import STUDIES, load_tables

    tables = sorted(load_tables(), key=lambda t: STUDIES.index(t.study))  # the chapter's order
    assert len(trails) == len(tables)  # one 'Computed by' line under every register table, in register order
    for t, p in zip(tables, trails, strict=True):
        k = _kinds(p)
        raw = any(i not in no_data for i in t.ids)  # a table with no raw file: numbers measured on the models
        assert k["code"] >= 1 and k["test"] >= 1 and k["data"] >= raw, (t.slug, p.get_text()[:120])
    # the claims without a raw file are design constants or numbers measured on models, never a raw claim
    assert set(table.loc[table["data"] == "", "level"]) <= {"none", "outside"}
    assert sum(k["code"] + k["test"] + k["data"] for k in counts) > 3 * len(rows)


def test_every_link_of_the_claims_page_lands_on_a_file_and_an_anchor(page):
    cache: dict = {}
    seen = 0
    for a in page.select("main a[href]"):
        href = a["href"]
        if "://" in href or href.startswith("mailto:"):
            continue
        target, frag = urldefrag(href)
        path = CLAIMS if not target else (CLAIMS.parent / unquote(target)).resolve()
        assert path.is_file(), href
        if frag:
            assert frag in _ids(path, cache), href
        seen += 1
    assert seen > 1000


def test_needs_data_claims_name_the_computation_not_the_dispatcher():
    table = pd.read_csv(paths.RESULTS / "claims" / "claims.csv", dtype=str, keep_default_na=False)
    nd = table[table["status"] == "needs_data"]
    assert len(nd) and not nd["provenance"].str.contains("register_values").any()


def test_every_differs_lands_on_its_own_highlighted_reason_with_its_evidence_linked(page):
    differs = [a for a in page.select("td.differs a[href^='#'], td a[href^='#why-']") if "differs" in a.get_text()]
    assert differs
    for a in differs:
        li = page.find(id=a["href"][1:])
        assert li is not None and li.name == "li", a["href"]
        assert "differs" in li.get_text()
        ev = li.find(string=lambda s: s and "Evidence" in s)
        assert ev is not None and li.select("span.cl-small a[href]"), li.get_text()[:120]
    assert any("li:target" in st.get_text() for st in page.find_all("style"))
    # the WORKBank slips whose evidence is a test id link to that test's source
    hrefs = {a["href"] for a in page.select(".cl-why a[href]")}
    assert any(h.startswith("../code/tests/workbank/") and "#test_" in h for h in hrefs)


def test_the_data_rows_carry_the_anchors_the_claims_link_to():
    soup = BeautifulSoup((HTML / links.DATA_PAGE).read_text(encoding="utf-8"), "html.parser")
    rows = soup.select("#tbl-data-files tbody tr")
    assert rows and all(r.get("id") == links.data_anchor(r.td.get_text(strip=True)) for r in rows)
    assert {r.get("id") for r in soup.select("#tbl-data-offline tbody tr")} == {
        links.hub_anchor(d) for d in ("workbank", "pwb", "hitl")
    }


def test_source_pages_are_offline_byte_stable_and_anchor_every_definition(tmp_path):
    files = links.linked_files(CLAIMS.read_text(encoding="utf-8"))
    assert any(f.startswith("src/compendium/") for f in files) and any(f.startswith("tests/") for f in files)
    for f in files:
        built = (HTML / links.source_page(f)).read_text(encoding="utf-8")
        again = sphinx_sources.source_page(f, (paths.ROOT / f).read_text(encoding="utf-8"))
        assert built == again, f  # the same bytes from the same file (and the cache gives what a fresh build does)
        assert "http://" not in built.split("<main>")[0] and "https://" not in built.split("<main>")[0]
    # an anchor for every definition, and a line anchor for every line
    src = (paths.ROOT / "src/compendium/pwb/instances.py").read_text(encoding="utf-8")
    soup = BeautifulSoup(sphinx_sources.source_page("src/compendium/pwb/instances.py", src), "html.parser")
    ids = {t["id"] for t in soup.find_all(id=True)}
    assert {"layer_paired_effects", "paired_tests", "L1", f"L{len(src.splitlines())}"} <= ids
    target = soup.find(id="layer_paired_effects")
    assert target.find(class_="l")["id"] == f"L{links.objects(src)['layer_paired_effects'][0]}"
    assert "def layer_paired_effects" in target.get_text()

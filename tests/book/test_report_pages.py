"""The replication reports in the book (issue 36): the claims stage's commit-free copy (results/claims/reports/)
published as pages beside the claims chapter, which links to each (compendium.book.reports.publish)."""

from __future__ import annotations

import re

import pandas as pd
import pytest
import yaml
from bs4 import BeautifulSoup
from reportcounts import by_status

from compendium.book import reports
from compendium.book.sphinx_claim_search import CLAIMS_DOC
from compendium.claims import links
from compendium.pipeline import paths

HTML = paths.ROOT / "book" / "_build" / "html"
STAGE_REPORTS = paths.RESULTS / "claims" / "reports"
LEDGER = paths.RESULTS / "claims" / "claims.csv"


def _source(tmp_path, text="# \\[Re\\] A study\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"):
    src = tmp_path / "src" / "pwb"
    src.mkdir(parents=True)
    (src / "report.md").write_text(text, encoding="utf-8")
    (src / "metadata.yaml").write_text('title: "[Re] A study"\n', encoding="utf-8")
    (src / "references.bib").write_text("@misc{k, title={A study}}\n", encoding="utf-8")
    return src.parent


def test_publish_copies_each_report_and_renders_its_page_without_raw_html(tmp_path):
    text = "# \\[Re\\] A <b>study</b>\n\n<script>alert(1)</script>\n\n[x](javascript:alert(1)) | `code`\n"
    out = tmp_path / "html"
    pages = reports.publish(_source(tmp_path, text), out)
    assert pages == [out / links.REPORTS_DIR / "pwb" / "report.html"]
    folder = pages[0].parent
    assert {p.name for p in folder.iterdir()} == set(links.REPORT_FILES)
    for f in links.REPORT_FILES[1:]:
        assert (folder / f).read_bytes() == (tmp_path / "src" / "pwb" / f).read_bytes()
    page = pages[0].read_text(encoding="utf-8")
    assert "<script>" not in page and "&lt;script&gt;" in page and "<b>study</b>" not in page
    assert 'href="javascript:' not in page
    assert "<title>[Re] A &lt;b&gt;study&lt;/b&gt;</title>" in page
    soup = BeautifulSoup(page, "html.parser")
    hrefs = [a["href"] for a in soup.find("nav").find_all("a")]
    assert hrefs == [f"../../{CLAIMS_DOC}.html", "report.md", "metadata.yaml", "references.bib"]


def test_publish_is_the_same_bytes_twice_and_follows_the_report(tmp_path):
    src = _source(tmp_path)
    first = reports.publish(src, tmp_path / "a")[0].read_bytes()
    assert reports.publish(src, tmp_path / "b")[0].read_bytes() == first
    (src / "pwb" / "report.md").write_text("# \\[¬Re\\] A study\n", encoding="utf-8")
    assert reports.publish(src, tmp_path / "c")[0].read_bytes() != first


def test_publish_without_reports_writes_nothing_and_a_missing_file_is_one_sentence(tmp_path):
    assert reports.publish(tmp_path / "none", tmp_path / "html") == []
    assert not (tmp_path / "html").exists()
    src = _source(tmp_path)
    (src / "pwb" / "metadata.yaml").unlink()
    with pytest.raises(FileNotFoundError, match=r"pwb/metadata.yaml does not exist: .*\(dvc repro claims\)"):
        reports.publish(src, tmp_path / "html")


def test_the_claims_page_links_point_where_publish_writes(tmp_path):
    out = tmp_path / "html"
    page = reports.publish(_source(tmp_path), out)[0]
    claims_page = out / f"{CLAIMS_DOC}.html"
    for f in links.REPORT_FILES:
        assert (claims_page.parent / links.report_href("pwb", f)).resolve() == (page.parent / f).resolve()
    with pytest.raises(ValueError, match="not a file of a replication report"):
        links.report_href("pwb", "report.pdf")


def test_the_book_stage_depends_on_the_reports_and_on_what_publishes_them():
    spec = yaml.safe_load((paths.ROOT / "dvc.yaml").read_text())["stages"]["book"]
    deps = {str(d) for d in spec["deps"]}
    assert {"results/claims/reports", "src/compendium/book/reports.py", "src/compendium/claims/links.py"} <= deps


# ---------------------------------------------------------------------------------------------- the built book


def _built():
    if not (HTML / f"{CLAIMS_DOC}.html").exists() or not LEDGER.exists():
        pytest.skip("the book is not built (make reproduce)")


def test_the_claims_chapter_links_to_every_report_and_each_target_is_in_the_book():
    _built()
    page = HTML / f"{CLAIMS_DOC}.html"
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    hrefs = {a["href"] for a in soup.select("ul.cl-reports a[href]")}
    studies = sorted(set(pd.read_csv(LEDGER, dtype=str)["study"]))
    assert hrefs == {links.report_href(s, f) for s in studies for f in links.REPORT_FILES}
    for href in hrefs:
        assert (page.parent / href).resolve().is_file(), href
    # each title is the report's own (its [Re] or [¬Re] too)
    for a in soup.select("ul.cl-reports a[href$='report.html']"):
        target = BeautifulSoup((page.parent / a["href"]).read_text(encoding="utf-8"), "html.parser")
        assert a.get_text() == target.find("h1").get_text()
        assert re.match(r"\[(Re|¬Re)\] ", a.get_text())


def test_the_books_reports_are_the_claims_stages_and_count_as_the_ledger():
    _built()
    ledger = pd.read_csv(LEDGER, dtype=str, keep_default_na=False)
    for study, rows in ledger.groupby("study"):
        folder = HTML / links.REPORTS_DIR / study
        for f in links.REPORT_FILES[1:]:
            assert (folder / f).read_bytes() == (STAGE_REPORTS / study / f).read_bytes(), (study, f)
        soup = BeautifulSoup((folder / "report.html").read_text(encoding="utf-8"), "html.parser")
        table = next(t for t in soup.find_all("table") if t.find("th").get_text() == "status")
        cells = [[td.get_text() for td in tr.find_all("td")] for tr in table.find_all("tr")[1:]]
        got = {re.sub(r"^\S+ ", "", s) if s != "total" else s: int(n.replace(",", "")) for s, n in cells}
        shown, expected = by_status(got, rows)
        assert shown == expected, study
        assert got["total"] == len(rows)
        text = soup.get_text()
        assert not re.search(r"(?<![0-9a-f])[0-9a-f]{40}(?![0-9a-f])", text)
        assert not re.search(r"\b\d{4}-\d{2}-\d{2}\b", text)


def test_publish_into_a_copy_of_the_built_book_gives_its_bytes(tmp_path):
    """What the build published is what publish writes from results/claims/reports/ now (the book is current)."""
    _built()
    reports.publish(STAGE_REPORTS, tmp_path)
    for f in sorted((tmp_path / links.REPORTS_DIR).rglob("*.*")):
        rel = f.relative_to(tmp_path)
        assert f.read_bytes() == (HTML / rel).read_bytes(), rel


def test_off_the_reference_settings_every_report_page_carries_the_books_banner(tmp_path, monkeypatch):
    """The report pages are pages of the book: an off-paper run puts the same banner on them (naming each changed
    key, escaped) as on the chapters, and the paper's run none (the scratch-clone exercise checks every built page)."""
    import json

    from compendium.book import sphinx_offpaper
    from compendium.pipeline import params

    d = tmp_path / "params"
    d.mkdir()
    for s, keys in params.REFERENCE.items():
        (d / f"{s}.json").write_text(json.dumps({k: v for k, (v, _) in keys.items()}))
    (d / "valid.json").write_text("{}")
    monkeypatch.setattr(paths, "stage_dir", lambda stage: d)
    src = _source(tmp_path)
    page = reports.publish(src, tmp_path / "paper")[0].read_text(encoding="utf-8")
    assert "compendium-off-paper" not in page
    wb = {k: v for k, (v, _) in params.REFERENCE["workbank"].items()} | {"cutoff": 3.5}
    (d / "workbank.json").write_text(json.dumps(wb))
    page = reports.publish(src, tmp_path / "off")[0].read_text(encoding="utf-8")
    soup = BeautifulSoup(page, "html.parser")
    banner = soup.find(class_="compendium-off-paper")
    assert banner is not None and banner.find_parent("main") is None  # above the report, as the book's bar
    assert str(banner) == str(BeautifulSoup(sphinx_offpaper.run_banner(), "html.parser").div)
    assert "workbank.cutoff = 3.5" in " ".join(banner.get_text().split())

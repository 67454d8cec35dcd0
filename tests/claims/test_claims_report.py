"""`python -m compendium.claims report OUT`: a replication report per study, generated from the claims ledger."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml
from reportcounts import by_status

from compendium.claims import report
from compendium.claims.abstract import HEADLINE_CLAIMS
from compendium.pipeline import paths

LEDGER = paths.RESULTS / "claims" / "claims.csv"
#: the fields of ReScience C's metadata.yaml (github.com/ReScience/template), each with the keys of its items:
#: written out here, not imported, so that a field the report drops fails
TEMPLATE = {
    "title": (),
    "authors": ("name", "orcid", "email", "affiliations"),
    "affiliations": ("code", "name", "address"),
    "keywords": (),
    "code": ("url", "doi", "swh"),
    "data": ("url", "doi"),
    "replication": ("cite", "bib", "url", "doi"),
    "abstract": (),
    "bibliography": (),
    "type": (),
    "domain": (),
    "language": (),
    "review": ("url",),
    "contributors": ("name", "orcid", "role"),
    "dates": ("received", "accepted", "published"),
    "article": ("number", "doi", "url"),
    "journal": ("name", "issn", "volume", "issue"),
}


@pytest.fixture(scope="module")
def reports(evaluation, tmp_path_factory):
    """The reports of this build's ledger (the ``evaluation`` fixture brings it up to date first)."""
    out = tmp_path_factory.mktemp("reports")
    return out, report.write_reports(out)


def _status_table(text: str) -> dict[str, int]:
    """The "Claims by status" table of a report: status word -> count (and "total")."""
    block = text.split("Claims by status:", 1)[1].split("Headline claims:", 1)[0]
    rows = re.findall(r"^\| (?:\S+ )?([a-z -]+?) \| ([\d,]+) \|$", block, re.M)
    return {word: int(n.replace(",", "")) for word, n in rows}


def test_a_report_for_every_study_of_the_ledger(reports):
    out, written = reports
    studies = set(pd.read_csv(LEDGER, dtype=str)["study"])
    assert set(written) == studies == {"pwb", "workbank", "hitl"}
    for s in studies:
        assert {p.name for p in (out / s).iterdir()} == {"report.md", "metadata.yaml", "references.bib"}


def test_the_counts_by_status_equal_the_ledgers(reports):
    out, _ = reports
    ledger = pd.read_csv(LEDGER, dtype=str, keep_default_na=False)
    for study, rows in ledger.groupby("study"):
        text = (out / study / "report.md").read_text(encoding="utf-8")
        got = _status_table(text)
        shown, expected = by_status(got, rows)
        assert shown == expected, study
        assert got["total"] == len(rows)
        checked = int(rows["status"].isin(["reproduced", "differs"]).sum())
        assert f"prints {len(rows):,} numbers" in text and f"{checked:,} were checked" in text
        # what was difficult: the differing claims counted by reason, as the ledger has them
        for reason, n in rows.loc[rows["status"] == "differs", "reason"].value_counts().items():
            label = report._md(report.REASONS[reason])
            assert re.search(rf"^\| {re.escape(label)} \| {n:,} \|", text, re.M), (study, reason)


def test_the_headline_claims_show_both_values(reports):
    out, _ = reports
    text = (out / "pwb" / "report.md").read_text(encoding="utf-8")
    table = text.split("Headline claims:", 1)[1].split("###", 1)[0]
    for cid in HEADLINE_CLAIMS["pwb"]:
        assert f"`{cid}`" in table
    assert re.search(r"^\| `pwb\.delta\.max` \| .* \| \+44\.0 \| 44\.00 \|", table, re.M)


def test_the_metadata_parse_and_carry_every_field_of_the_template(reports):
    out, _ = reports
    cff = yaml.safe_load((paths.ROOT / "CITATION.cff").read_text())
    for study, key in report.ORIGINAL_BIB_KEY.items():
        text = (out / study / "metadata.yaml").read_text(encoding="utf-8")
        meta = yaml.safe_load(text)
        for field, keys in TEMPLATE.items():
            assert field in meta, (study, field)
            if keys:
                merged = {k for item in meta[field] for k in item}
                assert set(keys) <= merged, (study, field, set(keys) - merged)
        assert meta["type"] == "Replication"
        heading = (out / study / "report.md").read_text(encoding="utf-8").splitlines()[0]
        assert heading.replace("\\", "") == "# " + meta["title"]
        code = {k: v for item in meta["code"] for k, v in item.items()}
        assert code["version"] == cff["version"] and code["licence"] == cff["license"]
        assert meta["authors"][0]["name"] == cff["authors"][0]["name"]
        replication = {k: v for item in meta["replication"] for k, v in item.items()}
        assert replication["bib"] == key
        assert f"{{{key}," in (out / study / "references.bib").read_text(encoding="utf-8")
        # what the compendium cannot know is empty and marked, never made up
        contributors = meta["contributors"]
        assert [c["role"] for c in contributors] == ["editor", "reviewer", "reviewer"]
        assert all(c["name"] == "" and c["orcid"] == "" for c in contributors)
        assert code["swh"] == "" and code["doi"] == ""
        for line in text.splitlines():
            if re.search(r': ""\s*(#|$)', line):
                assert "# to fill: " in line, line


def test_the_original_articles_come_from_the_bibliography_the_chapters_cite():
    chapters = {"pwb": "10_pwb.md", "workbank": "20_workbank.md", "hitl": "30_preferences.md"}
    bib = (paths.ROOT / "book" / "references.bib").read_text(encoding="utf-8")
    for study, key in report.ORIGINAL_BIB_KEY.items():
        assert f"{{cite}}`{key}`" in (paths.ROOT / "notebooks" / chapters[study]).read_text(encoding="utf-8")
        orig = report.original(study)
        assert orig.title and orig.title.replace(" ", "") in re.sub(r"[{}]", "", bib).replace(" ", "")
    hitl = report.original("hitl")
    assert hitl.authors == ("Petrova", "Márquez") and hitl.year == "2026"
    assert report.original("workbank").url == "https://arxiv.org/abs/2506.06576"


def test_the_bibliography_is_parsed_once_and_read_as_pybtex_reads_the_file(tmp_path):
    """original() parses a bibliography once per text (the stage asks for each study's article twice) and gets the
    same article from it as pybtex's own parse_file; the cached parse is not changed by a caller."""
    from pybtex.database import parse_file

    bib = paths.ROOT / "book" / "references.bib"
    report._bibliography.cache_clear()
    first = {s: report.original(s) for s in report.ORIGINAL_BIB_KEY}
    assert {s: report.original(s) for s in report.ORIGINAL_BIB_KEY} == first
    info = report._bibliography.cache_info()
    assert info.misses == 1 and info.hits == 2 * len(first) - 1
    cached = report._bibliography(bib.read_text(encoding="utf-8"))
    whole = parse_file(str(bib))
    assert list(cached.entries) == list(whole.entries)
    for key, entry in whole.entries.items():
        assert entry.key == cached.entries[key].key and dict(entry.fields) == dict(cached.entries[key].fields)
    # another bibliography file (a test's) is parsed anew; its key in another case (BibTeX keys are read without
    # case) is found, and the key as written stays in the cached parse
    key = report.ORIGINAL_BIB_KEY["workbank"]
    other = tmp_path / "other.bib"
    text = bib.read_text(encoding="utf-8").replace("Future of Work", "Past of Work").replace(key, key.upper())
    other.write_text(text, encoding="utf-8")
    assert report.original("workbank", other).title != first["workbank"].title
    assert report._bibliography(text).entries[key].key == key.upper()


def _ledger_with(tmp_path, study, changes: dict[str, dict[str, str]]):
    """A copy of the ledger with every headline claim of ``study`` reproduced, then ``changes`` applied."""
    df = pd.read_csv(LEDGER, dtype=str, keep_default_na=False)
    head = df["claim_id"].isin(HEADLINE_CLAIMS[study])
    df.loc[head, ["status", "reason"]] = ["reproduced", ""]
    for cid, cols in changes.items():
        for col, v in cols.items():
            df.loc[df["claim_id"] == cid, col] = v
    p = tmp_path / "claims.csv"
    df.to_csv(p, index=False)
    return p


def _title(tmp_path, csv, study):
    written = report.write_reports(tmp_path / "out", csv)
    return (written[study] / "report.md").read_text(encoding="utf-8").splitlines()[0]


@pytest.mark.parametrize(
    "change, prefix",
    [
        ({}, "[Re]"),
        ({"status": "unexplained"}, "[¬Re]"),
        ({"status": "needs_data", "reproduced": ""}, "[¬Re]"),
        ({"status": "differs", "reason": "method_open"}, "[¬Re]"),
        ({"status": "differs", "reason": "paper_slip"}, "[Re]"),
        ({"status": "differs", "reason": "monte_carlo"}, "[Re]"),
        # an exercise off the paper's settings is no verdict either way
        ({"status": "off_paper", "reason": ""}, "[Off-paper run]"),
    ],
)
def test_the_title_follows_the_rule_over_the_headline_claims(evaluation, tmp_path, change, prefix):
    cid = HEADLINE_CLAIMS["workbank"][0]
    csv = _ledger_with(tmp_path, "workbank", {cid: change} if change else {})
    assert _title(tmp_path, csv, "workbank").startswith("# \\" + prefix.replace("]", "\\]"))
    meta = yaml.safe_load((tmp_path / "out" / "workbank" / "metadata.yaml").read_text(encoding="utf-8"))
    assert meta["title"].startswith(prefix + " ")


def test_a_headline_claim_missing_from_the_ledger_is_not_a_replication(evaluation, tmp_path):
    csv = _ledger_with(tmp_path, "pwb", {})
    df = pd.read_csv(csv, dtype=str, keep_default_na=False)
    df[df["claim_id"] != HEADLINE_CLAIMS["pwb"][0]].to_csv(csv, index=False)
    assert _title(tmp_path, csv, "pwb").startswith("# \\[¬Re\\]")


def test_text_from_the_ledger_cannot_break_a_table_row(evaluation, tmp_path):
    cid = HEADLINE_CLAIMS["hitl"][0]
    csv = _ledger_with(tmp_path, "hitl", {cid: {"what": "a | b\n| c | d |\n# heading <script>"}})
    text = (report.write_reports(tmp_path / "out", csv)["hitl"] / "report.md").read_text(encoding="utf-8")
    row = next(ln for ln in text.splitlines() if ln.startswith(f"| `{cid}`"))
    assert row.count(" | ") == 4  # five cells, none added by the text
    assert "\\|" in row and "<script>" not in text and "\n# heading" not in text


def test_a_span_between_backticks_is_code_and_nothing_else_of_the_text_is_read():
    """A note's `command` shows as code, as in the claims chapter (readable_html), not as two literal backticks;
    its text is literal (no tag, no cell end), and a lone backtick stays a backtick."""
    from compendium.book.reports import report_html

    md = report._md("run `python -m x | y <script>` then <b>b</b> `")
    assert md == "run `python -m x \\| y <script>` then \\<b\\>b\\</b\\> \\`"
    page = report_html(f"| note | n |\n|---|---|\n| {md} | 1 |\n", "t")
    cell = re.search(r"<td>(.*?)</td>", page).group(1)
    assert cell == "run <code>python -m x | y &lt;script&gt;</code> then &lt;b&gt;b&lt;/b&gt; `", cell


def _run(*args, env=None):
    return subprocess.run(
        [sys.executable, "-m", "compendium.claims", *args],
        cwd=paths.ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
    )


def _one_sentence(r):
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("claims report: "), r.stderr
    return lines[0]


def test_a_missing_ledger_is_one_sentence_and_writes_nothing(tmp_path):
    out = tmp_path / "out"
    msg = _one_sentence(_run("report", str(out), env={"COMPENDIUM_RESULTS": str(tmp_path / "results")}))
    assert "claims.csv does not exist" in msg and "dvc repro claims" in msg
    msg = _one_sentence(_run("report", str(out), "--claims", str(tmp_path / "nope.csv")))
    assert "nope.csv does not exist" in msg
    assert not out.exists()


@pytest.mark.parametrize(
    "content, said",
    [
        (b"\xff\xfe\x00garbage\x00\xff", "cannot be read as a CSV"),
        (b"", "cannot be read as a CSV"),
        (b"study,claim_id\npwb,pwb.x\n", "has no column 'what'"),
    ],
)
def test_an_unreadable_ledger_is_one_sentence(tmp_path, content, said):
    bad = tmp_path / "claims.csv"
    bad.write_bytes(content)
    msg = _one_sentence(_run("report", str(tmp_path / "out"), "--claims", str(bad)))
    assert said in msg and "claims.csv" in msg
    assert not (tmp_path / "out").exists()


def test_the_printed_command_writes_three_reports(tmp_path):
    """`python -m compendium.claims report OUT`, as the README prints it, on the committed ledger: a report and a
    metadata file per study, each title [Re] or [¬Re] as the rule gives it, and one line per study printed."""

    r = _run("report", str(tmp_path / "OUT"))
    assert r.returncode == 0, r.stderr
    studies = sorted(p.name for p in (tmp_path / "OUT").iterdir() if p.is_dir())
    assert studies == ["hitl", "pwb", "workbank"]
    claims = pd.read_csv(paths.RESULTS / "claims" / "claims.csv")
    for s in studies:
        text = (tmp_path / "OUT" / s / "report.md").read_text(encoding="utf-8")
        meta = yaml.safe_load((tmp_path / "OUT" / s / "metadata.yaml").read_text(encoding="utf-8"))
        assert text.startswith(("# \\[Re\\] ", "# \\[¬Re\\] "))
        assert meta["title"].startswith(("[Re] ", "[¬Re] ")) and meta["type"] == "Replication"
        assert f"prints {len(claims[claims['study'] == s]):,} numbers" in text
        assert f"claims report: {s}: " in r.stdout


def test_make_report_writes_the_three_reports_into_reports():
    """`make report`, as the README prints it: the same three reports into reports/ (gitignored), offline, each
    also as a PDF."""
    import shutil
    import subprocess

    root = paths.ROOT
    out = root / "reports"
    shutil.rmtree(out, ignore_errors=True)
    r = subprocess.run(["make", "-s", "report"], cwd=root, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    for s in ("hitl", "pwb", "workbank"):
        assert (out / s / "report.md").is_file() and (out / s / "metadata.yaml").is_file()
        assert f"claims report: {s}: reports/{s}/report.md" in r.stdout
        assert (out / s / "report.pdf").read_bytes().startswith(b"%PDF"), f"no PDF of the {s} report"
    ignored = subprocess.run(["git", "check-ignore", "-q", "reports/pwb/report.md"], cwd=root)
    assert ignored.returncode == 0, "reports/ must be gitignored"


# ------------------------------------------------------------------ the book's copy: results/claims/reports/

STAGE_REPORTS = paths.RESULTS / "claims" / "reports"
#: a git commit as the report would print it (40 hex digits standing alone: a sha256 of 64 is not one)
COMMIT = re.compile(r"(?<![0-9a-f])[0-9a-f]{40}(?![0-9a-f])")
#: a calendar date in any common spelling (2026-01-31, 31/01/2026, 31 January 2026, January 31, 2026)
DATE = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}/\d{4}\b|\b\d{1,2} (?:January|February|March|April|May|June|July|"
    r"August|September|October|November|December) \d{4}\b|\b(?:January|February|March|April|May|June|July|August|"
    r"September|October|November|December) \d{1,2}, \d{4}\b"
)


def _head() -> str:
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=paths.ROOT, capture_output=True, text=True).stdout.strip()


def test_the_claims_stage_writes_the_books_reports_from_its_ledger(evaluation):
    """results/claims/reports/ holds a report per study of claims.csv, with the counts of claims.csv, and is
    what write_reports(..., record_commit=False) writes from it (so the stage's copy is the current ledger's)."""
    ledger = pd.read_csv(LEDGER, dtype=str, keep_default_na=False)
    assert sorted(p.name for p in STAGE_REPORTS.iterdir()) == sorted(set(ledger["study"]))
    for study, rows in ledger.groupby("study"):
        text = (STAGE_REPORTS / study / "report.md").read_text(encoding="utf-8")
        got = _status_table(text)
        shown, expected = by_status(got, rows)
        assert shown == expected, study
        assert got["total"] == len(rows)


def test_the_books_reports_carry_no_commit_and_no_date_and_say_where_the_commit_is(evaluation):
    head = _head()
    for folder in sorted(STAGE_REPORTS.iterdir()):
        for f in ("report.md", "metadata.yaml", "references.bib"):
            text = (folder / f).read_text(encoding="utf-8")
            assert not COMMIT.search(text), (folder.name, f, COMMIT.search(text))
            assert not (head and head[:12] in text), (folder.name, f)
            assert not DATE.search(text), (folder.name, f, DATE.search(text))
        assert report.COMMIT_LEFT_OUT in (folder / "report.md").read_text(encoding="utf-8")


def test_without_the_commit_a_report_is_the_same_bytes_whatever_the_commit(evaluation, tmp_path, monkeypatch):
    """The commit is the one input that is not a file: with record_commit=False two checkouts at different commits
    write the same bytes, and the commit appears in neither; the copy `make report` writes names it."""
    written = {}
    for fake in ("1" * 40, "2" * 40):
        monkeypatch.setattr(report, "git_commit", lambda fake=fake: fake)
        for record in (False, True):
            out = tmp_path / f"{fake[0]}-{record}"
            report.write_reports(out, LEDGER, record_commit=record)
            written[fake[0], record] = {p.relative_to(out): p.read_bytes() for p in sorted(out.rglob("*.*"))}
    assert written["1", False] == written["2", False]
    assert all(b"1" * 40 not in b and b"2" * 40 not in b for b in written["1", False].values())
    assert written["1", True] != written["2", True]
    assert b"1" * 40 in written["1", True][Path("pwb") / "report.md"]


def test_the_report_reads_nothing_of_the_checkout_but_its_inputs(evaluation, tmp_path, monkeypatch):
    """A checkout holding only report.INPUTS (and the ledger) gives the stage's reports byte for byte: whatever else
    the report read (data/README.md, once) would be missing there and change them, or fail."""
    root = tmp_path / "root"
    for rel in report.INPUTS:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(paths.ROOT / rel, root / rel)
    monkeypatch.setattr(paths, "ROOT", root)
    out = tmp_path / "out"
    report.write_reports(out, LEDGER, record_commit=False)
    for f in sorted(STAGE_REPORTS.rglob("*.*")):
        rel = f.relative_to(STAGE_REPORTS)
        assert (out / rel).read_bytes() == f.read_bytes(), rel


def test_every_input_of_the_report_is_a_dependency_of_the_claims_stage():
    """What the book's copy reads is what the claims stage depends on (dvc.yaml), and the copy is its output."""
    spec = yaml.safe_load((paths.ROOT / "dvc.yaml").read_text())["stages"]["claims"]
    deps = {str(d) for d in spec["deps"]}
    inputs = {rel.as_posix() for rel in report.INPUTS + report.PARAM_INPUTS}
    assert inputs <= deps, inputs - deps
    from compendium.claims.vocab import STUDY_STAGE

    assert {f"results/params/{stage}.json" for stage in STUDY_STAGE.values()} == {
        p.as_posix() for p in report.PARAM_INPUTS
    }
    assert "data/README.md" not in deps  # DVC-tracked data: a stage depending on it would re-record data.dvc
    outs = {next(iter(o)) if isinstance(o, dict) else o for o in spec["outs"]}
    assert "results/claims" in outs


def test_a_status_change_changes_the_books_report(evaluation, tmp_path):
    """One claim moved from reproduced to differs: its study's report counts it there, and only that study's
    report changes."""
    df = pd.read_csv(LEDGER, dtype=str, keep_default_na=False)
    cid = df.loc[(df["study"] == "workbank") & (df["status"] == "reproduced"), "claim_id"].iloc[0]
    df.loc[df["claim_id"] == cid, ["status", "reason"]] = ["differs", "paper_slip"]
    csv = tmp_path / "claims.csv"
    df.to_csv(csv, index=False)
    before = report.write_reports(tmp_path / "before", LEDGER, record_commit=False)
    after = report.write_reports(tmp_path / "after", csv, record_commit=False)
    texts = {study: [(w[study] / "report.md").read_text(encoding="utf-8") for w in (before, after)] for study in before}
    assert {study for study, (old, new) in texts.items() if old != new} == {"workbank"}
    old, new = (_status_table(t) for t in texts["workbank"])
    assert new["reproduced"] == old["reproduced"] - 1 and new["differs"] == old["differs"] + 1
    assert new["total"] == old["total"]


def test_the_datasheet_prints_the_catalogs_bullets():
    """The report reads each dataset's provenance from the catalog (a dependency of the claims stage), not from
    data/README.md (DVC-tracked data, on which no stage may depend): the datasheet's bullets must be the catalog's."""
    sheet = (paths.ROOT / report.DATASHEET).read_text(encoding="utf-8")
    for study in report.ORIGINAL_BIB_KEY:
        m = re.search(rf"^## {re.escape(study)}: .*\n\n((?:- .*\n)+)", sheet, re.M)
        assert m, f"data/README.md has no section for {study}"
        assert dict(re.findall(r"^- ([^:\n]+): (.+)$", m.group(1), re.M)) == report.datasheet(study), study


def test_a_catalog_that_does_not_load_is_one_sentence_naming_it(tmp_path):
    bad = tmp_path / "catalog.py"
    bad.write_text("DATASETS = {\n")
    with pytest.raises(report.ReportError, match=r"catalog.py cannot be loaded \(SyntaxError.*restore it"):
        report.datasheet("pwb", bad)
    bad.write_text("DATASETS = []\n")
    with pytest.raises(report.ReportError, match=r"catalog.py has no dict DATASETS"):
        report.datasheet("pwb", bad)
    assert report.datasheet("nope") == {}


def test_the_claims_pages_list_of_reports_escapes_its_titles_and_links_every_file(evaluation, monkeypatch):
    """reports_html: one item per study of the ledger, its title as the report's heading gives it (the rule's [Re]
    or [¬Re]), text from the bibliography escaped, and a link to each file the book publishes."""
    from dataclasses import replace

    from bs4 import BeautifulSoup

    from compendium.claims import links

    real = report.original
    hostile = replace(real("hitl"), title="<script>x</script> & Co")
    monkeypatch.setattr(report, "original", lambda s: hostile if s == "hitl" else real(s))
    page = str(report.reports_html(LEDGER))
    assert "<script>" not in page and "&lt;script&gt;x&lt;/script&gt; &amp; Co" in page
    soup = BeautifulSoup(page, "html.parser")
    items = soup.select("ul.cl-reports > li")
    ledger = pd.read_csv(LEDGER, dtype=str)
    studies = [s for s in report.ORIGINAL_BIB_KEY if s in set(ledger["study"])]
    assert len(items) == len(studies)
    for study, li in zip(studies, items, strict=True):
        assert [a["href"] for a in li.find_all("a")] == [links.report_href(study, f) for f in links.REPORT_FILES]
        heading = (STAGE_REPORTS / study / "report.md").read_text(encoding="utf-8").splitlines()[0]
        if study != "hitl":
            assert "# " + report._md(li.find("a").get_text()) == heading
        assert li.find("a").get_text().startswith(("[Re] ", "[¬Re] "))


@pytest.mark.parametrize("study", ["workbank", "hitl"])
def test_an_off_paper_run_says_so_at_the_top_of_every_report(evaluation, tmp_path, monkeypatch, study):
    """With workbank's section off the reference, its report names the key and says it is no verdict; the other
    reports say the run is off-paper elsewhere and theirs are checked as usual; the paper's run says neither."""
    from compendium.claims import compare

    def top(text):
        return text.split("## Reproducibility Summary", 1)[0]

    plain = (report.write_reports(tmp_path / "plain", LEDGER)[study] / "report.md").read_text(encoding="utf-8")
    assert "**Off-paper run.**" not in top(plain)
    changed = {"workbank": ["workbank.cutoff = 3.5 (reference 3.0, the paper's)"]}
    monkeypatch.setattr(compare, "off_paper_studies", lambda results_dir=None: changed)
    text = (report.write_reports(tmp_path / "off", LEDGER)[study] / "report.md").read_text(encoding="utf-8")
    note = " ".join(top(text).split("**Off-paper run.**", 1)[1].split())
    assert "workbank.cutoff = 3.5" in note and "`make reset`" in note
    if study == "workbank":
        assert "This study's parameters differ" in note and "not a replication verdict" in note
    else:
        assert "this study's are the reference" in note
    assert text.replace(top(text), "") == plain.replace(top(plain), "")  # the summary itself is the ledger's

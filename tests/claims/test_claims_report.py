"""`python -m compendium.claims report OUT`: a replication report per study, generated from the claims ledger."""

import os
import re
import subprocess
import sys

import pandas as pd
import pytest
import yaml

from compendium.claims import report
from compendium.claims.abstract import HEADLINE_CLAIMS
from compendium.pipeline import paths

LEDGER = paths.RESULTS / "claims" / "claims.csv"
STATUS_WORDS = {
    "reproduced": "reproduced",
    "differs": "differs",
    "needs_data": "needs data",
    "quoted": "quoted",
    "off_paper": "off-paper run",
    "unexplained": "unexplained",
}
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
        expected = {STATUS_WORDS[s]: int((rows["status"] == s).sum()) for s in STATUS_WORDS}
        assert {k: got[k] for k in expected} == expected, study
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

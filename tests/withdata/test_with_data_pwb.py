"""With data: the day the per-instance PWB results arrive, the whole path runs, on a scratch clone.

A scratch clone of HEAD (``git clone``, data restored with ``dvc pull data.dvc``, as the reliability suite
does) gets the full-size synthetic snapshot (:mod:`compendium.data.synthetic_pwb`: 14 results files in the
Hugging Face release's layout, about 90,000 judge values) where the per-instance loader reads acquired
results (``data/pwb/results/``), through the documented accept step
``python -m compendium.data.acquire pwb --from DIR``; then ``dvc repro`` runs every stage it reaches. Checked: every ``per_instance`` claim has a computed value (never
"needs data"), no executed chapter holds an error output, the book builds with the per-instance
sections. The clone is then deleted. Run with ``make test-with-data`` (part of ``.ci/run``).

The ``pwb`` stage depends on ``acquired/pwb`` (the acquisition's local manifest), so accepting the files
makes it stale; the test checks that.
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.withdata


def _claims(d: Path) -> list[dict]:
    with open(d / "results" / "claims" / "claims.csv", newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_snapshot_has_the_release_shape(clone):
    files = sorted((clone["dir"] / "data" / "pwb" / "results").glob("*.json"))
    assert len(files) == 14
    if clone["generator"]:
        n = int(clone["generator"].split(" files, ")[1].split(" judge")[0].replace(",", ""))
        assert 85_000 <= n <= 100_000, clone["generator"]


def test_acquiring_results_makes_the_pwb_stage_stale(clone):
    """The pwb stage depends on acquired/pwb (the local manifest an acquisition writes), so accepting the
    results makes `dvc status` report the stage changed and a plain `dvc repro` re-runs it."""
    if clone["stale_detected"] is None:
        pytest.skip("PWB_WITHDATA_CLONE: a reused clone, the status before the data arrived is not known")
    assert clone["stale_detected"] is True


def test_every_per_instance_claim_has_a_computed_value(clone):
    rows = [r for r in _claims(clone["dir"]) if r["level"] == "per_instance"]
    assert len(rows) == 209
    lacking = [r["claim_id"] for r in rows if r["status"] == "needs_data" or r["reproduced"] == ""]
    assert lacking == [], f"{len(lacking)} per-instance claims without a value: {lacking[:20]}"
    # synthetic numbers: a value that is not the paper's is 'unexplained' (no differs note), never 'needs data'
    assert {r["status"] for r in rows} <= {"reproduced", "differs", "unexplained"}


def test_the_pwb_values_come_from_the_instances(clone):
    v = json.loads((clone["dir"] / "results" / "pwb" / "values.json").read_text())
    vals = v.get("values", v)
    assert vals["pwb.d_pooled.glm51"] is not None
    assert vals["pwb.cf_co.r"] is not None


def test_no_executed_chapter_holds_an_error(clone):
    p = clone["run"](
        clone["dir"],
        sys.executable,
        "-c",
        "from compendium.book import failed_chapters; print('\\n'.join(failed_chapters()))",
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == ""


def test_the_book_renders_the_per_instance_sections(clone):
    html = (clone["dir"] / "book" / "_build" / "html" / "executed" / "10_pwb.html").read_text(encoding="utf-8")
    assert "present in this build" in html
    for name in ("tbl-pwb-inst-wilcoxon", "tbl-pwb-inst-ttest", "tbl-pwb-inst-layer2", "tbl-pwb-inst-layer3"):
        assert name in html, name
    assert "No per-instance results in this build" not in html


def test_the_data_chapter_counts_what_the_per_instance_reader_reads_and_skips(clone):
    """The datasheet stage depends on acquired/pwb too: with the snapshot it reports the reader's files (14
    read, no checkpoint skipped in the synthetic release) in values.json and in a sentence of the chapter."""
    v = json.loads((clone["dir"] / "results" / "datasheet" / "values.json").read_text())
    vals = v.get("values", v)
    assert (vals["data.pwb.results.files"], vals["data.pwb.results.read"]) == (14, 14)
    assert (vals["data.pwb.results.skipped_checkpoints"], vals["data.pwb.results.other_models"]) == (0, 0)
    html = (clone["dir"] / "book" / "_build" / "html" / "executed" / "00_data.html").read_text(encoding="utf-8")
    assert "skips 0 Layer-1 checkpoint files beside a complete file" in html

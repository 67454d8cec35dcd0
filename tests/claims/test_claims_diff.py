"""`python -m compendium.claims diff REV`: which claims changed between a revision and this build."""

import json
import subprocess
import sys

from compendium.claims import diff as claims_diff
from compendium.pipeline import paths


def _row(cid, value, status, study="pwb"):
    return {"claim_id": cid, "reproduced": value, "status": status, "study": study}


def test_compare_finds_value_status_added_and_removed_changes_and_ignores_equal_numbers():
    old = {
        "a": _row("a", "1.0", "reproduced"),
        "b": _row("b", "2", "reproduced"),
        "c": _row("c", "3", "reproduced"),
        "d": _row("d", "", "needs_data"),
        "gone": _row("gone", "9", "reproduced"),
    }
    new = {
        "a": _row("a", "1", "reproduced"),  # the same number written differently: no change
        "b": _row("b", "2.5", "reproduced"),  # value only
        "c": _row("c", "4", "differs"),  # status (and value)
        "d": _row("d", "", "needs_data"),
        "new": _row("new", "7", "reproduced", study="hitl"),
    }
    got = {c.claim_id: c.kind for c in claims_diff.compare(old, new)}
    assert got == {"b": "value", "c": "status", "gone": "removed", "new": "added"}
    # sorted by study, then id
    assert [c.claim_id for c in claims_diff.compare(old, new)] == ["new", "b", "c", "gone"]


def test_from_cache_reads_claims_csv_through_the_dvc_directory_object(tmp_path):
    cache = tmp_path / "cache"
    csv_text = "study,claim_id,reproduced,status\npwb,x,1,reproduced\n"

    def put(md5, text):
        f = cache / "files" / "md5" / md5[:2] / md5[2:]
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text)

    put("aa" + "0" * 30, csv_text)
    put("bb" + "1" * 30 + ".dir", json.dumps([{"md5": "aa" + "0" * 30, "relpath": "claims.csv"}]))
    lock = (
        "schema: '2.0'\nstages:\n  claims:\n    outs:\n    - path: results/claims\n      md5: bb" + "1" * 30 + ".dir\n"
    )
    assert claims_diff.from_cache(lock, cache) == csv_text
    assert claims_diff.read_claims_csv(csv_text)["x"]["status"] == "reproduced"
    # a lock whose objects are not cached, or with no claims output: None (the caller recomputes)
    assert claims_diff.from_cache(lock.replace("bb" + "1" * 30, "cc" + "2" * 30), cache) is None
    assert claims_diff.from_cache("stages: {}\n", cache) is None


def test_an_unknown_revision_is_one_sentence():
    r = subprocess.run(
        [sys.executable, "-m", "compendium.claims", "diff", "no-such-rev"],
        cwd=paths.ROOT,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2
    assert (
        r.stderr.strip()
        == "claims diff: 'no-such-rev' is not a commit of this repository (try `git log --oneline` for one)"
    )
    assert "Traceback" not in r.stderr


def test_diff_against_head_reads_the_cache_and_finds_no_change(evaluation):
    # after `dvc repro` (the evaluation fixture) the committed dvc.lock's claims output is in the cache; this
    # build was computed from HEAD's inputs, unless the working tree has changes, so no claim can differ
    r = subprocess.run(
        [sys.executable, "-m", "compendium.claims", "diff", "HEAD", "--json"],
        cwd=paths.ROOT,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["source"] == "DVC cache"
    assert out["compared"] == len(evaluation.table)
    if not subprocess.run(
        ["git", "status", "--porcelain", "--", "dvc.lock"], cwd=paths.ROOT, capture_output=True, text=True
    ).stdout:
        assert out["changes"] == []

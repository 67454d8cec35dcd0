"""The ledger's machine-readable export ``claims.json``, and `claims diff OLD.json NEW.json` between two of them."""

import json
import os
import subprocess
import sys

import pandas as pd
import pytest

from compendium.claims import ledger
from compendium.claims.diff import diff_files, render
from compendium.pipeline import paths

LEDGER = paths.RESULTS / "claims" / "claims.csv"
FIELDS = ["id", "study", "what", "published", "reproduced", "status", "reason", "evidence", "code", "data", "commit"]


@pytest.fixture(scope="module")
def exported(evaluation, tmp_path_factory):
    out = tmp_path_factory.mktemp("json") / "claims.json"
    ledger.write_claims_json(out, LEDGER, commit="0123456789abcdef0123456789abcdef01234567")
    return out, json.loads(out.read_text(encoding="utf-8"))


def test_one_record_per_claim_with_every_field_and_a_header(exported):
    _, doc = exported
    df = pd.read_csv(LEDGER, dtype=str, keep_default_na=False)
    assert doc["schema_version"] == ledger.SCHEMA_VERSION
    assert doc["generated_from"] == "results/claims/claims.csv"
    assert doc["count"] == len(df) == len(doc["claims"])
    assert [r["id"] for r in doc["claims"]] == list(df["claim_id"])
    assert all(list(r) == FIELDS for r in doc["claims"])
    assert {r["commit"] for r in doc["claims"]} == {doc["commit"]}
    by_id = {r["id"]: r for r in doc["claims"]}
    for row in df.sample(200, random_state=0).to_dict("records"):
        rec = by_id[row["claim_id"]]
        assert rec["status"] == row["status"] and rec["study"] == row["study"] and rec["what"] == row["what"]
        assert rec["code"] == (row["provenance"] or None)
        assert rec["data"] == [p.strip() for p in row["data"].split(";") if p.strip()]
        assert rec["reason"] == (row["reason"] or None)
        for col in ("published", "reproduced"):
            v = row[col]
            if v == "":
                assert rec[col] is None
            elif isinstance(rec[col], (int, float)):
                assert rec[col] == pytest.approx(float(v), rel=0, abs=0)
            else:
                assert rec[col] == v


def test_values_keep_their_type():
    assert ledger.json_value("1507") == 1507 and isinstance(ledger.json_value("1507"), int)
    assert ledger.json_value("34.71428571") == 34.71428571
    assert isinstance(ledger.json_value("44.0"), float)
    assert ledger.json_value("") is None
    assert ledger.json_value("nan") == "nan"  # JSON has no NaN
    assert ledger.json_value("Green Light") == "Green Light"
    assert ledger.json_value("[1, 2]") == "[1, 2]"


def test_the_export_is_byte_stable_and_has_the_checkouts_commit(evaluation, tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    ledger.write_claims_json(a, LEDGER)
    ledger.write_claims_json(b, LEDGER)
    assert a.read_bytes() == b.read_bytes()
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=paths.ROOT, capture_output=True, text=True).stdout.strip()
    assert json.loads(a.read_text())["commit"] == head
    assert ledger.git_commit(tmp_path) is None  # not a git checkout


def _changed(path, doc, cid, **fields):
    new = json.loads(json.dumps(doc))
    for r in new["claims"]:
        if r["id"] == cid:
            r.update(fields)
    path.write_text(json.dumps(new), encoding="utf-8")
    return path


def test_two_exported_ledgers_compare_without_a_checkout(exported, tmp_path):
    old, doc = exported
    recs = [r for r in doc["claims"] if isinstance(r["reproduced"], float)]
    by_status, by_value = recs[0], recs[1]
    new = _changed(tmp_path / "new.json", doc, by_status["id"], status="unexplained")
    new = _changed(new, json.loads(new.read_text()), by_value["id"], reproduced=by_value["reproduced"] + 1.0)
    d = diff_files(old, new)
    assert d.compared == doc["count"]
    assert {c.claim_id: c.kind for c in d.changes} == {by_status["id"]: "status", by_value["id"]: "value"}
    text = render(d)
    assert f"{old} → {new}" in text
    assert "1 changed status, 1 changed value only, 0 added, 0 removed" in text
    assert by_status["id"] in text and "→ unexplained" in text and by_value["id"] in text
    assert "changed in between" not in text  # two files say nothing about what changed between them


def test_identical_ledgers_report_nothing_changed(exported, tmp_path):
    old, _ = exported
    copy = tmp_path / "copy.json"
    copy.write_bytes(old.read_bytes())
    r = subprocess.run(
        [sys.executable, "-m", "compendium.claims", "diff", str(old), str(copy), "--json"],
        cwd=paths.ROOT,
        capture_output=True,
        text=True,
        env=os.environ,
    )
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["changes"] == [] and out["causes"] is None
    r = subprocess.run(
        [sys.executable, "-m", "compendium.claims", "diff", str(old), str(copy)],
        cwd=paths.ROOT,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0 and "No claim changed." in r.stdout and "0 changed status" in r.stdout


def test_an_exported_ledger_compares_with_a_claims_csv(exported):
    old, _ = exported
    assert diff_files(old, LEDGER).changes == []


@pytest.mark.parametrize(
    "content, said",
    [
        (None, "does not exist"),
        ("{not json", "is not a readable JSON file"),
        ('{"schema_version": 1}', "has no list 'claims'"),
        ('{"schema_version": 9, "claims": []}', "has schema_version 9"),
        ('{"schema_version": 1, "claims": [{"id": "x", "study": "pwb"}]}', "record 0: field 'status'"),
    ],
)
def test_a_bad_file_is_one_sentence(tmp_path, content, said):
    bad = tmp_path / "bad.json"
    if content is not None:
        bad.write_text(content)
    good = tmp_path / "good.json"
    good.write_text('{"schema_version": 1, "claims": []}')
    r = subprocess.run(
        [sys.executable, "-m", "compendium.claims", "diff", str(good), str(bad)],
        cwd=paths.ROOT,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("claims diff: ") and said in lines[0], r.stderr
    assert "bad.json" in lines[0]

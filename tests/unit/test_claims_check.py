"""The claims check on hand-made inputs: each status, tolerance edges, arrays, bad YAML."""
import pandas as pd
import pytest
import yaml

from compendium import claims


def _published(tmp_path, claims_list, study="workbank"):
    (tmp_path / f"{study}.yaml").write_text(yaml.safe_dump({"study": study, "claims": claims_list}))
    return claims.load_published(tmp_path)


def test_statuses(tmp_path):
    pub = _published(tmp_path, [
        {"id": "a", "what": "a", "published": 46.1, "tol": 0.05, "where": "P"},
        {"id": "b", "what": "b", "published": 13.3, "tol": 0.005, "where": "P"},
        {"id": "c", "what": "c", "published": 1.30, "tol": 0.01, "where": "P"},
        {"id": "d", "what": "d", "published": 5, "tol": 0, "where": "P"},
        {"id": "e", "what": "e", "published": 7, "tol": 0, "where": "P"},
    ])
    values = {"workbank": {"a": 46.09, "b": 13.87, "d": 6, "e": 7}}
    notes = {"b": {"kind": "differs", "note": "label typo", "page": "x"},
             "c": {"kind": "needs_data", "note": "needs run-level data"}}
    t = claims.check(pub, values, notes).set_index("claim_id")
    assert t.loc["a", "status"] == "reproduced"
    assert t.loc["b", "status"] == "differs" and t.loc["b", "note"] == "label typo"
    assert t.loc["c", "status"] == "needs_data" and t.loc["c", "reproduced"] == ""
    assert t.loc["d", "status"] == "unexplained"
    assert t.loc["e", "status"] == "reproduced"
    s = claims.summary(t.reset_index()).set_index("study")
    assert s.loc["workbank", ["reproduced", "differs", "needs_data", "unexplained", "total"]].tolist() == [2, 1, 1, 1, 5]


def test_tolerance_is_inclusive_and_elementwise():
    assert claims.within_tolerance(46.1, 46.15, 0.05)
    assert not claims.within_tolerance(46.1, 46.151, 0.05)
    assert claims.within_tolerance([[1, 2], [3, 4]], [[1, 2], [3, 4]], 0)
    assert not claims.within_tolerance([[1, 2], [3, 4]], [[1, 2], [3, 5]], 0)
    assert not claims.within_tolerance([1, 2], [1, 2, 3], 0)
    assert not claims.within_tolerance(1.0, None, 0.1)
    assert not claims.within_tolerance(1.0, float("nan"), 0.1)


def test_stage_mapping_reads_preferences_for_hitl(tmp_path):
    pub = _published(tmp_path, [{"id": "hitl.n", "what": "n", "published": 1507, "tol": 0}], study="hitl")
    t = claims.check(pub, {"preferences": {"hitl.n": 1507}}, {})
    assert t["status"].tolist() == ["reproduced"]


def test_bad_yaml_is_named(tmp_path):
    (tmp_path / "x.yaml").write_text(yaml.safe_dump({"study": "x", "claims": [{"id": "q", "what": "w"}]}))
    with pytest.raises(ValueError, match=r"x.yaml: claim 0 \(q\) lacks \['published', 'tol'\]"):
        claims.load_published(tmp_path)
    (tmp_path / "notes.yaml").write_text(yaml.safe_dump({"q": {"note": "n"}}))
    with pytest.raises(ValueError, match="entry 'q' needs 'kind'"):
        claims.load_notes(tmp_path)


def test_duplicate_ids_rejected(tmp_path):
    c = {"id": "a", "what": "a", "published": 1, "tol": 0}
    (tmp_path / "s1.yaml").write_text(yaml.safe_dump({"study": "s1", "claims": [c]}))
    (tmp_path / "s2.yaml").write_text(yaml.safe_dump({"study": "s2", "claims": [c]}))
    with pytest.raises(ValueError, match="duplicate claim ids"):
        claims.load_published(tmp_path)


def test_project_published_files_load():
    pub = claims.load_published()
    assert set(pub["study"]) == {"workbank", "pwb", "hitl"}
    assert len(pub) == pub["claim_id"].nunique()
    assert isinstance(pub, pd.DataFrame)


def test_caveat_is_shown_but_never_changes_a_status(tmp_path):
    pub = _published(tmp_path, [
        {"id": "p", "what": "p", "published": 40.7, "tol": 0.1},
        {"id": "q", "what": "q", "published": 40.7, "tol": 0.1},
    ])
    notes = {"p": {"kind": "caveat", "note": "point estimate"}, "q": {"kind": "caveat", "note": "point estimate"}}
    t = claims.check(pub, {"workbank": {"p": 40.75, "q": 41.0}}, notes).set_index("claim_id")
    assert t.loc["p", "status"] == "reproduced" and t.loc["p", "note"] == "point estimate"
    assert t.loc["q", "status"] == "unexplained"

"""compendium.pipeline.metrics: the headline numbers DVC compares across experiments."""

import json

import pandas as pd

from compendium.pipeline import metrics, studies


def test_headline_picks_the_named_keys_and_never_invents_one(tmp_path):
    (tmp_path / "values.json").write_text(
        json.dumps(
            {"wb.zones.green": 364, "wb.zones.red": 267, "wb.desire.share_gt3": 46.1, "wb.mixed.icc": None, "other": 1}
        )
    )
    h = metrics.headline("workbank", tmp_path)
    assert h == {"zone_green": 364, "zone_red": 267, "share_desire_gt3": 46.1}


def test_claims_metrics_count_statuses(tmp_path):
    pd.DataFrame({"status": ["reproduced", "reproduced", "needs_data", "differs"]}).to_csv(tmp_path / "claims.csv")
    assert metrics.headline("claims", tmp_path) == {
        "claims_differs": 1,
        "claims_needs_data": 1,
        "claims_off_paper": 0,
        "claims_quoted": 0,
        "claims_reproduced": 2,
        "claims_unexplained": 0,
    }


def test_claims_metrics_agree_with_pandas_on_the_ledger_quotes_newlines_and_empty_cells_included(tmp_path):
    """The counts are read with the csv module (no pandas in the stage runner): the same as pandas' value_counts
    of the column, on the stage's own ledger and on cells that quote commas and newlines, or are empty."""
    from compendium.pipeline import paths

    ledger = paths.RESULTS / "claims" / "claims.csv"
    rows = pd.read_csv(ledger) if ledger.exists() else pd.DataFrame({"claim_id": ["x"], "status": ["quoted"]})
    extra = pd.DataFrame(
        {"claim_id": ["a,b", "c\nd", "e"], "status": ["differs", "reproduced", None], "note": ['say "x"', "", "y,z"]}
    )
    pd.concat([rows, extra]).to_csv(tmp_path / "claims.csv", index=False)
    counts = pd.read_csv(tmp_path / "claims.csv")["status"].value_counts()
    got = metrics.headline("claims", tmp_path)
    assert got == {
        f"claims_{k}": int(counts.get(k, 0)) for k in sorted(set(metrics.CLAIM_STATUSES) | set(counts.index))
    }
    assert sum(got.values()) == len(rows) + 2  # the empty cell is not counted
    # a byte order mark before the header (a file saved by a spreadsheet), status the first column: the same counts
    (tmp_path / "claims.csv").write_bytes(b"\xef\xbb\xbfstatus,claim_id\nreproduced,a\ndiffers,b\nreproduced,c\n")
    assert metrics.headline("claims", tmp_path)["claims_reproduced"] == 2


def test_every_stage_with_results_has_metrics_declared_in_dvc_yaml():
    import yaml

    from compendium.pipeline import paths

    stages = yaml.safe_load((paths.ROOT / "dvc.yaml").read_text())["stages"]
    for st in list(metrics.HEADLINE) + ["claims"]:
        declared = [next(iter(m)) if isinstance(m, dict) else m for m in stages[st].get("metrics", [])]
        assert declared == [f"metrics/{st}.json"], st


def test_model_lists_match_the_study_packages():
    from compendium import preferences, pwb

    assert studies._PWB_MODELS == tuple(pwb.MODEL_KEYS.values())
    assert studies._PREF_MODELS == tuple(preferences.MODELS)


def test_counts_are_written_as_integers_and_shares_stay_floats(tmp_path):
    (tmp_path / "values.json").write_text(json.dumps({"wb.zones.green": 364.0, "wb.desire.share_gt3": 46.0}))
    h = metrics.headline("workbank", tmp_path)
    assert h == {"zone_green": 364, "share_desire_gt3": 46.0}
    assert type(h["zone_green"]) is int and type(h["share_desire_gt3"]) is float
    assert json.dumps(h) == '{"zone_green": 364, "share_desire_gt3": 46.0}'


def test_every_count_metric_is_a_headline_name():
    names = {n for keys in metrics.HEADLINE.values() for n in keys}
    assert metrics.COUNTS <= names


def test_claim_statuses_are_the_claims_checks_and_all_are_written_with_zeros(tmp_path):
    from compendium.claims import STATUSES

    assert metrics.CLAIM_STATUSES == STATUSES
    (tmp_path / "claims.csv").write_text("claim_id,status\na,reproduced\nb,differs\n")
    got = metrics.headline("claims", tmp_path)
    assert got == {f"claims_{s}": {"reproduced": 1, "differs": 1}.get(s, 0) for s in sorted(STATUSES)}
    assert got["claims_off_paper"] == 0  # present: a diff after an exercise reads 0 -> n

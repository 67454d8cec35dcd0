"""``python -m compendium.preferences.rank FILE``: ranking the models of any pairwise-annotation file,
checked against independent libraries (choix for Bradley-Terry, statsmodels for Wilson intervals)."""

from __future__ import annotations

import json

import choix
import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.proportion import proportion_confint

from compendium.data.synthetic_hitl import make_study_rows
from compendium.pipeline import paths
from compendium.preferences import rank


def _own_study(tmp_path):
    """Three models of someone else's study, named freely, with one row lacking a choice."""
    rows = [
        ("m1", "m2", "A"),
        ("m1", "m2", "A"),
        ("m2", "m1", "B"),
        ("m1", "m2", "tie"),
        ("m2", "m3", "A"),
        ("m3", "m2", "B"),
        ("m2", "m3", "B"),
        ("m1", "m3", "m1"),
        ("m3", "m1", "A"),
        ("m1", "m3", None),
        ("m3", "m1", "about equal"),
    ]
    f = tmp_path / "mine.jsonl"
    pd.DataFrame(rows, columns=["a_model", "b_model", "choice"]).to_json(f, orient="records", lines=True)
    return f


def test_rank_agrees_with_choix_and_statsmodels(tmp_path):
    f = tmp_path / "rows.parquet"
    make_study_rows(seed=3).to_parquet(f, index=False)
    res = rank.rank(f, n_boot=200, seed=1, ci=rank.CI)
    t = res["table"].set_index("model")
    # independent BT: choix on the same half-win matrix (models in any order), strengths scaled to sum to K
    j, _ = rank.judgements(pd.read_parquet(f), f)
    models = sorted(set(j.model_a) | set(j.model_b))
    k = {m: n for n, m in enumerate(models)}
    W = np.zeros((5, 5))
    for a, b, o in j.itertuples(index=False):
        if o == "tie":
            W[k[a], k[b]] += 0.5
            W[k[b], k[a]] += 0.5
        else:
            w, lo = (a, b) if o == "a" else (b, a)
            W[k[w], k[lo]] += 1
    s = np.exp(choix.ilsr_pairwise_dense(W, alpha=0, tol=1e-12))
    s = s / s.sum() * 5
    np.testing.assert_allclose(t.loc[models, "bt_strength"], s, rtol=1e-4)
    for m in models:
        wins = int(((j.model_a == m) & (j.outcome == "a")).sum() + ((j.model_b == m) & (j.outcome == "b")).sum())
        losses = int(((j.model_a == m) & (j.outcome == "b")).sum() + ((j.model_b == m) & (j.outcome == "a")).sum())
        assert (t.loc[m, "wins"], t.loc[m, "losses"]) == (wins, losses)
        lo, hi = proportion_confint(wins, wins + losses, alpha=0.05, method="wilson")
        assert t.loc[m, "wilson_lo"] == pytest.approx(lo, abs=1e-12) and t.loc[m, "wilson_hi"] == pytest.approx(
            hi, abs=1e-12
        )
        assert t.loc[m, "bt_lo"] <= t.loc[m, "bt_strength"] <= t.loc[m, "bt_hi"]
    assert res["table"]["p_best"].sum() == pytest.approx(1.0)
    assert res["info"]["judgements"] == 1507 and res["info"]["rows_without_choice"] == 0


def test_rank_cli_takes_any_model_names_skips_rows_without_a_choice_and_writes_out(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(paths, "RESULTS", tmp_path / "results")
    (tmp_path / "results" / "preferences").mkdir(parents=True)
    (tmp_path / "results" / "preferences" / "values.json").write_text("{}")
    f = _own_study(tmp_path)
    out = tmp_path / "out"
    before = sorted(p.as_posix() for p in paths.RESULTS.rglob("*"))
    assert rank.main([str(f), "--n-boot", "300", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "10 judgements of 3 models in 3 pairs (1 row(s) without a choice skipped)" in text
    t = pd.read_csv(out / "rank.csv").set_index("model")
    # m1: beats m2 twice (+1 as side B), ties once, wins once vs m3 by name, loses once (m3 side A), ties once
    assert (t.loc["m1", "wins"], t.loc["m1", "losses"], t.loc["m1", "ties"]) == (4, 1, 2)
    assert json.loads((out / "rank.json").read_text())["info"]["rows_without_choice"] == 1
    assert sorted(p.as_posix() for p in paths.RESULTS.rglob("*")) == before
    assert (tmp_path / "results" / "preferences" / "values.json").read_text() == "{}"


@pytest.mark.parametrize(
    "rows,msg",
    [
        ([("m1", "m2", "A"), ("m1", "m2", "maybe")], "row 2: field 'choice': 'maybe' is not A, B, tie"),
        ([("m1", "m2", "A"), ("m1", None, "A")], "row 2: field 'b_model': expected a model id"),
        ([("m1", "m1", "A")], "row 1: field 'b_model': the same model 'm1' on both sides"),
    ],
)
def test_malformed_file_gets_one_sentence_naming_file_row_and_field(tmp_path, capsys, rows, msg):
    f = tmp_path / "bad.csv"
    pd.DataFrame(rows, columns=["a_model", "b_model", "choice"]).to_csv(f, index=False)
    assert rank.main([str(f)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: {f}: ") and msg in err and err.count("\n") == 1 and "Traceback" not in err


def test_rank_never_writes_under_results(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(paths, "RESULTS", tmp_path / "results")
    f = _own_study(tmp_path)
    assert rank.main([str(f), "--out", str(paths.RESULTS / "mine")]) == 1
    assert "results/ are never written" in capsys.readouterr().err
    assert not (paths.RESULTS / "mine").exists()


def test_rank_counts_and_names_repeated_participant_scenario_rows(tmp_path):
    """A file with the study's row key (participant x scenario) that repeats a key was ranked silently; the
    repeated rows are counted (each is a judgement, as the study's report counts them) and named."""
    rows = make_study_rows(seed=1).head(40)
    rows = pd.concat([rows, rows.iloc[[3]]], ignore_index=True)
    f = tmp_path / "dup.csv"
    rows.to_csv(f, index=False)
    with pytest.warns(UserWarning) as w:
        res = rank.rank(f, n_boot=50, seed=rank.SEED, ci=rank.CI)
    msg = str(w[0].message)
    pid, sid = rows.iloc[3]["participant_id"], rows.iloc[3]["scenario_id"]
    assert msg.startswith(f"{f}: 1 row(s) repeat a participant's judgement of a scenario"), msg
    assert f"participant {pid!r}, scenario {sid!r} at rows 4 and 41" in msg
    assert res["info"]["repeated_rows"] == 1 and res["info"]["judgements"] == 41

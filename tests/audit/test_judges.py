"""compendium.audit.judges: the panel order, self-preference, the panel rule's recusal, agreement, length bias.

Hand-worked cases whose answers are known, planted effects that must be found, null cases that must not be
flagged more often than the level allows, and cross-checks against independent computations (a brute-force
median, scipy's Welch test, numpy least squares, the PWB package's own panel statistics and PWI).
"""

from __future__ import annotations

import json
import math
import statistics
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from compendium import data
from compendium.audit import judges as J
from compendium.pwb import instances as inst, validation as val
from compendium.pwb.constants import CONDITIONS, DIMENSIONS, MODEL_KEYS
from compendium.pwb.weights import pro_worker_index
from compendium.stats.pairwise import wilson_interval

PANEL = ["Devstral-2 123B (judge)", "GPT-oss 120B (judge)", "Gemma 4 31B (judge)"]
SUBJECTS = [(j, j.removesuffix(" (judge)")) for j in PANEL]
MODELS = list(MODEL_KEYS)
Z95 = float(stats.norm.ppf(0.975))


@pytest.fixture(scope="module")
def config():
    return data.load_pwb_config()


@pytest.fixture(scope="module")
def real_sample():
    sample, _ = val.fourth_judge_sample(
        data.load_pwb_fourth_judge_scores(), data.load_pwb_fourth_judge_errors(), rule="first"
    )
    return sample


def sample_like(seed: int, n: int = 500, plant: float = 0.0, planted: int = 0) -> pd.DataFrame:
    """A fourth-judge-shaped sample in tidy form: n items over the 7 models, 10 dimensions and 2 conditions,
    three panel judges with their own generosity and an outside judge; ``plant`` added to judge ``planted``'s
    scores of its own model's items."""
    rng = np.random.default_rng(seed)
    model = rng.choice(MODELS, n)
    effect = dict(zip(MODELS, np.linspace(-0.5, 0.5, len(MODELS)), strict=True))
    quality = rng.normal(1.5, 0.9, n) + np.array([effect[m] for m in model])
    items = pd.DataFrame(
        {
            "item_id": np.arange(1, n + 1),
            "model": model,
            "condition": rng.choice(CONDITIONS, n),
            "dimension": rng.choice(DIMENSIONS, n),
            "prompt_id": [f"p{i % 20:02d}" for i in range(n)],
        }
    )
    rows = []
    for name, bias in zip([*PANEL, J.OUTSIDE], [0.3, -0.1, -0.3, 0.0], strict=True):
        s = np.clip(np.round(quality + bias + rng.normal(0, 0.6, n)), 0, 3)
        if name == PANEL[planted]:
            s = s + plant * (model == SUBJECTS[planted][1])
        rows.append(items.assign(judge=name, score=s))
    return pd.concat(rows, ignore_index=True)


# --------------------------------------------------------------------------------------------------
# who is who
# --------------------------------------------------------------------------------------------------


def test_the_panel_order_is_the_real_configs_judges_each_a_subject(config):
    assert J.judge_subjects(config) == SUBJECTS
    # the fact is transcribed with its sources, so a reader can check it
    for where in (
        "src/judge.py 479-502",
        "src/judge.py 381-385",
        "src/runner.py 228-237",
        "pilot/sample_fourth_judge.py",
    ):
        assert where in J.PANEL_ORDER


def test_judge_subjects_by_id_or_name_none_for_outsiders_and_refuses_a_conflict():
    cfg = {
        "models": [{"id": "x/gpt", "name": "GPT-oss 120B"}, {"id": "x/qwen397", "name": "Qwen3.5 397B"}],
        "judges": [
            {"id": "x/gpt", "name": "Judge One"},  # by id
            {"id": "y/other", "name": "Gemma 4 31B (judge)"},  # by name
            {"id": "x/qwen397", "name": "Qwen3.5 397B (judge)"},  # a model, but not one of the seven scored
            {"id": "z/none", "name": "Outsider"},
        ],
    }
    assert J.judge_subjects(cfg) == [
        ("Judge One", "GPT-oss 120B"),
        ("Gemma 4 31B (judge)", "Gemma 4 31B"),
        ("Qwen3.5 397B (judge)", None),
        ("Outsider", None),
    ]
    bad = {"models": cfg["models"], "judges": [{"id": "x/gpt", "name": "Gemma 4 31B (judge)"}]}
    with pytest.raises(ValueError, match="id of model 'GPT-oss 120B' but the name of model 'Gemma 4 31B'"):
        J.judge_subjects(bad)
    with pytest.raises(ValueError, match="'judges' must be a non-empty list"):
        J.judge_subjects({"models": []})


# --------------------------------------------------------------------------------------------------
# the tidy judge-level form
# --------------------------------------------------------------------------------------------------


def _fj(rows):
    return pd.DataFrame(
        [
            {"item_id": i, "model": m, "condition": "baseline", "dimension": "cognitive_forcing", "prompt_id": "cf_01",
             "panel_individual_scores": s, "claude_score": c}
            for i, m, s, c in rows
        ]
    )  # fmt: skip


def test_sample_scores_places_triples_in_config_order_and_leaves_out_pairs():
    s = _fj([(1, "Gemma 4 31B", [3, 1, 2], 2), (2, "GLM 5.1", [2, 0], 1), (3, "GLM 5.1", [0, 0, 1], 0)])
    long = J.sample_scores(s, SUBJECTS)
    assert len(long) == 2 * 4 and set(long["item_id"]) == {1, 3}
    one = long[long["item_id"] == 1].set_index("judge")["score"]
    assert one.to_dict() == {PANEL[0]: 3.0, PANEL[1]: 1.0, PANEL[2]: 2.0, J.OUTSIDE: 2.0}
    assert J.unplaced_items(s, SUBJECTS) == {
        "n_items": 3,
        "n_placed": 2,
        "n_unplaced": 1,
        "unplaced_item_ids": [2],
        "unplaced_by_model": {"GLM 5.1": 1},
        "unplaced_own": {PANEL[0]: 0, PANEL[1]: 0, PANEL[2]: 0},
    }
    with pytest.raises(ValueError, match="item_id 7, field 'panel_individual_scores': 1 scores"):
        J.sample_scores(_fj([(7, "GLM 5.1", [2], 2)]), SUBJECTS)
    with pytest.raises(ValueError, match="item_id 8, field 'panel_individual_scores': score 4 is not an integer 0-3"):
        J.sample_scores(_fj([(8, "GLM 5.1", [2, 4, 1], 2)]), SUBJECTS)


def test_sample_scores_on_the_real_sample(real_sample):
    long = J.sample_scores(real_sample, SUBJECTS)
    assert long["judge"].value_counts().to_dict() == dict.fromkeys([*PANEL, J.OUTSIDE], 492)
    audit = J.unplaced_items(real_sample, SUBJECTS)
    assert audit["unplaced_item_ids"] == [29, 42, 46, 106, 166, 167, 374, 430]
    assert audit["unplaced_own"] == {PANEL[0]: 1, PANEL[1]: 0, PANEL[2]: 0}
    # the judge rows give back the released panel median (validation.panel_median, an independent rule)
    wide = J.panel_wide(long, PANEL).merge(real_sample[["item_id", "panel_median", "claude_score"]], on="item_id")
    assert (wide[PANEL].apply(lambda r: val.panel_median(r.tolist()), axis=1) == wide["panel_median"]).all()
    assert (wide.merge(long[long["judge"] == J.OUTSIDE], on="item_id")["score"] == wide["claude_score"]).all()


def _results_json():
    """A hand-made results file: positional triples, a run with a failed judge, a record with judge ids."""
    ids = ["openai/mistralai/Devstral-2-123B-Instruct-2512", "openai/openai/gpt-oss-120b",
           "openai/Intel/gemma-4-31B-it-int4-AutoRound"]  # fmt: skip
    runs = [
        {"run": 0, "score": 2, "individual_scores": [3, 2, 1], "response": "abc"},
        {"run": 1, "score": 2, "individual_scores": [2, 3], "response": "abcdef"},  # which judge failed?
        {"run": 2, "score": 1, "individual_results": [{"score": s, "judge_model": i} for s, i in zip([0, -1, 1], ids)],
         "response": ""},
    ]  # fmt: skip
    return {
        "model_name": "Gemma 4 31B",
        "variant": "baseline",
        "layer1": {"cognitive_forcing": [{"prompt_id": "cf_01", "prompt": "p", "runs": runs}]},
    }


def test_instances_long_names_judges_by_position_and_by_id_and_counts_the_rest(config):
    t = inst.instances_from_results_json(_results_json())
    long = J.instances_long(t, config)
    by_run = {r: g.set_index("judge")["score"].to_dict() for r, g in long.groupby("run")}
    assert by_run == {0: {PANEL[0]: 3.0, PANEL[1]: 2.0, PANEL[2]: 1.0}, 2: {PANEL[0]: 0.0, PANEL[2]: 1.0}}
    assert J.unplaced_runs(t, config) == {
        "n_runs": 3,
        "n_placed": 2,
        "n_unplaced": 1,
        "rows_per_unplaced_run": {2: 1},
        "unplaced_by_model": {"Gemma 4 31B": 1},
    }


# --------------------------------------------------------------------------------------------------
# self-preference
# --------------------------------------------------------------------------------------------------


def test_self_preference_hand_worked_difference_in_differences():
    # own model A: judge 3 vs references (2, 2) twice -> d = 1, 1; others: judge 2 vs (2, 1) -> 0.5, judge 0 vs (1, 0) -> -0.5
    rows = [
        (1, "A", 3, 2, 2),
        (2, "A", 3, 2, 2),
        (3, "B", 2, 2, 1),
        (4, "C", 0, 1, 0),
    ]
    long = pd.concat(
        [pd.DataFrame({"item_id": [r[0]], "model": [r[1]], "judge": [n], "score": [float(r[k])]})
         for r in rows for n, k in (("J", 2), ("R1", 3), ("R2", 4))],
        ignore_index=True,
    )  # fmt: skip
    res = J.self_preference(long, "J", "A", ["R1", "R2"], n_boot=200, seed=0, level=0.95)
    assert res["diff_own"] == 1.0 and res["diff_other"] == 0.0 and res["estimate"] == 1.0
    assert (res["n_own"], res["n_other"], res["n_dropped"]) == (2, 2, 0)
    assert res["mde"] == pytest.approx((Z95 + stats.norm.ppf(0.8)) * res["se"])
    # too few own items: counted, no estimate; a judge among its references: refused
    few = J.self_preference(long[long["item_id"] != 2], "J", "A", ["R1", "R2"], n_boot=50, seed=0, level=0.95)
    assert few["n_own"] == 1 and math.isnan(few["estimate"])
    with pytest.raises(ValueError, match="cannot be its own reference"):
        J.self_preference(long, "J", "A", ["J"], n_boot=50, seed=0, level=0.95)


@pytest.mark.parametrize("reference", ["panel", "outside"])
def test_a_planted_half_point_is_found_against_either_reference(reference):
    long = sample_like(seed=11, plant=0.5, planted=1)
    ref = [PANEL[0], PANEL[2]] if reference == "panel" else [J.OUTSIDE]
    res = J.self_preference(long, PANEL[1], SUBJECTS[1][1], ref, n_boot=1000, seed=0, level=0.95)
    assert res["lo"] > 0 and res["lo"] < 0.5 < res["hi"]
    assert res["p"] < 0.05 and res["p_boot"] < 0.05
    # the Welch check by scipy on the same per-item differences
    w = J.panel_wide(long, [PANEL[1], *ref])
    d = w[PANEL[1]] - w[ref].mean(axis=1)
    own = w["model"] == SUBJECTS[1][1]
    welch = stats.ttest_ind(d[own], d[~own], equal_var=False)
    assert res["p_welch"] == pytest.approx(welch.pvalue) and res["n_own"] == own.sum()
    # the same data without the plant: nothing
    null = J.self_preference(sample_like(seed=11), PANEL[1], SUBJECTS[1][1], ref, n_boot=1000, seed=0, level=0.95)
    assert null["lo"] < 0 < null["hi"]
    assert res["estimate"] - null["estimate"] == pytest.approx(0.5)


def test_without_a_plant_the_interval_covers_zero_at_about_its_level():
    level, covered, small_p, ratio = 0.9, [], [], []
    for seed in range(40):
        res = J.self_preference(
            sample_like(seed), PANEL[0], SUBJECTS[0][1], PANEL[1:], n_boot=200, seed=seed, level=level
        )
        covered.append(res["lo"] <= 0 <= res["hi"])
        small_p.append(res["p_welch"] < 1 - level)
        ratio.append(res["se"] / res["se_welch"])
    # 40 nulls at level 0.9: 36 expected covered; fewer than 31 has probability under 2 %
    assert sum(covered) >= 31
    assert sum(small_p) <= 9
    # the bootstrap SE (items resampled within strata) agrees with scipy's Welch SE for independent items
    assert 0.9 < float(np.mean(ratio)) < 1.1


def test_the_clustered_bootstrap_sees_correlated_runs_the_item_bootstrap_misses():
    """Runs of one prompt share a judge x prompt x model deviation: the item-level SE is far too small, the
    prompt-clustered SE matches the estimate's spread over repeated data sets (a Monte-Carlo truth)."""
    n_prompt, n_run, models = 40, 5, MODELS[:4]

    def draw(rng):
        idx = pd.MultiIndex.from_product([models, range(n_prompt), range(n_run)], names=["model", "prompt", "run"])
        t = idx.to_frame(index=False)
        v = rng.normal(0, 1.0, (len(models), n_prompt))  # judge x prompt x model, shared by the runs
        mi = t["model"].map({m: i for i, m in enumerate(models)}).to_numpy()
        j = v[mi, t["prompt"].to_numpy()] + rng.normal(0, 0.5, len(t))
        return t, j

    def estimate(t, j):
        own = (t["model"] == models[0]).to_numpy()
        return j[own].mean() - j[~own].mean()

    rng = np.random.default_rng(5)
    truth = float(np.std([estimate(*draw(rng)) for _ in range(200)], ddof=1))
    t, j = draw(rng)
    t["item_id"] = np.arange(len(t))
    long = pd.concat(
        [t.assign(judge="J", score=j), t.assign(judge="R", score=0.0)], ignore_index=True
    )  # the reference constant: d is the judge's score
    kw = {"n_boot": 500, "seed": 0, "level": 0.95}
    items = J.self_preference(long, "J", models[0], ["R"], **kw)
    clustered = J.self_preference(long, "J", models[0], ["R"], cluster="prompt", **kw)
    assert clustered["n_clusters"] == n_prompt
    assert items["se"] < 0.6 * truth
    assert 0.75 < clustered["se"] / truth < 1.33


def test_the_table_has_a_row_per_subject_judge_reference_and_group():
    long = sample_like(seed=3)
    subjects = [*SUBJECTS, ("Outsider (judge)", None)]
    tab = J.self_preference_table(
        long, subjects, references=J.default_references(SUBJECTS), n_boot=100, seed=0, level=0.95, by=("condition",)
    )
    assert len(tab) == 3 * 2 * 2
    assert list(tab.columns[:4]) == ["judge", "own_model", "reference_kind", "condition"]
    row = tab[(tab["judge"] == PANEL[2]) & (tab["reference_kind"] == "other panel judges")].iloc[0]
    assert row["reference"] == f"{PANEL[0]} + {PANEL[1]}"
    # a row is self_preference on its group, with the same stream
    direct = J.self_preference(
        long[long["condition"] == row["condition"]], PANEL[2], SUBJECTS[2][1], PANEL[:2], n_boot=100, seed=0, level=0.95
    )
    assert row["estimate"] == direct["estimate"] and row["lo"] == direct["lo"]


# --------------------------------------------------------------------------------------------------
# what the panel rule does
# --------------------------------------------------------------------------------------------------


def test_pivotal_shares_hand_worked_and_against_brute_force():
    arr = np.array([[1, 1, 1], [0, 1, 2], [1, 2, 2], [3, 0, 1]])
    t = J.pivotal_shares(arr, ["A", "B", "C"], level=0.95).set_index("judge")
    assert t["n_median"].to_dict() == {"A": 1, "B": 3, "C": 3}
    assert t["n_pivotal"].to_dict() == {"A": 2, "B": 3, "C": 3}
    assert t["n_changes_if_dropped"].to_dict() == {"A": 1, "B": 2, "C": 2}
    lo, hi = wilson_interval(3, 4, z=Z95)
    assert (t.loc["B", "lo_median"], t.loc["B", "hi_median"]) == pytest.approx((lo, hi))
    # brute force: a judge is pivotal iff some other score of its own moves the median of three
    rng = np.random.default_rng(0)
    arr = rng.integers(0, 4, (300, 3))
    t = J.pivotal_shares(arr, ["A", "B", "C"], level=0.9)
    for j in range(3):
        moved = 0
        for row in arr:
            med = statistics.median(row)
            alts = [statistics.median([v if k == j else x for k, x in enumerate(row)]) for v in range(4)]
            moved += any(a != med for a in alts)
        assert t.loc[j, "n_pivotal"] == moved


def _brute_rules(wide, subjects):
    """Each rule's per-item score by plain Python (statistics.median, math.floor)."""
    names = [n for n, _ in subjects]
    own = {s: j for j, (_, s) in enumerate(subjects) if s is not None}
    out = {r: [] for r in ["full panel", "recusal", "recusal, two judges everywhere", *[f"without {n}" for n in names]]}
    for _, r in wide.iterrows():
        sc = [r[n] for n in names]
        drop = [math.floor(statistics.mean([x for k, x in enumerate(sc) if k != j])) for j in range(3)]
        full = math.floor(statistics.median(sc))
        out["full panel"].append(full)
        out["recusal"].append(drop[own[r["model"]]] if r["model"] in own else full)
        out["recusal, two judges everywhere"].append(drop[own[r["model"]]] if r["model"] in own else np.mean(drop))
        for j, n in enumerate(names):
            out[f"without {n}"].append(drop[j])
    return out


def test_recusal_effect_hand_worked_and_against_brute_force():
    subjects = [("A", "mA"), ("B", "mB"), ("C", None)]
    wide = pd.DataFrame(
        {
            "model": ["mA", "mA", "mB", "mC"],
            "A": [3, 2, 1, 2],
            "B": [2, 2, 3, 2],
            "C": [1, 2, 3, 1],
        }
    )
    res = J.recusal_effect(wide, subjects)
    m = res["means"].set_index(["rule", "model"])
    # full: mA (2 + 2) / 2, mB 3, mC 2; recusal: mA [2,1] -> 1 and [2,2] -> 2, mB [1,3] -> 2, mC 2
    assert m.loc[("full panel", "mA"), "mean"] == 2 and m.loc[("full panel", "mB"), "mean"] == 3
    assert m.loc[("recusal", "mA"), "mean"] == 1.5 and m.loc[("recusal", "mB"), "mean"] == 2
    assert m.loc[("recusal", "mC"), "rank"] == 1 and m.loc[("recusal", "mA"), "delta_rank"] == 1
    net = res["net"].set_index("judge")
    # without A: mA -0.5 (to 1.5), mB 3 -> [3,3] 3: 0, mC [2,1] -> 1: -1 -> other mean -0.5, net 0
    assert net.loc["A", "change_own"] == -0.5 and net.loc["A", "change_other"] == -0.5 and net.loc["A", "net"] == 0
    # brute force on random panels, every rule, means and ranks
    rng = np.random.default_rng(1)
    wide = pd.DataFrame(
        {"model": rng.choice(["mA", "mB", "mC", "mD"], 80), **{n: rng.integers(0, 4, 80) for n in "ABC"}}
    )
    res = J.recusal_effect(wide, subjects)
    brute = _brute_rules(wide, subjects)
    for rule, sc in brute.items():
        want = pd.Series(sc, index=wide.index).groupby(wide["model"]).mean()
        got = res["means"][res["means"]["rule"] == rule].set_index("model")
        assert got["mean"].to_numpy() == pytest.approx(want.sort_index().to_numpy()), rule
        assert (got["rank"] == want.rank(ascending=False, method="min").astype(int)).all(), rule
    assert res["n_used"] == 80 and res["n_excluded"] == 0


def test_recusal_pwi_is_the_packages_pwi_of_the_rules_dimension_means():
    rng = np.random.default_rng(2)
    n = 400
    wide = pd.DataFrame(
        {
            "model": rng.choice(MODELS[:4], n),
            "condition": rng.choice(CONDITIONS, n),
            "dimension": rng.choice(DIMENSIONS[:3], n),
            **{p: rng.integers(0, 4, n).astype(float) for p in PANEL},
        }
    )
    wide.loc[0, PANEL[1]] = np.nan  # an incomplete panel: left out
    weights = {DIMENSIONS[0]: 0.5, DIMENSIONS[1]: 0.3, DIMENSIONS[2]: 0.2}
    res = J.recusal_effect(wide, SUBJECTS, weights=weights)
    assert res["n_excluded"] == 1
    full = wide.drop(index=0)
    sc = _brute_rules(full, SUBJECTS)["recusal"]
    dm = full.assign(s=sc).groupby(["model", "condition", "dimension"])["s"].mean()
    got = res["pwi"][res["pwi"]["rule"] == "recusal"].set_index(["model", "condition"])["pwi"]
    for (mdl, cond), v in got.items():
        assert v == pytest.approx(pro_worker_index(dm.loc[(mdl, cond)], weights))
    assert set(res["pwi_summary"]["condition"]) == set(CONDITIONS)


# --------------------------------------------------------------------------------------------------
# agreement and the effective panel size
# --------------------------------------------------------------------------------------------------


def test_effective_panel_size_closed_forms():
    assert J.effective_panel_size(3, 0.0) == 3.0
    assert J.effective_panel_size(3, 1.0) == 1.0
    assert J.effective_panel_size(3, 0.5) == 1.5
    assert math.isnan(J.effective_panel_size(3, float("nan")))


def test_panel_reliability_reuses_the_pwb_panel_statistics_on_the_real_sample(real_sample):
    wide = J.panel_wide(J.sample_scores(real_sample, SUBJECTS), PANEL)
    rel = J.panel_reliability(wide, PANEL).set_index("dimension")
    irr = val.sample_panel_irr(real_sample).set_index("dimension")
    cols = ["n", "exact", "adjacent", "qwk", "alpha", "spread"]
    pd.testing.assert_frame_equal(rel[cols], irr.loc[rel.index, cols])
    # mean_r is the mean of pandas' pairwise Pearson correlations; n_eff and reliability follow from it
    cf = wide[wide["dimension"] == "cognitive_forcing"][PANEL].corr().to_numpy()
    r = cf[np.triu_indices(3, 1)].mean()
    assert rel.loc["cognitive_forcing", "mean_r"] == pytest.approx(r)
    assert rel.loc["cognitive_forcing", "n_eff"] == pytest.approx(3 / (1 + 2 * r))
    assert rel.loc["cognitive_forcing", "reliability"] == pytest.approx(3 * r / (1 + 2 * r))
    # identical judges are worth one
    same = pd.DataFrame({"dimension": "x", **dict.fromkeys(PANEL, [0, 1, 2, 3, 2, 1])})
    assert J.panel_reliability(same, PANEL).iloc[0]["n_eff"] == pytest.approx(1.0)


# --------------------------------------------------------------------------------------------------
# length bias
# --------------------------------------------------------------------------------------------------


def test_length_bias_hand_worked_and_against_least_squares():
    runs = pd.DataFrame(
        {
            "dimension": ["a"] * 4 + ["b"] * 3,
            "condition": "baseline",
            "response_chars": [1000, 2000, 3000, 4000, 1000, 3000, 5000],
            "panel": [0, 1, 2, 3, 3, 2, 1],
        }
    )
    t = J.length_bias(runs, level=0.95).set_index("dimension")
    assert t.loc["a", "slope"] == pytest.approx(1.0) and t.loc["b", "slope"] == pytest.approx(-0.5)
    assert t.loc["a", "rho"] == pytest.approx(1.0) and t.loc["b", "rho"] == pytest.approx(-1.0)
    # within-cell slope: (5 - 4) / (5 + 8) by hand; and by least squares with a dummy per cell
    assert t.loc["POOLED", "slope"] == pytest.approx(1 / 13)
    x = np.column_stack([runs["response_chars"] / 1000, runs["dimension"] == "a", runs["dimension"] == "b"])
    beta, res, *_ = np.linalg.lstsq(x.astype(float), runs["panel"].to_numpy(float), rcond=None)
    assert beta[0] == pytest.approx(1 / 13)
    se = math.sqrt(res[0] / (7 - 3) / ((x[:, 0] - np.where(x[:, 1], 2.5, 3.0)) ** 2).sum())
    assert t.loc["POOLED", "slope_hi"] - t.loc["POOLED", "slope"] == pytest.approx(stats.t.ppf(0.975, 4) * se)
    # a cell whose responses all have one length (50 characters: the mean of three 0.05s is not 0.05 in floating point) has no
    # slope and adds nothing to the pooled one
    flat = pd.DataFrame({"dimension": "c", "condition": "baseline", "response_chars": 50.0, "panel": [0, 3, 1]})
    t2 = J.length_bias(pd.concat([runs, flat], ignore_index=True), level=0.95).set_index("dimension")
    assert math.isnan(t2.loc["c", "slope"]) and t2.loc["POOLED", "slope"] == pytest.approx(1 / 13)


def test_response_lengths_key_every_layer1_run_of_a_synthetic_release(tmp_path):
    from compendium.data import synthetic_pwb

    synthetic_pwb.write_snapshot(tmp_path, seed=1, size="small")
    lens = J.response_lengths(tmp_path / "results", verify=False)
    panel = inst.panel_scores(inst.load_hf_results(tmp_path / "results", complete=True, verify=False))
    l1 = panel[panel["layer"] == 1].merge(lens, on=inst.RUN_KEYS, how="left", validate="1:1")
    assert l1["response_chars"].notna().all() and (l1["response_chars"] > 0).all()
    # one length read straight from the file
    f = next((tmp_path / "results").glob("*.json"))
    d = json.loads(f.read_text())
    dim, prompts = next(iter(d["layer1"].items()))
    want = len(prompts[0]["runs"][1]["response"])
    got = lens.set_index(inst.RUN_KEYS).loc[(d["model_name"], d["variant"], 1, dim, prompts[0]["prompt_id"], 1)]
    assert got["response_chars"] == want
    assert len(J.length_bias(l1, level=0.95)) > 1


def test_importing_the_module_loads_no_heavy_library():
    code = (
        "import sys, compendium.audit.judges; "
        "print(sorted(m for m in ('pingouin', 'statsmodels', 'matplotlib.pyplot') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"

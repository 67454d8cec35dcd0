"""pingouin effect sizes and tests (compendium.pwb.effects) against independent computations."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import compendium.data as data
from compendium.pwb import aggregates as agg, effects, instances as inst


def _hand_ci(d, n1, n2, conf=0.95):
    # Hedges & Olkin large-sample SE of d, t quantile with n1 + n2 - 2 dof (written out, no pingouin)
    se = np.sqrt((n1 + n2) / (n1 * n2) + d**2 / (2 * (n1 + n2)))
    q = stats.t.ppf(0.5 + conf / 2, n1 + n2 - 2)
    return d - q * se, d + q * se


def test_d_intervals_hand_worked_and_unrounded():
    ci = effects.d_intervals([0.5, 1.3], [100, 1000], [98, 995])
    for row, (d, a, b) in zip(ci, [(0.5, 100, 98), (1.3, 1000, 995)], strict=True):
        assert row == pytest.approx(_hand_ci(d, a, b), abs=1e-6)
    assert ci[0, 0] != round(ci[0, 0], 2)  # more digits than pingouin's default 2


def test_d_intervals_rejects_tiny_groups():
    with pytest.raises(ValueError, match="at least 2"):
        effects.d_intervals([0.5], [1], [10])


def test_cell_intervals_on_the_released_files():
    es, ds = data.load_pwb_effect_sizes(), data.load_pwb_dimension_scores()
    t = effects.cell_d_intervals(es, ds)
    assert len(t) == len(es) == 70
    r = t[(t["model"] == "DeepSeek V3.2") & (t["dimension"] == "cognitive_forcing")].iloc[0]
    assert r["d"] == 3.65 and (r["n_baseline"], r["n_prompted"]) == (100, 100)
    assert (r["ci_lower"], r["ci_upper"]) == pytest.approx(_hand_ci(3.65, 100, 100), abs=1e-6)
    assert (t["ci_lower"] < t["d"]).all() and (t["d"] < t["ci_upper"]).all()


def test_cell_intervals_name_a_missing_cell():
    es, ds = data.load_pwb_effect_sizes(), data.load_pwb_dimension_scores()
    with pytest.raises(ValueError, match="dimension_scores.csv"):
        effects.cell_d_intervals(es, ds[ds["Dimension"] != "cognitive_forcing"])


def test_d_pooled_intervals_use_the_models_run_counts():
    cells = agg.reconstruct_cells(data.load_pwb_dimension_scores(), data.load_pwb_effect_sizes())
    t = effects.d_pooled_intervals(agg.d_pooled_approx(cells), cells)
    n = cells.groupby(["model", "condition"])["n"].sum()
    r = t.set_index("model").loc["GLM 5.1"]
    assert (r["n_baseline"], r["n_prompted"]) == (n["GLM 5.1", "baseline"], n["GLM 5.1", "with_system_prompt"])
    assert (r["ci_lower"], r["ci_upper"]) == pytest.approx(
        _hand_ci(r["d_pooled"], r["n_baseline"], r["n_prompted"]), abs=1e-6
    )


@pytest.fixture(scope="module")
def runs():
    ins = inst.synthetic_instances(n_models=3, n_prompts=8, n_runs=3, seed=3, missing_rate=0.05)
    return inst.layer1_runs(inst.panel_scores(ins))


def test_paired_tests_against_scipy(runs):
    res = effects.paired_tests(runs)
    w = runs.pivot_table(index=["model", "dimension", "prompt_id", "run"], columns="condition", values="panel").dropna()
    pd_ = res["per_dimension"].set_index("dimension")
    for d, g in w.groupby(level="dimension"):
        ref = stats.wilcoxon(g["with_system_prompt"], g["baseline"])
        assert pd_.loc[d, "p"] == pytest.approx(ref.pvalue, rel=1e-12)
        assert pd_.loc[d, "p_bonferroni"] == pytest.approx(min(1.0, ref.pvalue * w.index.get_level_values(1).nunique()))
        assert pd_.loc[d, "n_pairs"] == len(g)
    pm = res["per_model"].set_index("model")
    for m, g in w.groupby(level="model"):
        ref = stats.ttest_rel(g["with_system_prompt"], g["baseline"])
        assert pm.loc[m, "t"] == pytest.approx(ref.statistic, rel=1e-12)
        assert pm.loc[m, "p"] == pytest.approx(ref.pvalue, rel=1e-9)
        lo, hi = ref.confidence_interval()
        assert (pm.loc[m, "ci_lower"], pm.loc[m, "ci_upper"]) == pytest.approx((lo, hi), abs=1e-12)
    ref = stats.ttest_rel(w["with_system_prompt"], w["baseline"])
    assert res["pooled"]["t"].iloc[0] == pytest.approx(ref.statistic, rel=1e-12)
    # the scipy-based implementation of the instance path gives the same tests
    old = inst.paired_tests(runs)
    assert np.allclose(old["per_dimension"]["p_bonferroni"], res["per_dimension"]["p_bonferroni"])
    assert np.allclose(old["per_model"]["d_z"], res["per_model"]["d_z"])


def test_unrounded_interval_rounds_to_pingouins(runs):
    import pingouin as pg

    g = runs.pivot_table(index=["model", "dimension", "prompt_id", "run"], columns="condition", values="panel").dropna()
    ours = effects.paired_tests(runs)["pooled"].iloc[0]
    theirs = pg.ttest(g["with_system_prompt"], g["baseline"], paired=True).iloc[0]["CI95"]
    assert np.round([ours["ci_lower"], ours["ci_upper"]], 2) == pytest.approx(theirs, abs=1e-12)


def test_layer_ttests_pair_by_prompt():
    rows = []
    rng = np.random.default_rng(0)
    for m in ("a", "b"):
        for k in range(16):
            b = rng.integers(0, 4)
            for cond, v in (("baseline", b), ("with_system_prompt", min(3, b + rng.integers(0, 2)))):
                rows.append({"model": m, "layer": 2, "prompt_id": f"s{k}", "condition": cond, "panel": float(v)})
    rows.append({"model": "a", "layer": 3, "prompt_id": "x", "condition": "baseline", "panel": 0.0})
    panel = pd.DataFrame(rows)
    t = effects.layer_ttests(panel, 2).set_index("model")
    assert list(t.index) == ["a", "b", "POOLED"] and t.loc["POOLED", "n_pairs"] == 32
    w = panel[panel["layer"] == 2].pivot_table(index=["model", "prompt_id"], columns="condition", values="panel")
    ref = stats.ttest_rel(w["with_system_prompt"], w["baseline"])
    assert t.loc["POOLED", "t"] == pytest.approx(ref.statistic, rel=1e-12)
    assert t.loc["POOLED", "p"] == pytest.approx(ref.pvalue, rel=1e-9)
    with pytest.raises(ValueError, match="both conditions"):
        effects.layer_ttests(panel, 3)


def test_dimension_pooled_d_brackets_the_exact_value_from_runs():
    """Runs with known answers -> the two released files -> cells -> the per-dimension pooled d, against
    Cohen's d computed on the concatenated runs (written out here)."""
    rng = np.random.default_rng(11)
    runs, ds, es = [], [], []
    for m in ("m1", "m2", "m3"):
        for j, d in enumerate(("cognitive_forcing", "complementarity")):
            cell = {}
            for c, w in (("baseline", [4, 3, 2, 1]), ("with_system_prompt", [1, 2, 3, 4 + j])):
                n = 95 + j if c == "baseline" else 100
                x = rng.choice(4, size=n, p=np.array(w, float) / sum(w))
                cell[c] = x
                runs.append(pd.DataFrame({"model": m, "condition": c, "dimension": d, "score": x}))
                ds.append({"Model": m, "Variant": c, "Dimension": d, "Mean": round((x.sum() + 6) / (n + 4), 2), "N": n})
            b, p = cell["baseline"], cell["with_system_prompt"]
            sp = np.sqrt(((b.size - 1) * b.var(ddof=1) + (p.size - 1) * p.var(ddof=1)) / (b.size + p.size - 2))
            es.append(
                {
                    "Model": m,
                    "Dimension": d,
                    "Cohens_d": round((p.mean() - b.mean()) / sp, 3),
                    "Baseline_mean": round(b.mean(), 2),
                    "Prompted_mean": round(p.mean(), 2),
                }
            )
    runs = pd.concat(runs, ignore_index=True)
    cells = agg.reconstruct_cells(pd.DataFrame(ds), pd.DataFrame(es))
    got = effects.dimension_d_pooled_intervals(cells).set_index("dimension")
    assert list(got.index) == ["cognitive_forcing", "complementarity"]
    for d, t in runs.groupby("dimension"):
        b = t.loc[t.condition == "baseline", "score"].to_numpy(float)
        p = t.loc[t.condition == "with_system_prompt", "score"].to_numpy(float)
        sp = np.sqrt(((b.size - 1) * b.var(ddof=1) + (p.size - 1) * p.var(ddof=1)) / (b.size + p.size - 2))
        exact = (p.mean() - b.mean()) / sp
        assert got.loc[d, "d_lo"] <= exact <= got.loc[d, "d_hi"]
        assert (got.loc[d, "n_baseline"], got.loc[d, "n_prompted"]) == (b.size, p.size)
        assert (got.loc[d, "ci_lower"], got.loc[d, "ci_upper"]) == pytest.approx(
            _hand_ci(got.loc[d, "d_pooled"], b.size, p.size), abs=1e-6
        )

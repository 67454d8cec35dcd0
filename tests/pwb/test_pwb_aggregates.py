"""compendium.pwb.aggregates and .weights: hand-made cases with known answers, aggregates built from
known run-level scores, and the released files (whose full-precision pooled means are independent of
the per-cell files the reconstruction uses)."""

import numpy as np
import pandas as pd
import pytest
from pwb_weights import V21

from compendium.pipeline.params import study_params
from compendium.pwb import aggregates as A, paper_printed as P, weights as W

# ---------------------------------------------------------------- PWI and weights


def test_constant_scores_give_pwi_100_s_over_3():
    for s in (0.0, 1.0, 2.5, 3.0):
        means = {d: s for d in V21}
        assert W.pro_worker_index(means, V21) == pytest.approx(100 * s / 3)


def test_pwi_hand_worked_and_na_rule():
    w = {"a": 0.15, "b": 0.05, "c": 0.0}
    assert W.pro_worker_index({"a": 3, "b": 0, "c": 1}, w) == pytest.approx(100 * 0.15 / 0.20)
    # b has no data: it leaves numerator and denominator (N/A rule); c has weight 0 and never counts
    assert W.pro_worker_index({"a": 1.5, "b": np.nan, "c": 3}, w) == pytest.approx(50.0)
    assert W.pro_worker_index({"a": 1.5, "c": 3}, w) == pytest.approx(50.0)
    mat = pd.DataFrame({"a": [3.0, 1.5], "b": [0.0, np.nan], "c": [1.0, 3.0]})
    assert W.pwi_matrix(mat, w).tolist() == pytest.approx([75.0, 50.0])


def test_pwi_errors():
    with pytest.raises(ValueError, match="no dimension with a positive weight has data"):
        W.pro_worker_index({"c": 2}, {"a": 0.1, "c": 0.0})
    with pytest.raises(ValueError, match="must be finite and >= 0"):
        W.pro_worker_index({"a": 2}, {"a": -0.1})
    with pytest.raises(ValueError, match=r"must lie in \[0, 3\]"):
        W.pro_worker_index({"a": 3.5}, {"a": 0.1})


def test_sensitivity_schemes_follow_methods():
    cfg = {
        "scoring": {
            "weights": {**V21, "adversarial_resilience": 0.0},
            "legacy_weights_v2_0": {"cognitive_forcing": 0.15, "adversarial_resilience": 0.08},
        }
    }
    s = W.sensitivity_schemes(cfg, cf_heavy_weight=0.30, restore_weight=0.10)  # the paper's free weights
    assert set(s) == {"default", "equal", "cf_heavy", "restore_ut_ar", "v2_0"}
    assert len(s["default"]) == 8 and sum(s["default"].values()) == pytest.approx(0.80)
    assert all(v == pytest.approx(1 / 8) for v in s["equal"].values())
    assert s["cf_heavy"]["cognitive_forcing"] == pytest.approx(0.30)
    assert s["cf_heavy"]["complementarity"] == pytest.approx(0.15 * 0.70 / 0.65)
    assert sum(s["cf_heavy"].values()) == pytest.approx(1.0)
    assert s["restore_ut_ar"]["uncertainty_transparency"] == 0.10 == s["restore_ut_ar"]["appropriate_reliance"]
    assert s["v2_0"]["adversarial_resilience"] == 0.08
    # the schemes one at a time (the robustness sweeps build them over grids of the free weights)
    assert W.fixed_schemes(cfg) == {k: s[k] for k in ("default", "equal", "v2_0")}
    assert W.cf_heavy_scheme(cfg, 0.30) == s["cf_heavy"] and W.restore_scheme(cfg, 0.10) == s["restore_ut_ar"]
    assert W.cf_heavy_scheme(cfg, 0.5)["cognitive_forcing"] == 0.5
    with pytest.raises(ValueError, match="cf_heavy_weight must lie in"):
        W.cf_heavy_scheme(cfg, 1.0)
    with pytest.raises(ValueError, match="not in config scoring block"):
        W.scheme_weights(cfg, "nope")


# ---------------------------------------------------------------- aggregates built from known runs


def _released_like(
    seed=0, models=("m1", "m2"), dims=("cognitive_forcing", "complementarity", "anti_sycophancy"), ns=(100, 97, 99)
):
    """Run-level scores with known answers, and the two released files the authors would write."""
    rng = np.random.default_rng(seed)
    runs, ds, es = [], [], []
    for m in models:
        for j, d in enumerate(dims):
            cell = {}
            for c, shift in (("baseline", 0.0), ("with_system_prompt", 1.0)):
                n = ns[j] if c == "baseline" else 100
                p = np.array([4, 3, 2, 1], float) if shift == 0 else np.array([1, 2, 3, 4], float)
                x = rng.choice(4, size=n, p=p / p.sum())
                cell[c] = x
                runs.append(pd.DataFrame({"model": m, "condition": c, "dimension": d, "score": x}))
                ds.append({"Model": m, "Variant": c, "Dimension": d, "Mean": round((x.sum() + 6) / (n + 4), 2), "N": n})
            b, p_ = cell["baseline"], cell["with_system_prompt"]
            sp = np.sqrt(((b.size - 1) * b.var(ddof=1) + (p_.size - 1) * p_.var(ddof=1)) / (b.size + p_.size - 2))
            es.append(
                {
                    "Model": m,
                    "Dimension": d,
                    "Cohens_d": round((p_.mean() - b.mean()) / sp, 3),
                    "Baseline_mean": round(b.mean(), 2),
                    "Prompted_mean": round(p_.mean(), 2),
                }
            )
    return pd.concat(runs, ignore_index=True), pd.DataFrame(ds), pd.DataFrame(es)


def test_reconstruct_cells_recovers_exact_sums():
    runs, ds, es = _released_like()
    cells = A.reconstruct_cells(ds, es)
    truth = runs.groupby(["model", "condition", "dimension"])["score"].agg(["sum", "size"]).reset_index()
    got = cells.merge(truth, on=["model", "condition", "dimension"])
    assert len(got) == len(truth) == 12
    assert (got["score_sum"] == got["sum"]).all() and (got["n"] == got["size"]).all()


def test_reconstruct_cells_hand_worked():
    ds = pd.DataFrame(
        {
            "Model": ["m", "m"],
            "Variant": ["baseline", "with_system_prompt"],
            "Dimension": ["d", "d"],
            "Mean": [1.79, 1.24],
            "N": [97, 100],
        }
    )
    es = pd.DataFrame(
        {"Model": ["m"], "Dimension": ["d"], "Cohens_d": [-0.5], "Baseline_mean": [1.80], "Prompted_mean": [1.23]}
    )
    cells = A.reconstruct_cells(ds, es).set_index("condition")
    assert cells.loc["baseline", "score_sum"] == 175  # 175/97 = 1.804; 174/97 = 1.794; 176/97 = 1.814
    assert cells.loc["with_system_prompt", "score_sum"] == 123


def test_reconstruct_cells_rejects_inconsistent_or_unidentifiable_files():
    ds = pd.DataFrame(
        {
            "Model": ["m", "m"],
            "Variant": ["baseline", "with_system_prompt"],
            "Dimension": ["d", "d"],
            "Mean": [2.50, 1.24],
            "N": [100, 100],
        }
    )
    es = pd.DataFrame(
        {"Model": ["m"], "Dimension": ["d"], "Cohens_d": [0.1], "Baseline_mean": [1.23], "Prompted_mean": [1.23]}
    )
    with pytest.raises(ValueError, match="do not come from the same scores"):
        A.reconstruct_cells(ds, es)
    ds2 = ds.assign(N=[300, 100], Mean=[1.01, 1.24])
    es2 = es.assign(Baseline_mean=[1.00])  # 299, 300, 301 / 300 all print as 1.00
    with pytest.raises(ValueError, match="not identifiable"):
        A.reconstruct_cells(ds2, es2)
    with pytest.raises(ValueError, match="missing column"):
        A.reconstruct_cells(ds.drop(columns="N"), es)
    with pytest.raises(ValueError, match="do not describe the same cells"):
        A.reconstruct_cells(ds, es.assign(Dimension="other"))


def test_d_pooled_approx_brackets_the_exact_value():
    runs, ds, es = _released_like(seed=3)
    cells = A.reconstruct_cells(ds, es)
    approx = A.d_pooled_approx(cells).set_index("model")
    for m, t in runs.groupby("model"):
        b = t.loc[t.condition == "baseline", "score"].to_numpy(float)
        p = t.loc[t.condition == "with_system_prompt", "score"].to_numpy(float)
        sp = np.sqrt(((b.size - 1) * b.var(ddof=1) + (p.size - 1) * p.var(ddof=1)) / (b.size + p.size - 2))
        exact = (p.mean() - b.mean()) / sp
        assert approx.loc[m, "d_lo"] <= exact <= approx.loc[m, "d_hi"]
        assert approx.loc[m, "d_pooled"] == pytest.approx(exact, abs=2e-3)
        assert approx.loc[m, "n_baseline"] == b.size and approx.loc[m, "n_prompted"] == p.size


def test_d_pooled_approx_released_zero_d_means_constant_cells():
    """A released per-dimension d of 0 with different means is the authors' convention for two constant
    cells (both SDs 0): zero within-cell spread, so d_pooled is large -- not 0 (unbounded spread)."""
    b = {"d1": np.array([1.0] * 20), "d2": np.array([0, 1, 2, 1, 0, 1, 2, 3, 1, 1] * 2, float)}
    p = {"d1": np.array([2.0] * 20), "d2": np.array([1, 2, 3, 2, 1, 2, 3, 3, 2, 2] * 2, float)}
    rows = []
    for d in ("d1", "d2"):
        sp = np.sqrt(((19) * b[d].var(ddof=1) + 19 * p[d].var(ddof=1)) / 38)
        cd = 0.0 if sp == 0 else round((p[d].mean() - b[d].mean()) / sp, 3)  # compute_effect_size's rule
        for c, x in (("baseline", b[d]), ("with_system_prompt", p[d])):
            rows.append(
                {
                    "model": "m",
                    "condition": c,
                    "dimension": d,
                    "n": 20,
                    "score_sum": int(x.sum()),
                    "mean": x.mean(),
                    "cohens_d": cd,
                }
            )
    cells = pd.DataFrame(rows)
    assert cells.loc[cells.dimension == "d1", "cohens_d"].eq(0).all()
    bb, pp = np.concatenate([b["d1"], b["d2"]]), np.concatenate([p["d1"], p["d2"]])
    sp = np.sqrt((39 * bb.var(ddof=1) + 39 * pp.var(ddof=1)) / 78)
    exact = (pp.mean() - bb.mean()) / sp  # independent computation on the runs
    got = A.d_pooled_approx(cells).iloc[0]
    assert exact > 1.0
    assert got["d_pooled"] == pytest.approx(exact, abs=2e-3)
    assert got["d_lo"] <= exact <= got["d_hi"]
    # equal means and d = 0: the spread is unidentifiable -> NaN, never a silent 0
    cells2 = cells.copy()
    cells2.loc[(cells2.dimension == "d1") & (cells2.condition == "with_system_prompt"), ["score_sum", "mean"]] = [
        20,
        1.0,
    ]
    assert np.isnan(A.d_pooled_approx(cells2).iloc[0]["d_pooled"])


def test_dimension_diagnostics_and_layer1_from_known_runs():
    runs, ds, es = _released_like(seed=5)
    cells = A.reconstruct_cells(ds, es)
    diag = A.dimension_diagnostics(cells).set_index("dimension")
    pooled = runs.groupby(["dimension", "condition"])["score"].mean().unstack()
    assert diag["baseline"].to_numpy() == pytest.approx(pooled.loc[diag.index, "baseline"].to_numpy(), abs=1e-12)
    assert diag["delta"].to_numpy() == pytest.approx(
        (pooled["with_system_prompt"] - pooled["baseline"]).loc[diag.index].to_numpy(), abs=1e-12
    )
    assert (diag["models_improving"] == 2).all()
    l1 = A.layer1_summary(cells).set_index("condition")
    assert l1.loc["baseline", "mean"] == pytest.approx(runs.loc[runs.condition == "baseline", "score"].mean())
    assert l1.loc["baseline", "n"] == (runs.condition == "baseline").sum()


def test_weight_sensitivity_hand_worked():
    # three models whose prompted ranking reverses between two one-dimension schemes
    rows = []
    for m, (a, b) in {"x": (3.0, 0.0), "y": (2.0, 1.0), "z": (1.0, 2.0)}.items():
        for c, off in (("baseline", 0.0), ("with_system_prompt", 1.0)):
            for d, v in (("a", max(a - 1 + off, 0)), ("b", max(b - 1 + off, 0))):
                rows.append({"model": m, "condition": c, "dimension": d, "mean": v})
    cells = pd.DataFrame(rows)
    summ, pwis = A.weight_sensitivity(cells, {"default": {"a": 1.0}, "flip": {"b": 1.0}, "same": {"a": 2.0}})
    s = summ.set_index("scheme")
    assert s.loc["default", "kendall_tau"] == pytest.approx(1.0) and s.loc["default", "max_dev"] == 0
    assert s.loc["flip", "kendall_tau"] == pytest.approx(-1.0)
    assert s.loc["flip", "top3_stable"]  # with three models the top-3 set is every model
    assert s.loc["same", "max_dev"] == pytest.approx(0.0)
    assert len(pwis) == 3 * 6
    top1 = A.weight_sensitivity(cells, {"default": {"a": 1.0}, "flip": {"b": 1.0}}, top_k=1)[0].set_index("scheme")
    assert top1.loc["default", "top3_stable"] and not top1.loc["flip", "top3_stable"]
    with pytest.raises(ValueError, match="must include the default"):
        A.weight_sensitivity(cells, {"flip": {"b": 1.0}})


# ---------------------------------------------------------------- the released files


@pytest.fixture(scope="module")
def released():
    import compendium.data as d

    cells = A.reconstruct_cells(d.load_pwb_dimension_scores(), d.load_pwb_effect_sizes())
    return {
        "cells": cells,
        "config": d.load_pwb_config(),
        "diag": d.load_pwb_dimension_diagnostics(),
        "layers": d.load_pwb_layer_summary(),
        "pwi": d.load_pwb_pwi_scores(),
    }


def test_reconstruction_matches_the_released_full_precision_means(released):
    chk = A.reconstruction_checks(released["cells"], released["diag"], released["layers"])
    assert len(chk) == 24
    assert chk["abs_diff"].max() < 1e-12


def test_point_pwi_within_0_06_of_released_bootstrap_means(released):
    t2 = A.table2(released["cells"], W.scheme_weights(released["config"])).set_index("model")
    rel = released["pwi"].pivot(index="Model", columns="Variant", values="PWI")
    assert np.abs(t2["baseline"] - rel.loc[t2.index, "baseline"]).max() < 0.06
    assert np.abs(t2["prompted"] - rel.loc[t2.index, "with_system_prompt"]).max() < 0.06
    assert A.mean_delta(t2) == pytest.approx(34.714, abs=1e-3)


def test_sensitivity_and_leaderboard_match_what_the_authors_printed(released):
    paper = study_params("pwb")  # the paper's free weights (0.30, 0.10)
    schemes = W.sensitivity_schemes(released["config"], paper.cf_heavy_weight, paper.restore_weight)
    summ, _ = A.weight_sensitivity(released["cells"], schemes)
    got = summ.set_index("scheme")
    ref = P.SENSITIVITY_TABLE.set_index("scheme")
    assert got["kendall_tau"].round(3).tolist() == ref.loc[got.index, "kendall_tau"].tolist()
    assert got["max_dev"].round(1).tolist() == ref.loc[got.index, "max_dev"].tolist()
    assert got["min_delta"].round(1).tolist() == ref.loc[got.index, "min_delta"].tolist()
    assert got["top3_stable"].all()
    lb = A.leaderboard(released["cells"], W.scheme_weights(released["config"], "legacy_weights_v2_0")).set_index(
        "model"
    )
    ref = P.LEADERBOARD_V2_0.set_index("model")
    for c in ("baseline", "prompted", "delta"):
        assert lb[c].round(1).tolist() == ref.loc[lb.index, c].tolist()


def test_stale_table_comparison_shape(released):
    st = A.stale_table_comparison(released["cells"], P.stale_appendix_table())
    assert len(st) == 70
    row = st.set_index(["model", "dimension"]).loc[("GLM 5.1", "cognitive_forcing")]
    assert row["printed"] == 2.48 and row["data"] == pytest.approx(1.93) and row["diff"] == pytest.approx(0.55)
    with pytest.raises(ValueError, match="absent from the data"):
        A.stale_table_comparison(released["cells"], P.stale_appendix_table().rename(index={"GLM 5.1": "GLM 9"}))


def test_incomplete_run_agreement_needed_hand_worked():
    cells = pd.DataFrame(
        {"dimension": ["a", "a"], "n": [60, 40], "model": ["m", "m"], "condition": ["baseline", "with_system_prompt"]}
    )
    irr = pd.DataFrame({"Dimension": ["a"], "N": [90], "exact": [10.0]})  # 9 of 90 triples agree
    out = A.incomplete_run_agreement_needed(cells, irr, {"a": 14.0}).iloc[0]
    # 14 % of 100 runs = 14 agreeing; 9 from triples, so 5 of the 10 incomplete runs: 0.5
    assert out["incomplete_runs"] == 10 and out["needed_share"] == pytest.approx(0.5)
    assert out["needed_share_lo"] == pytest.approx(0.495) and out["needed_share_hi"] == pytest.approx(0.505)
    with pytest.raises(ValueError, match="missing from the cells"):
        A.incomplete_run_agreement_needed(cells, irr, {"b": 1.0})


def test_typed_v21_weights_are_the_released_configs():
    from compendium import data

    released = W.scheme_weights(data.load_pwb_config())
    assert {d: w for d, w in released.items() if d in V21} == V21
    assert all(w == 0.0 for d, w in released.items() if d not in V21)

"""The authors' exact methods on per-instance data: the bootstrap random streams (PWI, Table 3 CIs),
r(CF, CO) by the paper's concatenate-and-cut rule beside the pairing by prompt, and judge anomalies
counted through the stored score. References are plain loops written from METHODS.md."""

import json

import numpy as np
import pandas as pd
import pytest
from pwb_weights import V21
from scipy import stats

from compendium.pwb import DIMENSIONS, bootstrap as B, instances as I

# ---------------------------------------------------------------- the 32-bit word engine


def test_bounded_indices_equal_generator_integers_including_rejections():
    # huge bounds make Lemire rejections frequent; bound 1 consumes no word
    bounds = [3_000_000_001, 1, 2_500_000_000, 7, 4_000_000_000, 100]
    rng = np.random.default_rng(3)
    ref = np.array([rng.integers(0, n, size=1)[0] for _ in range(3000) for n in bounds])
    got = np.concatenate(
        [blk for _, blk in B.bounded_indices(B.Uint32Stream(np.random.default_rng(3)), bounds, 3000, chunk_reps=257)]
    ).ravel()
    assert np.array_equal(ref, got)


@pytest.mark.parametrize("n, reps", [(9714, 600), (60_001, 40)])
def test_value_lookup_path_equals_choice_with_rejected_words(n, reps):
    # n = 9714 has the largest rejection threshold below 10,000 (9,622 of 2**32): about 13 rejected words
    # in 600 draws, all on the lookup path; n = 60,001 takes the element-wise path (sums too large for it)
    x = np.random.default_rng(0).integers(0, 4, n).astype(float)
    rng = np.random.default_rng(0)
    ref = np.array([rng.choice(x, size=x.size).mean() for _ in range(reps)])
    got = B._resampled_means([x], reps, np.random.default_rng(0), chunk_reps=7)[:, 0]
    assert np.array_equal(ref, got)


# ---------------------------------------------------------------- PWI bootstrap


def test_pwi_bootstrap_exact_equals_reference_on_edge_cases():
    d = {
        "ethical_surfacing": [1, 2, 3, 0, 1],
        "draft_annotation": [2.0],  # n = 1: no word consumed
        "uncertainty_transparency": list(np.random.default_rng(1).integers(0, 4, 97).astype(float)),
        "cognitive_forcing": [3, 3, 1],
    }
    for scores in (d, {**d, "complementarity": [0.5, 1.5, 2.0]}):  # non-integer fallback
        ref = B.reference_pwi_bootstrap(scores, V21, n_boot=3000, seed=42)
        got = B.pwi_bootstrap_exact(scores, V21, n_boot=3000, seed=42)
        assert np.array_equal(ref["samples"], got["samples"])
        for k in ("pwi_mean", "ci_lower", "ci_upper", "pwi_std"):
            assert ref[k] == got[k]


def _full_size_fixture(seed=0, missing=0.01):
    """7 models x 2 conditions x 10 dimensions x 20 prompts x 5 runs; the file order of dimensions
    differs from DIMENSIONS (the stream must follow the file)."""
    rng = np.random.default_rng(seed)
    rows = []
    file_dims = list(DIMENSIONS[::-1])
    for m in range(7):
        for c, shift in (("baseline", 0.0), ("with_system_prompt", 0.8)):
            for dpos, d in enumerate(file_dims):
                level = rng.uniform(0, 2.2) + shift
                for p in range(20):
                    for r in range(5):
                        if rng.random() < missing:
                            continue
                        s = float(np.clip(np.round(level + rng.normal(0, 0.8)), 0, 3))
                        rows.append(
                            {
                                "model": f"model_{m}",
                                "condition": c,
                                "layer": 1,
                                "dimension": d,
                                "prompt_id": f"{d[:3]}_{19 - p:02d}",
                                "run": r,
                                "panel": s,
                                "dim_position": dpos,
                                "prompt_position": p,
                                "run_position": r,
                            }
                        )
    return pd.DataFrame(rows).sample(frac=1, random_state=1)  # row order must not matter


def test_pwi_bootstrap_reproduces_the_methods_stream_on_a_full_size_fixture():
    runs = _full_size_fixture()
    got = I.pwi_bootstrap(runs, V21, n_boot=1000, seed=42).set_index(["model", "condition"])
    assert len(got) == 14
    for (m, c), t in runs.groupby(["model", "condition"]):
        t = t.sort_values(["dim_position", "prompt_position", "run_position"])
        lists = {g["dimension"].iloc[0]: g["panel"].tolist() for _, g in t.groupby("dim_position", sort=True)}
        ref = B.reference_pwi_bootstrap(lists, V21, n_boot=1000, seed=42)
        assert got.loc[(m, c), "pwi"] == ref["pwi_mean"]
        assert got.loc[(m, c), "ci_lower"] == ref["ci_lower"] and got.loc[(m, c), "ci_upper"] == ref["ci_upper"]
        assert got.loc[(m, c), "mc_se"] == pytest.approx(ref["pwi_std"] / np.sqrt(1000))
    # (the stream does not depend on the number of draws; benchmarks/pwb_bootstrap.py checks all 14 PWIs
    # at the paper's 10,000 draws against the same reference)


def test_a_different_dimension_order_changes_the_stream():
    lists = {"cognitive_forcing": [0, 1, 2, 3] * 5, "complementarity": [3, 3, 0, 1, 2] * 4}
    a = B.pwi_bootstrap_exact(lists, V21, n_boot=500, seed=42)["samples"]
    b = B.pwi_bootstrap_exact(dict(reversed(list(lists.items()))), V21, n_boot=500, seed=42)["samples"]
    assert not np.array_equal(a, b)


# ---------------------------------------------------------------- Table 3 CIs


def test_table3_cis_follow_the_authors_stream():
    runs = _full_size_fixture(seed=4)
    got = I.table3_bootstrap(runs, n_boot=300, seed=0).set_index("dimension")
    pools = []
    for d in DIMENSIONS:  # authors: DIMENSIONS order, models sorted
        b_all, p_all = [], []
        for m in sorted(runs["model"].unique()):
            for c, acc in (("baseline", b_all), ("with_system_prompt", p_all)):
                acc += (
                    runs[(runs.model == m) & (runs.condition == c) & (runs.dimension == d)]
                    .sort_values(["prompt_position", "run_position"])["panel"]
                    .tolist()
                )
        pools.append((p_all, b_all))
        assert got.loc[d, "baseline"] == pytest.approx(np.mean(b_all))
    ref = B.reference_delta_ci(pools, n_boot=300, seed=0)
    assert [got.loc[d, "ci_lower"] for d in DIMENSIONS] == [r["ci_lower"] for r in ref]
    assert [got.loc[d, "ci_upper"] for d in DIMENSIONS] == [r["ci_upper"] for r in ref]


# ---------------------------------------------------------------- r(CF, CO): paper's rule and the variant


def _corr_runs(empty_prompt: bool):
    """The paper's shape for CF and CO: 7 models x 2 conditions x 20 prompts x 5 runs; the condition
    moves both dimensions, a shared prompt effect ties them prompt by prompt. With ``empty_prompt`` the
    4th CF prompt of model D's baseline file has no valid run."""
    rng = np.random.default_rng(7)
    rows = []
    for m in "ABCDEFG":
        for c, shift in (("baseline", 0.3), ("with_system_prompt", 2.0)):
            level = shift + rng.normal(0, 0.3, 20)
            for d in ("cognitive_forcing", "complementarity"):
                for p in range(20):
                    if empty_prompt and (m, c, d, p) == ("D", "baseline", "cognitive_forcing", 3):
                        continue
                    for r in range(5):
                        s = float(np.clip(np.round(level[p] + rng.normal(0, 0.9)), 0, 3))
                        rows.append(
                            {
                                "model": m,
                                "condition": c,
                                "layer": 1,
                                "dimension": d,
                                "prompt_id": f"{d[:2]}_{p:02d}",
                                "run": r,
                                "panel": s,
                                "prompt_position": p,
                                "run_position": r,
                            }
                        )
    return pd.DataFrame(rows)


def test_cf_co_authors_rule_concatenates_and_cuts_and_differs_from_pairing():
    runs = _corr_runs(empty_prompt=True)
    mat, min_len = I.prompt_level_correlation_authors(runs)
    # independent construction of the paper's lists: file after file, prompt means in prompt order
    lists = {}
    for m in "ABCDEFG":
        for c in ("baseline", "with_system_prompt"):
            for d in ("cognitive_forcing", "complementarity"):
                t = runs[(runs.model == m) & (runs.condition == c) & (runs.dimension == d)]
                lists.setdefault(d, []).extend(t.groupby("prompt_position")["panel"].mean().tolist())
    assert min_len == 279 == len(lists["cognitive_forcing"])
    r_ref = stats.pearsonr(lists["cognitive_forcing"][:279], lists["complementarity"][:279]).statistic
    r_paper = mat.loc["cognitive_forcing", "complementarity"]
    assert r_paper == pytest.approx(r_ref, abs=1e-12)
    paired, n = I.prompt_level_correlation(runs)
    r_paired = paired.loc["cognitive_forcing", "complementarity"]
    assert n == 279
    assert r_paired == pytest.approx(
        stats.pearsonr(  # pairing by (file, prompt)
            *[
                runs[runs.dimension == d]
                .groupby(["model", "condition", "prompt_position"])["panel"]
                .mean()
                .drop(("D", "baseline", 3), errors="ignore")
                for d in ("cognitive_forcing", "complementarity")
            ]
        ).statistic
    )
    # one empty prompt: every later pair shifts; here the rules give 0.750 and 0.833
    assert 0.05 < r_paired - r_paper < 0.15
    # without an empty prompt the two rules agree
    full = _corr_runs(empty_prompt=False)
    a, _ = I.prompt_level_correlation_authors(full)
    p_, _ = I.prompt_level_correlation(full)
    assert a.loc["cognitive_forcing", "complementarity"] == pytest.approx(
        p_.loc["cognitive_forcing", "complementarity"]
    )


# ---------------------------------------------------------------- judge anomalies, stored score


def _anomalous_file(variant):
    def run(k, stored, judges):
        return {"run": k, "score": stored, "individual_scores": judges}

    return {
        "model_name": "GLM 5.1",
        "variant": variant,
        "timestamp": "20260301_000000",
        "layer1": {
            "cognitive_forcing": [
                {
                    "prompt_id": "cf_01",
                    "runs": [
                        run(0, 3, [4, 3, 3]),  # judge value above 3
                        run(1, 2, [2.5, 2, 3]),  # non-integer judge value
                        run(2, -1, [-1, -1, -1]),  # every judge failed
                        run(3, 1, [2, 2, 2]),
                    ],
                },  # stored score disagrees
                {"prompt_id": "cf_02", "runs": [run(0, 0, [0, 0, 1]), run(1, 1.5, [1, 2])]},
            ]
        },
        "layer2": [],
        "layer3": [{"prompt_id": "ar_01", "score": 2, "individual_scores": [2, 2, 3]}],
    }


def test_anomalous_judge_values_count_through_the_stored_score(tmp_path):
    for v in ("baseline", "with_system_prompt"):
        (tmp_path / f"{v}.json").write_text(json.dumps(_anomalous_file(v)))
    inst = I.load_hf_results(tmp_path)  # no crash on 4 or 2.5
    runs = I.layer1_runs(I.panel_scores(inst))
    # the authors' extract_l1_scores: every run with stored score >= 0, in file order
    authors = [
        float(r["score"])
        for p in _anomalous_file("baseline")["layer1"]["cognitive_forcing"]
        for r in p["runs"]
        if r["score"] >= 0
    ]
    base = runs[runs.condition == "baseline"]
    assert base["panel"].tolist() == authors == [3.0, 2.0, 1.0, 0.0, 1.5]
    an = I.judge_anomalies(inst)
    kinds = an[an.condition == "baseline"].groupby(["prompt_id", "run"])["kind"].agg(set)
    assert kinds[("cf_01", 0)] == {"above 3"}
    assert kinds[("cf_01", 1)] == {"not an integer"}
    assert kinds[("cf_01", 3)] == {"stored score differs from int(median) of the valid judge values"}
    assert ("cf_01", 2) not in kinds.index  # -1 is the runner's failure code, not an anomaly
    assert "stored score not an integer" in kinds[("cf_02", 1)]
    # the IRR follows the authors: a run with a value above 3 is no complete triple, 2.5 counts as 2
    irr = I.irr_complete_triples(inst).set_index("dimension")
    assert irr.loc["cognitive_forcing", "n"] == 2 * 3  # runs 1 and 3 of cf_01, run 0 of cf_02, x 2 files


def test_layer2_and_3_paired_effects_by_hand():
    rows = []
    sc = {"baseline": [0.4, 1.0, 0.8, 1.2], "with_system_prompt": [1.6, 2.0, 1.9, 2.6]}
    for c, xs in sc.items():
        for i, x in enumerate(xs):
            rows.append(
                {
                    "model": "GLM 5.1",
                    "condition": c,
                    "layer": 2,
                    "dimension": "scenario",
                    "prompt_id": f"s{i}",
                    "run": 0,
                    "panel": x,
                    "behavior_pass_rate": 0.5 + 0.1 * i if c == "with_system_prompt" else 0.2,
                }
            )
    eff = I.layer_paired_effects(pd.DataFrame(rows), 2).set_index("model")
    diff = np.array(sc["with_system_prompt"]) - np.array(sc["baseline"])
    assert eff.loc["GLM 5.1", "d"] == pytest.approx(diff.mean() / diff.std(ddof=1))
    assert eff.loc["GLM 5.1", "delta"] == pytest.approx(diff.mean())
    assert eff.loc["GLM 5.1", "behavior_pct"] == pytest.approx(65.0)
    assert eff.loc["POOLED", "n_pairs"] == 4
    assert eff.loc["POOLED", "t"] == pytest.approx(stats.ttest_rel(sc["with_system_prompt"], sc["baseline"]).statistic)

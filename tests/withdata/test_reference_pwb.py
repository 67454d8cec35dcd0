"""Independent references for the per-instance PWB numbers, written from published/METHODS.md (PWB).

This module does not import ``compendium``: it reads the synthetic snapshot's results JSON directly (the
files the ``pwb`` stage of the with-data clone read), recomputes each quantity with numpy / scipy from the
METHODS definitions, and compares with the stage's ``results/pwb/values.json`` on the same files:
PWI (point and the authors' bootstrap stream for one model), ΔPWI, d_pooled, the Table 3 means and
bootstrap CIs, the paired tests with Bonferroni, the Layer 2/3 means and paired d, the IRR table,
r(CF, CO) and the behaviour percentages. (The PWI bootstrap of all 14 cells is referenced in
tests/pwb/test_pwb_bootstrap.py.)
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import yaml
from scipy import stats

pytestmark = pytest.mark.withdata

# the paper's order of the Layer-1 dimensions (run_analysis.py DIMENSIONS) and the register's model keys
DIMS = [
    "cognitive_forcing",
    "contrastive_explanation",
    "skill_preservation",
    "draft_annotation",
    "uncertainty_transparency",
    "complementarity",
    "anti_sycophancy",
    "metacognitive_calibration",
    "appropriate_reliance",
    "ethical_surfacing",
]
KEYS = {
    "GLM 5.1": "glm51",
    "Gemma 4 31B": "gemma4",
    "DeepSeek V3.2": "deepseek",
    "GPT-oss 120B": "gptoss",
    "Nemotron-Cascade 30B": "nemotron",
    "Devstral-2 123B": "devstral",
    "Qwen3.5 27B": "qwen35",
}
CONDS = ["baseline", "with_system_prompt"]
EXACT = 1e-9


@pytest.fixture(scope="module")
def snap(clone):
    d = clone["dir"]
    files = {}
    for f in sorted((d / "data" / "pwb" / "results").glob("*.json")):
        data = json.loads(f.read_text(encoding="utf-8"))
        files[(data["model_name"], data["variant"])] = data  # one file per model x condition in the snapshot
    values = json.loads((d / "results" / "pwb" / "values.json").read_text())
    weights = yaml.safe_load((d / "data" / "pwb" / "config.yaml").read_text())["scoring"]["weights"]
    return {"files": files, "v": values, "w": {k: float(x) for k, x in weights.items()}}


def l1_scores(data) -> dict[str, list[float]]:
    """Valid stored run scores (score >= 0) per dimension, in the file's order (METHODS: the analysis reads
    the stored score)."""
    out = {}
    for dim, prompts in data["layer1"].items():
        s = [float(r["score"]) for p in prompts for r in p["runs"] if r.get("score", -1) >= 0]
        if s:
            out[dim] = s
    return out


def pwi(means: dict[str, float], w: dict[str, float]) -> float:
    tot = sum(w.get(d, 0.0) for d in means)
    return 100 * sum(w.get(d, 0.0) * m / 3 for d, m in means.items()) / tot


def cohen_d(b, p) -> float:
    b, p = np.asarray(b), np.asarray(p)
    sp = np.sqrt(((b.size - 1) * b.var(ddof=1) + (p.size - 1) * p.var(ddof=1)) / (b.size + p.size - 2))
    return float((p.mean() - b.mean()) / sp)


def test_point_pwi_and_delta_pwi(snap):
    v = snap["v"]
    for model, k in KEYS.items():
        pw = {}
        for c, lab in zip(CONDS, ("baseline", "prompted"), strict=True):
            means = {d: float(np.mean(s)) for d, s in l1_scores(snap["files"][(model, c)]).items()}
            pw[lab] = pwi(means, snap["w"])
            assert v[f"pwb.inst.pwi.{k}.{lab}.pwi_point"] == pytest.approx(pw[lab], abs=EXACT)
        # ΔPWI = printed prompted - printed baseline (the printed PWI is the bootstrap mean, 1 decimal)
        d = round(v[f"pwb.pwi.{k}.prompted"], 1) - round(v[f"pwb.pwi.{k}.baseline"], 1)
        assert v[f"pwb.table2.{k}.delta_pwi"] == pytest.approx(d, abs=1e-9)


def test_pwi_bootstrap_stream_for_one_model(snap):
    """10,000 draws, a fresh default_rng(42) per model x condition, each draw resampling every dimension's
    run scores in the file's dimension order; mean of the draws, 2.5/97.5 percentiles."""
    model, k = "GLM 5.1", "glm51"
    for c, lab in zip(CONDS, ("baseline", "prompted"), strict=True):
        scores = {d: np.asarray(s) for d, s in l1_scores(snap["files"][(model, c)]).items()}
        rng = np.random.default_rng(42)
        draws = np.empty(10_000)
        for i in range(10_000):
            means = {d: rng.choice(s, size=len(s), replace=True).mean() for d, s in scores.items()}
            draws[i] = pwi(means, snap["w"])
        v = snap["v"]
        assert v[f"pwb.pwi.{k}.{lab}"] == pytest.approx(draws.mean(), abs=EXACT)
        lo, hi = np.percentile(draws, [2.5, 97.5])
        assert v[f"pwb.inst.pwi.{k}.{lab}.ci_lower"] == pytest.approx(lo, abs=EXACT)
        assert v[f"pwb.inst.pwi.{k}.{lab}.ci_upper"] == pytest.approx(hi, abs=EXACT)


def test_d_pooled_on_the_concatenated_layer1_runs(snap):
    for model, k in KEYS.items():
        b = [x for s in l1_scores(snap["files"][(model, "baseline")]).values() for x in s]
        p = [x for s in l1_scores(snap["files"][(model, "with_system_prompt")]).values() for x in s]
        assert snap["v"][f"pwb.d_pooled.{k}"] == pytest.approx(cohen_d(b, p), abs=EXACT)


def test_table3_means_and_bootstrap_cis(snap):
    """Pool all models' runs per condition (models with both conditions scored), Δ of the means, 2,000-draw
    bootstrap with one default_rng(0) over the dimensions in the paper's order; models improving."""
    rng = np.random.default_rng(0)
    v = snap["v"]
    for dim in DIMS:
        b_all, p_all, improving = [], [], 0
        for model in sorted(KEYS):
            b = l1_scores(snap["files"][(model, "baseline")]).get(dim, [])
            p = l1_scores(snap["files"][(model, "with_system_prompt")]).get(dim, [])
            if not b or not p:
                continue
            b_all += b
            p_all += p
            improving += int(np.mean(p) > np.mean(b))
        b_arr, p_arr = np.asarray(b_all), np.asarray(p_all)
        boots = [rng.choice(p_arr, p_arr.size).mean() - rng.choice(b_arr, b_arr.size).mean() for _ in range(2000)]
        lo, hi = np.percentile(boots, [2.5, 97.5])
        # the register keeps the cells Table 3 prints: base and prompted for some rows, delta for others
        for cell, ref in (("base", b_arr.mean()), ("prompted", p_arr.mean()), ("delta", p_arr.mean() - b_arr.mean())):
            if f"pwb.table3.{dim}.{cell}" in v:
                assert v[f"pwb.table3.{dim}.{cell}"] == pytest.approx(ref, abs=EXACT), (dim, cell)
        assert v[f"pwb.table3.{dim}.ci_low"] == pytest.approx(lo, abs=EXACT)
        assert v[f"pwb.table3.{dim}.ci_high"] == pytest.approx(hi, abs=EXACT)
        assert v[f"pwb.table3.{dim}.models"] == improving


def _pairs(snap):
    """(model, dim, prompt_id, run) -> (baseline, prompted) stored scores, both valid."""
    runs = {}
    for (model, c), data in snap["files"].items():
        for dim, prompts in data["layer1"].items():
            for p in prompts:
                for r in p["runs"]:
                    if r.get("score", -1) >= 0:
                        runs[(model, dim, p["prompt_id"], r["run"], c)] = float(r["score"])
    keys = sorted({k[:4] for k in runs})
    return {
        k: (runs[(*k, "baseline")], runs[(*k, "with_system_prompt")])
        for k in keys
        if (*k, "baseline") in runs and (*k, "with_system_prompt") in runs
    }


def test_paired_tests_with_bonferroni(snap):
    pairs = _pairs(snap)
    v = snap["v"]
    b = np.array([x[0] for x in pairs.values()])
    p = np.array([x[1] for x in pairs.values()])
    diff = p - b
    t = stats.ttest_rel(p, b)
    assert v["pwb.inst.paired.n_pairs"] == len(pairs)
    assert v["pwb.sig.l1_t"] == pytest.approx(t.statistic, rel=1e-9)
    assert v["pwb.sig.l1_pooled_d"] == pytest.approx(diff.mean() / diff.std(ddof=1), rel=1e-9)
    assert v["pwb.sig.l1_raw_shift"] == pytest.approx(diff.mean(), rel=1e-9)
    per_model = []
    for model in KEYS:
        sel = [x for k, x in pairs.items() if k[0] == model]
        per_model.append(stats.ttest_rel([x[1] for x in sel], [x[0] for x in sel]).pvalue)
    assert v["pwb.sig.l1_models_p_bound"] == pytest.approx(max(per_model), rel=1e-9)
    bonf = {}
    for dim in DIMS:
        sel = [x for k, x in pairs.items() if k[1] == dim]
        res = stats.wilcoxon([x[1] for x in sel], [x[0] for x in sel])
        bonf[dim] = (res.pvalue, min(1.0, res.pvalue * len(DIMS)))
    assert v["pwb.sig.l1_dims_p_bound"] == pytest.approx(max(q for _, q in bonf.values()), rel=1e-9)
    assert v["pwb.sig.l1_cf_co_p"] == pytest.approx(
        max(bonf["cognitive_forcing"][0], bonf["complementarity"][0]), rel=1e-9
    )


def _layer(snap, model, c, layer):
    data = snap["files"][(model, c)]
    if layer == 2:
        return {s["scenario_id"]: s["average_score"] for s in data["layer2"] if s.get("average_score") is not None}
    return {s["prompt_id"]: float(s["score"]) for s in data["layer3"] if s.get("score", -1) >= 0}


@pytest.mark.parametrize("layer, table", [(2, "table5"), (3, "table6")])
def test_layer2_and_layer3_means_paired_d_and_tests(snap, layer, table):
    v = snap["v"]
    all_b, all_p, all_diff = [], [], []
    for model, k in KEYS.items():
        b, p = _layer(snap, model, "baseline", layer), _layer(snap, model, "with_system_prompt", layer)
        diff = np.array([p[u] - b[u] for u in sorted(set(b) & set(p))])
        all_b += list(b.values())
        all_p += list(p.values())
        all_diff += list(diff)
        assert v[f"pwb.{table}.{k}.base"] == pytest.approx(np.mean(list(b.values())), abs=EXACT)
        assert v[f"pwb.{table}.{k}.prompted"] == pytest.approx(np.mean(list(p.values())), abs=EXACT)
        assert v[f"pwb.{table}.{k}.delta"] == pytest.approx(
            np.mean(list(p.values())) - np.mean(list(b.values())), abs=EXACT
        )
        assert v[f"pwb.{table}.{k}.d"] == pytest.approx(diff.mean() / diff.std(ddof=1), abs=1e-9)
        if layer == 2:  # behaviour checks passed, % of the prompted condition's scenarios
            rates = [s["behavior_pass_rate"] for s in snap["files"][(model, "with_system_prompt")]["layer2"]]
            assert v[f"pwb.{table}.{k}.behavior_pct"] == pytest.approx(100 * np.mean(rates), abs=EXACT)
    assert v[f"pwb.{table}.mean_pooled.base"] == pytest.approx(np.mean(all_b), abs=EXACT)
    assert v[f"pwb.{table}.mean_pooled.prompted"] == pytest.approx(np.mean(all_p), abs=EXACT)
    t = stats.ttest_1samp(all_diff, 0.0)
    assert v[f"pwb.sig.l{layer}_t"] == pytest.approx(t.statistic, rel=1e-9)
    assert v[f"pwb.sig.l{layer}_p"] == pytest.approx(t.pvalue, rel=1e-6)


def _qwk(a, b, k=4):
    o = np.zeros((k, k))
    for x, y in zip(a, b, strict=True):
        o[x, y] += 1
    e = np.outer(o.sum(1), o.sum(0)) / len(a)
    w = (np.subtract.outer(np.arange(k), np.arange(k)) ** 2) / (k - 1) ** 2
    return 1 - (w * o).sum() / (w * e).sum()


def _alpha_interval(units):
    """Krippendorff's alpha, interval metric: 1 - D_o / D_e, D_o from the pairs within each unit (weighted
    1 / (m_u - 1)), D_e from all pairs of values (through the value counts)."""
    vals = np.concatenate(units)
    n = vals.size
    d_o = sum(((u[:, None] - u[None, :]) ** 2).sum() / (len(u) - 1) for u in units) / n
    cnt = np.bincount(vals.astype(int), minlength=4).astype(float)
    c = np.arange(4)
    d_e = (np.outer(cnt, cnt) * np.subtract.outer(c, c) ** 2).sum() / (n * (n - 1))
    return 1 - d_o / d_e


def test_irr_table_on_complete_triples(snap):
    triples = {d: [] for d in DIMS}
    for data in snap["files"].values():
        for dim, prompts in data["layer1"].items():
            for p in prompts:
                for r in p["runs"]:
                    s = r.get("individual_scores") or []
                    if len(s) == 3 and all(0 <= x <= 3 for x in s):
                        triples[dim].append([int(x) for x in s])
    v = snap["v"]
    for dim in [*DIMS, "pooled"]:
        arr = np.array([t for d in DIMS for t in triples[d]] if dim == "pooled" else triples[dim])
        rng_ = arr.max(1) - arr.min(1)
        qwk = np.mean([_qwk(arr[:, i], arr[:, j]) for i, j in ((0, 1), (0, 2), (1, 2))])
        got = {m: v[f"pwb.table7.{dim}.{m}"] for m in ("n", "exact", "adjacent", "qwk", "alpha", "spread")}
        assert got["n"] == len(arr)
        assert got["exact"] == pytest.approx(100 * (rng_ == 0).mean(), abs=EXACT)
        assert got["adjacent"] == pytest.approx(100 * (rng_ <= 1).mean(), abs=EXACT)
        assert got["spread"] == pytest.approx(rng_.mean(), abs=EXACT)
        assert got["qwk"] == pytest.approx(qwk, abs=1e-9)
        assert got["alpha"] == pytest.approx(_alpha_interval(arr.astype(float)), abs=1e-9)


def test_cf_co_correlation_by_the_authors_rule(snap):
    lists = {d: [] for d in DIMS}
    for model in sorted(KEYS):
        for c in CONDS:
            for dim, prompts in snap["files"][(model, c)]["layer1"].items():
                for p in prompts:
                    valid = [r["score"] for r in p["runs"] if r.get("score", -1) >= 0]
                    if valid:
                        lists[dim].append(float(np.mean(valid)))
    n = min(len(x) for x in lists.values() if x)
    r = np.corrcoef(lists["cognitive_forcing"][:n], lists["complementarity"][:n])[0, 1]
    assert snap["v"]["pwb.cf_co.r"] == pytest.approx(r, abs=1e-12)
    assert snap["v"]["pwb.inst.corr.min_len"] == n

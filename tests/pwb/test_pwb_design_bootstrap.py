"""The design-respecting intervals of ``python -m compendium.pwb.score`` (compendium.pwb.design_bootstrap), against
independent computations: a plain loop over the same random streams (equal bit for bit), hand-worked cases (the
support and frequencies of a two-prompt bootstrap, the ideal bootstrap variances of Davison & Hinkley 1997 section
3.8, a design whose stages have nothing to resample), the paper's bootstrap in distribution, and a simulation of
coverage on a design with known prompt effects."""

import json

import numpy as np
import pandas as pd
import pytest

from compendium.data import synthetic_pwb
from compendium.pwb import design_bootstrap as db, instances as inst, score

W = {"cognitive_forcing": 0.15, "complementarity": 0.15, "contrastive_explanation": 0.1, "appropriate_reliance": 0.0}
COMBOS = [(False, False), (True, False), (False, True), (True, True)]


def _instances(spec, seed=0):
    """Tidy judge rows of one model: ``spec`` {(condition, dimension, prompt_id): [[judge values of run 0], ...]}."""
    rows = []
    for (cond, dim, pid), runs in spec.items():
        for k, js in enumerate(runs):
            for j, v in enumerate(js):
                rows.append(("m", cond, 1, dim, pid, k, f"judge{j}", v))
    return inst.validate_instances(pd.DataFrame(rows, columns=list(inst.SCHEMA)))


def _runs(t):
    return inst.layer1_runs(inst.panel_scores(t))


def _random_spec(seed=0):
    """Three dimensions (one unweighted), 3-4 prompts each, 1-3 runs of 1-3 judge values (0-3); a prompt of one
    dimension is missing from the prompted condition (the clusters are the union of both conditions' prompts)."""
    rng = np.random.default_rng(seed)
    spec = {}
    for dim, n in (("cognitive_forcing", 3), ("complementarity", 4), ("appropriate_reliance", 3)):
        for p in range(n):
            for cond in ("baseline", "with_system_prompt"):
                if (dim, p, cond) == ("complementarity", 2, "with_system_prompt"):
                    continue
                level = rng.integers(0, 4)
                runs = [
                    [int(np.clip(level + rng.integers(-1, 2), 0, 3)) for _ in range(rng.integers(1, 4))]
                    for _ in range(rng.integers(1, 4))
                ]
                spec[(cond, dim, f"{dim[:4]}_{p:02d}")] = runs
    return spec


@pytest.fixture(scope="module")
def tiny():
    t = _instances(_random_spec())
    return _runs(t), t


@pytest.mark.parametrize(("resample_runs", "resample_judges"), COMBOS)
def test_the_vectorised_draws_equal_a_plain_loop_bit_for_bit(tiny, resample_runs, resample_judges):
    """Same seed, same streams: the numpy draws and the plain loop (one Generator.random() per uniform) agree
    exactly for every combination of stages, and do not depend on how many draws are computed at once."""
    runs, t = tiny
    kw = {"n_boot": 40, "seed": 42, "resample_runs": resample_runs, "resample_judges": resample_judges}
    ref = db.reference_draws(runs, t, W, **kw)
    data = db.design_data(runs, t)
    for chunk in (None, 1, 7):
        got = db.draws(data, W, chunk_draws=chunk, **kw)
        for q in db.QUANTITIES:
            np.testing.assert_array_equal(got.of(q), ref.of(q), err_msg=f"{q}, chunk {chunk}")
    assert np.isfinite(ref.pwi).all() and np.ptp(ref.pwi[0]) > 0  # the draws vary: not a vacuous equality


def test_a_stage_with_nothing_to_resample_leaves_the_earlier_stages_draws_exactly():
    """Hand-worked: when every prompt's runs are identical, the two-stage draws (runs resampled within each drawn
    prompt) equal the prompt-level ones exactly; when every run's judges agree, so do the draws with the judges
    resampled (each stage draws from its own stream, so switching it on moves nothing else)."""
    rng = np.random.default_rng(1)
    spec = {}
    for dim in ("cognitive_forcing", "complementarity", "contrastive_explanation"):
        for p in range(5):
            for cond in ("baseline", "with_system_prompt"):
                v = int(rng.integers(0, 4))
                spec[(cond, dim, f"p{p}")] = [[v, v, v]] * int(rng.integers(2, 6))
    t = _instances(spec)
    data = db.design_data(_runs(t), t)
    kw = {"n_boot": 500, "seed": 7}
    prompts = db.draws(data, W, resample_runs=False, resample_judges=False, **kw)
    assert np.std(prompts.pwi[0]) > 1  # prompts differ: the prompt-level draws vary
    for rr, rj in COMBOS[1:]:
        other = db.draws(data, W, resample_runs=rr, resample_judges=rj, **kw)
        for q in db.QUANTITIES:
            np.testing.assert_array_equal(other.of(q), prompts.of(q), err_msg=f"{q}: runs {rr}, judges {rj}")


def test_two_prompts_give_the_hand_worked_support_and_frequencies():
    """One weighted dimension of two prompts, all runs 0 in one and 3 in the other: a draw holds the first prompt
    twice, once or never (probabilities 1/4, 1/2, 1/4), so its PWI is 0, 50 or 100 in those shares; ΔPWI (the
    prompted runs one point higher, the same prompts drawn for both) is 100/3 in every draw."""
    spec = {}
    for cond, shift in (("baseline", 0), ("with_system_prompt", 1)):
        spec[(cond, "cognitive_forcing", "a")] = [[0 + shift] * 3] * 4
        spec[(cond, "cognitive_forcing", "b")] = [[2 + shift] * 3] * 4
    t = _instances(spec)
    d = db.draws(db.design_data(_runs(t), t), W, n_boot=4000, seed=3, resample_runs=False, resample_judges=False)
    values, counts = np.unique(np.round(d.pwi[0], 9), return_counts=True)
    assert values.tolist() == pytest.approx([0.0, 100 / 3, 200 / 3])  # means 0, 1, 2 of 3
    assert counts / counts.sum() == pytest.approx([0.25, 0.5, 0.25], abs=0.03)  # binomial SE about 0.008
    assert d.delta_pwi == pytest.approx(np.full(4000, 100 / 3))


def test_the_bootstrap_variances_are_davison_and_hinkleys():
    """Davison & Hinkley (1997) section 3.8, balanced one-way design, a prompts of b runs: the cluster bootstrap's
    variance of the mean is sum_i (ybar_i - ybar)^2 / a^2 (the spread of the prompt means), and resampling the
    runs within each drawn prompt too adds sum_i s_i^2 / (a^2 b) (s_i^2 the prompt's run variance, ddof 0):
    the run-to-run variance counted a second time. Checked on the PWI of one dimension (x 100/3), 20,000 draws
    (relative Monte-Carlo error of a variance about 1 %)."""
    rng = np.random.default_rng(11)
    a, b = 6, 4
    y = np.clip(rng.integers(0, 4, a)[:, None] + rng.integers(-1, 2, (a, b)), 0, 3)
    spec = {}
    for cond in ("baseline", "with_system_prompt"):
        for i in range(a):
            spec[(cond, "complementarity", f"p{i}")] = [[int(v)] for v in y[i]]
    t = _instances(spec)
    data = db.design_data(_runs(t), t)
    scale = (100 / 3) ** 2
    between = ((y.mean(1) - y.mean()) ** 2).sum() / a**2 * scale
    within = (y.var(1) / b).sum() / a**2 * scale
    kw = {"n_boot": 20_000, "seed": 5, "resample_judges": False}
    v1 = np.var(db.draws(data, W, resample_runs=False, **kw).pwi[0])
    v2 = np.var(db.draws(data, W, resample_runs=True, **kw).pwi[0])
    assert v1 == pytest.approx(between, rel=0.05)
    assert v2 == pytest.approx(between + within, rel=0.05)


@pytest.fixture(scope="module")
def one_prompt():
    """One prompt per dimension, 12 runs of one judge each, both conditions."""
    rng = np.random.default_rng(2)
    spec = {
        (cond, dim, "only"): [[int(v)] for v in rng.integers(0, 4, 12)]
        for cond in ("baseline", "with_system_prompt")
        for dim in ("cognitive_forcing", "complementarity", "contrastive_explanation")
    }
    t = _instances(spec)
    return _runs(t), t


def test_with_one_prompt_per_dimension_each_draw_is_the_data_and_the_output_says_so(one_prompt):
    """One prompt per dimension, its runs kept: every draw holds exactly the data, so every PWI draw is the paper's
    point PWI and every d_pooled draw its d_pooled (the statistics of a draw are the paper's); the cluster
    bootstrap cannot see how prompts differ, and the output says the interval is too narrow."""
    runs, t = one_prompt
    d = db.draws(db.design_data(runs, t), W, n_boot=50, seed=1, resample_runs=False, resample_judges=False)
    paper = inst.pwi_bootstrap(runs, W, n_boot=10, seed=42).set_index("condition")["pwi_point"]
    assert d.pwi[0] == pytest.approx(np.full(50, paper["baseline"]), rel=1e-12)
    assert d.pwi[1] == pytest.approx(np.full(50, paper["with_system_prompt"]), rel=1e-12)
    assert d.d_pooled == pytest.approx(np.full(50, inst.d_pooled(runs)["d_pooled"].iloc[0]), rel=1e-12)
    res = db.design_intervals(runs, t, W, n_boot=50, seed=1, ci_level=0.95)
    assert res["dimensions_with_one_prompt"] == ["cognitive_forcing", "contrastive_explanation", "complementarity"]
    assert res["design"]["baseline"]["boot_sd"] == pytest.approx(0, abs=1e-12)
    fake = {"baseline": {"ci_lower": 1.0, "ci_upper": 2.0}, "prompted": {"ci_lower": 1.0, "ci_upper": 2.0}}
    assert any("is too narrow" in s for s in db.interval_lines({**fake, "design": res}))


def test_with_one_prompt_per_dimension_the_two_stage_bootstrap_is_the_runs_independent_one(one_prompt):
    """With one prompt per dimension, resampling the runs within the (only) drawn prompt is resampling the
    dimension's runs as independent scores: the two distributions agree within Monte-Carlo error (8,000 draws
    each, relative error of an SD about 0.8 %)."""
    runs, t = one_prompt
    data = db.design_data(runs, t)
    two = db.draws(data, W, n_boot=8000, seed=4, resample_runs=True, resample_judges=False)
    ind = db.runs_independent_draws(data, W, n_boot=8000, seed=4)
    for q in db.QUANTITIES:
        assert np.std(two.of(q)) == pytest.approx(np.std(ind.of(q)), rel=0.05), q
        assert np.mean(two.of(q)) == pytest.approx(np.mean(ind.of(q)), abs=0.1 * np.std(ind.of(q))), q


def test_the_runs_independent_draws_are_the_papers_bootstrap_in_distribution(tmp_path):
    """The paper's assumption extended to ΔPWI and d_pooled rests on resampling each dimension's runs as the paper
    does: its PWI draws have the SD of the paper's exact bootstrap (pwi_bootstrap_exact, another stream) within
    Monte-Carlo error, on a synthetic model with failed runs."""
    synthetic_pwb.write_model(tmp_path, "m", seed=3, size="small")
    name, files = score.new_model(tmp_path, "m")
    t = inst.validate_instances(
        pd.concat([inst.instances_from_results_json(d, name, c) for c, (_, d) in files.items()])
    )
    runs = _runs(t)
    w = score._weights()
    ind = db.runs_independent_draws(db.design_data(runs, t), w, n_boot=6000, seed=9)
    paper = inst.pwi_bootstrap(runs, w, n_boot=6000, seed=42).set_index("condition")
    for c, cond in enumerate(("baseline", "with_system_prompt")):
        assert np.std(ind.pwi[c]) == pytest.approx(paper.loc[cond, "boot_sd"], rel=0.05)
        assert np.mean(ind.pwi[c]) == pytest.approx(paper.loc[cond, "pwi"], abs=0.1 * paper.loc[cond, "boot_sd"])


# --------------------------------------------------------------------------------------------------
# coverage on a design with known prompt effects
# --------------------------------------------------------------------------------------------------

SIM_DIMS = ("cognitive_forcing", "complementarity", "contrastive_explanation")
MU = np.array([[1.0, 1.5, 2.0], [1.5, 1.8, 2.4]])  # (condition, dimension) population means


def _sim_data(rng, a, b, sz, su, se) -> db.DesignData:
    """a prompts x b runs per dimension and condition: y = mu + z (prompt, shared by both conditions) + u (prompt x
    condition) + e (run), normal."""
    D = len(SIM_DIMS)
    z = rng.normal(0, sz, (1, D, a, 1))
    u = rng.normal(0, su, (2, D, a, 1))
    y = MU[:, :, None, None] + z + u + rng.normal(0, se, (2, D, a, b))
    G = D * a
    return db.DesignData(
        dims=SIM_DIMS,
        prompts=tuple(tuple(f"p{i:02d}" for i in range(a)) for _ in SIM_DIMS),
        dim_start=np.arange(D, dtype=np.int64) * a,
        runs=y.reshape(2, G, b),
        n_runs=np.full((2, G), b, dtype=np.int64),
        judges=np.full((2, G, b, 1), np.nan),
        n_judges=np.zeros((2, G, b), dtype=np.int64),
    )


def _truth(sz, su, se):
    w = np.array([W[d] for d in SIM_DIMS])
    pwi = (MU / 3 * w).sum(1) / w.sum() * 100
    var = sz**2 + su**2 + se**2 + MU.var(1)  # the concatenated scores' variance per condition (a mixture)
    d = (MU[1].mean() - MU[0].mean()) / np.sqrt(var.mean())
    return {"baseline": pwi[0], "prompted": pwi[1], "delta_pwi": pwi[1] - pwi[0], "d_pooled": d}


def _coverage(n_sims, sz, su, se, seed, n_boot=400, a=20, b=5, methods=("independent", "design")):
    """Share of simulated data sets whose 95 % percentile interval holds the true value, per method and quantity:
    ``independent`` (the paper's method: runs resampled as independent scores within each dimension, which
    :func:`test_the_runs_independent_draws_are_the_papers_bootstrap_in_distribution` shows is the paper's
    bootstrap in distribution; for ΔPWI and d_pooled its assumption extended), ``design`` (the design-respecting
    bootstrap) and ``two_stage`` (runs resampled within the drawn prompts too)."""
    rng = np.random.default_rng(seed)
    truth = _truth(sz, su, se)
    run = {
        "independent": lambda data, k: db.runs_independent_draws(data, W, n_boot=n_boot, seed=k),
        "design": lambda data, k: db.draws(data, W, n_boot=n_boot, seed=k, resample_runs=False, resample_judges=False),
        "two_stage": lambda data, k: db.draws(
            data, W, n_boot=n_boot, seed=k, resample_runs=True, resample_judges=False
        ),
    }
    hits = {m: dict.fromkeys(db.QUANTITIES, 0) for m in methods}
    for k in range(n_sims):
        data = _sim_data(rng, a, b, sz, su, se)
        for m in methods:
            d = run[m](data, k)
            for q in db.QUANTITIES:
                lo, hi = np.percentile(d.of(q), [2.5, 97.5])
                hits[m][q] += lo <= truth[q] <= hi
    return {m: {q: v / n_sims for q, v in h.items()} for m, h in hits.items()}


def test_coverage_the_papers_interval_undercovers_with_prompt_effects_the_design_respecting_one_does_not():
    """A design like the benchmark's (3 weighted dimensions, 20 prompts x 5 runs, the same prompts in both
    conditions) with prompt effects: prompt SD 0.5 (shared by both conditions), prompt x condition SD 0.3, run SD
    0.6 (intra-prompt correlation about 0.4 within a condition). 200 data sets, 400 draws each: the Monte-Carlo
    error of a coverage is about 1.5 points. The paper's PWI interval covers about three times in four (it
    treats 100 correlated runs as independent); the design-respecting one is near 95 %. Generous margins; the
    numbers are printed (pytest -s)."""
    cov = _coverage(200, sz=0.5, su=0.3, se=0.6, seed=2026)
    print("\ncoverage, prompt effects:", json.dumps(cov))
    for q in ("baseline", "prompted"):
        assert cov["independent"][q] < 0.86, cov
        assert 0.89 <= cov["design"][q] <= 0.99, cov
    for q in ("delta_pwi", "d_pooled"):
        assert 0.87 <= cov["design"][q] <= 0.99, cov


def test_coverage_without_prompt_effects_both_are_near_nominal():
    """Without prompt effects (runs independent, as the paper assumes) the cluster bootstrap loses little: both
    PWI intervals are near 95 % (150 data sets; Monte-Carlo error about 2 points; the cluster bootstrap's
    variance is (a - 1) / a = 0.95 of the truth, a point of coverage)."""
    cov = _coverage(150, sz=0.0, su=0.0, se=0.8, seed=7)
    print("\ncoverage, no prompt effects:", json.dumps(cov))
    for q in ("baseline", "prompted"):
        assert 0.88 <= cov["independent"][q] <= 0.995, cov
        assert 0.88 <= cov["design"][q] <= 0.995, cov


# --------------------------------------------------------------------------------------------------
# the score command
# --------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_model(tmp_path_factory):
    d = tmp_path_factory.mktemp("design") / "results"
    synthetic_pwb.write_model(d, "My Model 2", seed=5, size="small")
    return d


def test_score_prints_both_intervals_labelled_and_writes_them_to_score_json(small_model, tmp_path, capsys):
    out = tmp_path / "out"
    assert score.main([str(small_model), "--out", str(out), "--n-boot", "300"]) == 0
    text = capsys.readouterr().out
    assert db.PAPER_LABEL in text and db.DESIGN_LABEL in text and "judges resampled" in text
    j = json.loads((out / "score.json").read_text())
    des = j["design"]
    assert des["n_boot"] == 300 and des["seed"] == score.SEED and des["ci_level"] == score.CI
    for variant, qs in (("design", db.QUANTITIES), ("judges_resampled", db.QUANTITIES)):
        for q in qs:
            v = des[variant][q]
            assert v["ci_lower"] < v["ci_upper"], (variant, q)
    assert set(des["runs_independent"]) == {"delta_pwi", "d_pooled"}
    # the point estimates lie inside the design-respecting intervals, and the paper's intervals are untouched
    assert des["design"]["delta_pwi"]["ci_lower"] < j["delta_pwi"] < des["design"]["delta_pwi"]["ci_upper"]
    assert des["design"]["d_pooled"]["ci_lower"] < j["d_pooled"] < des["design"]["d_pooled"]["ci_upper"]
    runs = _runs(inst.load_hf_results(small_model, models=None))
    paper = inst.pwi_bootstrap(runs, score._weights(), n_boot=300, seed=score.SEED).set_index("condition")
    assert j["baseline"]["ci_lower"] == paper.loc["baseline", "ci_lower"]
    flat = score.flat_values(score.evaluate(small_model, n_boot=300, allow_partial=True))
    assert flat["eval.score.interval.design.delta_pwi.ci_upper"] == des["design"]["delta_pwi"]["ci_upper"]
    assert flat["eval.score.baseline.ci_lower"] == j["baseline"]["ci_lower"]


def test_help_says_which_interval_is_which(capsys):
    with pytest.raises(SystemExit):
        score.main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "The paper's method (runs independent): the paper's PWI bootstrap, exactly" in text
    assert "Design-respecting (prompts as clusters, runs within prompts): the prompt ids of each dimension" in text

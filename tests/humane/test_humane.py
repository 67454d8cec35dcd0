"""compendium.humane: the simulator's pieces against independent computations, and the reduction by hand."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pandas as pd
import pytest

from compendium.humane import grid, report, simulate as sim
from compendium.stats import pairwise as pw

STUDY = np.array([1.2, 1.1, 1.0, 0.85, 0.8])


def _point(design="uniform", n=5, G=1, nu=0.4, budget=400, spread="wide"):
    th = tuple(float(x) for x in sim.strengths(n, spread, STUDY, 0.6))
    return sim.Point(n, spread, th, nu, G, 0.2 if G > 1 else 0.0, design, grid.checkpoints(budget, 20, 3))


def test_point_key_is_blake2b_of_the_canonical_values_and_ignores_construction_order():
    p = _point()
    d = {k: (format(v, ".17g") if isinstance(v, float) else [format(x, ".17g") for x in v]
             if k == "theta" else list(v) if isinstance(v, tuple) else v) for k, v in vars(p).items()}  # fmt: skip
    text = json.dumps(d, sort_keys=True, separators=(",", ":"))
    assert sim.point_key(p) == int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big") >> 1
    q = sim.Point(**{k: vars(p)[k] for k in reversed(list(vars(p)))})
    assert sim.point_key(q) == sim.point_key(p)
    assert sim.point_key(_point(nu=0.0)) != sim.point_key(p)


@pytest.mark.parametrize("design", sim.DESIGNS)
@pytest.mark.parametrize("G", [1, 3])
def test_a_repetition_gives_the_same_bytes_in_any_block(design, G):
    p = _point(design, n=6, G=G)
    whole = sim.simulate_block(p, range(5), 3)
    parts = pd.concat([sim.simulate_block(p, [3, 4], 3), sim.simulate_block(p, [0], 3),
                       sim.simulate_block(p, [1, 2], 3)], ignore_index=True)  # fmt: skip
    parts = parts.sort_values(["repetition", "checkpoint"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(whole, parts, check_exact=True)


def test_davidson_pair_probs_match_the_library():
    theta = np.log(STUDY)
    P_win, P_tie = pw.davidson_probabilities(STUDY, 0.44)
    i, j = pw.pair_index(5)
    a, t = sim.davidson_pair_probs(theta[i], theta[j], 0.44)
    np.testing.assert_allclose(a, P_win[i, j], rtol=1e-13)
    np.testing.assert_allclose(t, P_tie[i, j], rtol=1e-13)


def test_cholesky_matches_numpy_and_centred_sd_matches_the_centring_matrix():
    rng = np.random.default_rng(1)
    A = rng.standard_normal((4, 6, 6))
    S = A @ np.swapaxes(A, -1, -2) + 6 * np.eye(6)
    np.testing.assert_allclose(sim.cholesky(S), np.linalg.cholesky(S), rtol=1e-12, atol=1e-12)
    H = np.eye(6) - 1 / 6
    want = np.sqrt(np.diagonal(H @ S @ H, axis1=-2, axis2=-1)).mean(-1)
    np.testing.assert_allclose(sim.centred_sd(S), want, rtol=1e-12)


def test_trueskill_fed_in_pieces_continues_the_same_sequence():
    w, l_, d = np.array([[0, 1, 2, 0]]), np.array([[1, 2, 0, 2]]), np.array([[False, True, False, False]])
    m_all, s_all = pw.trueskill_batched(w, l_, d, 3)
    m1, s1 = pw.trueskill_batched(w[:, :2], l_[:, :2], d[:, :2], 3)
    m2, s2 = pw.trueskill_batched(w[:, 2:], l_[:, 2:], d[:, 2:], 3, mu0=m1, sigma0=s1)
    np.testing.assert_allclose(m2, m_all, rtol=1e-12)
    np.testing.assert_allclose(s2, s_all, rtol=1e-12)
    ref_m, _ = pw.trueskill_sequential(w[0], l_[0], d[0], 3)
    np.testing.assert_allclose(m2[0], ref_m, rtol=1e-9)


def test_trueskill_gain_prefers_uncertain_and_close_pairs():
    i, j = pw.pair_index(3)  # pairs (0,1), (0,2), (1,2)
    g = sim._trueskill_gain(np.array([[25.0, 25.0, 35.0]]), np.array([[4.0, 4.0, 4.0]]) ** 2, i, j)
    assert g.argmax() == 0  # equal means: the most informative outcome
    g = sim._trueskill_gain(np.array([[25.0, 25.0, 25.0]]), np.array([[2.0, 2.0, 8.0]]) ** 2, i, j)
    assert g[0, 0] < g[0, 1] == pytest.approx(g[0, 2])  # the uncertain model's pairs first


def test_best_pair_breaks_ties_within_the_tolerance_by_the_lowest_index():
    eps = np.finfo(float).eps
    g = np.array([[0.3, 0.5, 0.5 * (1 + 2 * eps), 0.1],  # equal but for rounding: the first of the two
                  [0.3, 0.5, 0.5 * (1 + 1e-6), 0.1],  # a real difference: the larger
                  [0.2, 0.2, 0.2, 0.2]])  # fmt: skip
    assert sim.best_pair(g).tolist() == [1, 2, 0]
    assert g.argmax(1).tolist() == [2, 2, 0]  # what a plain argmax picks: the rounding noise
    assert sim.best_pair(g[None]).shape == (1, 3)


def test_a_tie_on_the_board_recovers_no_order():
    truth = np.arange(4)
    th = np.array([[0.9, 0.5, 0.1, -0.2],  # the true order
                   [0.5, 0.5 + 1e-12, 0.1, -0.2],  # the top two tie: neither the ranking nor the top
                   [0.9, 0.5, 0.1, 0.1],  # a tie lower down: the top, not the ranking
                   [0.5, 0.9, 0.1, -0.2]])  # fmt: skip
    order = np.argsort(-th, axis=-1, kind="stable")
    rank, top = sim.recovered(th, order, truth)
    assert rank.tolist() == [True, False, False, False]
    assert top.tolist() == [True, False, True, False]


@pytest.mark.parametrize("design", ["ig_trueskill", "ig_davidson"])
def test_information_gain_designs_do_not_follow_rounding_noise(design, monkeypatch):
    """Every gain moved by a few units in the last place, as another CPU's exp/log1p move them: the same
    studies. (With a plain argmax the symmetric first rounds pick other pairs, and the studies differ.)"""
    p = _point(design, n=5, nu=0.4, budget=2000, spread="study")
    want = sim.simulate_block(p, range(6), 13)
    noise = np.random.default_rng(0)

    def jitter(f):
        return lambda *a: (g := f(*a)) * (1 + noise.integers(-3, 4, size=g.shape) * np.finfo(float).eps)

    monkeypatch.setattr(sim, "_trueskill_gain", jitter(sim._trueskill_gain))
    monkeypatch.setattr(sim.pw, "expected_information_gain", jitter(pw.expected_information_gain))
    got = sim.simulate_block(p, range(6), 13)
    pd.testing.assert_frame_equal(want, got, check_exact=True)


@pytest.mark.parametrize("design,G", [("uniform", 1), ("uniform", 3), ("arena", 3)])
def test_nonadaptive_counts_equal_a_judgement_by_judgement_count(design, G):
    """_counts_nonadaptive looks each judgement's probabilities up in a (study, group, pair) table; counted one
    judgement at a time with the probabilities computed per judgement (_outcomes), the counts are the same."""
    p = _point(design, n=5, G=G, budget=600)
    rng = np.random.default_rng(4)
    R, T, K = 3, p.budget, p.n_models
    d = {"u_pair": rng.random((R, T)), "u_grp": rng.random((R, T)), "u_out": rng.random((R, T)),
         "arena": rng.dirichlet(np.ones(10), R)}  # fmt: skip
    theta_g = rng.normal(0, 0.5, (R, G, K))
    i, j = pw.pair_index(K)
    got = sim._counts_nonadaptive(p, d, theta_g, i, j)
    want = np.zeros_like(got)
    ck = np.asarray(p.checkpoints)
    for r in range(R):
        if design == "uniform":
            pair = np.minimum((d["u_pair"][r] * i.size).astype(np.int64), i.size - 1)
        else:
            cdf = np.cumsum(d["arena"][r])
            cdf[-1] = 1.0
            pair = np.minimum(np.searchsorted(cdf, d["u_pair"][r], side="right"), i.size - 1)
        grp = np.minimum((d["u_grp"][r] * G).astype(np.int64), G - 1)
        out = sim._outcomes(theta_g[r : r + 1], i, j, pair[None], grp[None], d["u_out"][r : r + 1], p.nu)[0]
        for t in range(T):
            c = int(np.searchsorted(ck, t, side="right"))  # the first checkpoint that counts judgement t
            want[r, c:, grp[t], pair[t], out[t]] += 1
    assert np.array_equal(got, want)


def test_outcome_shares_follow_the_davidson_model():
    p = _point("uniform", nu=0.44, budget=20000, spread="study")
    df = sim.simulate_block(p, range(4), 9)
    last = df[df["checkpoint"] == df["checkpoint"].max()]
    P_win, P_tie = pw.davidson_probabilities(np.exp(np.array(p.theta)), p.nu)
    i, j = pw.pair_index(5)
    tie = P_tie[i, j].mean()  # uniform pairs: the mean tie probability
    share = 1 - last["n_decisive"].sum() / last["n_judgements"].sum()
    se = np.sqrt(tie * (1 - tie) / (4 * 20000))
    assert abs(share - tie) < 4 * se


def test_a_wide_spread_is_recovered_and_the_pooled_board_is_surer_than_a_group():
    p = _point("uniform", n=5, G=5, nu=0.0, budget=4000)
    p = sim.Point(5, "x", (1.5, 0.75, 0.0, -0.75, -1.5), 0.0, 5, 0.1, "uniform", p.checkpoints)
    df = sim.simulate_block(p, range(10), 2)
    last = df[df["checkpoint"] == df["checkpoint"].max()]
    assert last["rank_pooled"].all() and last["rank_consolidated"].all() and (last["pbest"] > 0.99).all()
    assert (last["sd_pooled"] < last["sd_min_group"]).all()


def test_strengths_keep_the_study_for_five_models_and_match_the_spreads():
    theta = sim.strengths(5, "study", STUDY, 0.6)
    np.testing.assert_allclose(theta, np.sort(np.log(STUDY) - np.log(STUDY).mean())[::-1])
    t20 = sim.strengths(20, "study", STUDY, 0.6)
    assert t20.std() == pytest.approx(np.log(STUDY).std()) and abs(t20.mean()) < 1e-15
    assert sim.strengths(51, "wide", STUDY, 0.6).std() == pytest.approx(0.6)
    with pytest.raises(ValueError, match="unknown spread"):
        sim.strengths(5, "narrow", STUDY, 0.6)


def test_checkpoints_are_a_sqrt2_ladder_ending_at_the_budget():
    ck = grid.checkpoints(40960, 20)
    assert ck[0] == 640 and ck[-1] == 40960 and len(ck) == 13 and all(c % 20 == 0 for c in ck)
    assert ck[2] == 1280 and ck[4] == 2560


def test_first_reach_interpolates_in_log_judgements():
    ck = np.array([100, 200, 400])
    assert report.first_reach(ck, np.array([0.5, 0.9, 1.0]))[0] == pytest.approx(200 * 2**0.5)
    assert report.first_reach(ck, np.array([0.96, 0.97, 1.0]))[0] == 100
    assert report.first_reach(ck, np.array([0.5, 0.6, 0.7]))[0] == np.inf


def _rows(point, rec: np.ndarray) -> pd.DataFrame:
    R, C = rec.shape
    return pd.DataFrame({"point_key": sim.point_key(point), "repetition": np.repeat(np.arange(R), C),
                         "checkpoint": np.tile(np.arange(C), R), "n_judgements": np.tile(point.checkpoints, R),
                         "n_decisive": np.tile(point.checkpoints, R), "rank_pooled": rec.ravel(),
                         "top_pooled": rec.ravel()})  # fmt: skip


def test_saving_is_one_minus_the_ratio_of_judgements_needed():
    ck = (100, 200, 400, 800)
    u = sim.Point(5, "x", (1.0, 0.5, 0.0, -0.5, -1.0), 0.0, 1, 0.0, "uniform", ck)
    g = sim.Point(5, "x", (1.0, 0.5, 0.0, -0.5, -1.0), 0.0, 1, 0.0, "ig_trueskill", ck)
    rec_u = np.tile([False, False, True, True], (40, 1))  # every repetition recovers between 200 and 400
    rec_g = np.tile([False, True, True, True], (40, 1))  # ... between 100 and 200
    rows = pd.concat([_rows(u, rec_u), _rows(g, rec_g)], ignore_index=True)
    s = report.saving(rows, [u, g], "top", seed=0, n_boot=50).iloc[0]
    assert s["n_uniform"] == pytest.approx(200 * 2**0.95) and s["n_design"] == pytest.approx(100 * 2**0.95)
    assert s["saving"] == pytest.approx(0.5)
    assert s["saving_lo"] == pytest.approx(0.5) and s["saving_hi"] == pytest.approx(0.5)
    assert report.saving_verdict(s["saving_lo"], s["saving_hi"]) == "a saving"


def test_calibration_bins_reported_against_observed():
    rows = pd.DataFrame({"pbest": [0.6, 0.6, 0.97, 0.97, 0.97, 0.97], "leader_is_best": [1, 0, 1, 1, 1, 0]})
    cal = report.calibration(rows)
    assert cal["n"].tolist() == [2, 4]
    assert cal["observed"].tolist() == [0.5, 0.75]
    lo, hi = pw.wilson_interval(3, 4)
    assert cal["observed_lo"].iloc[1] == pytest.approx(lo) and cal["observed_hi"].iloc[1] == pytest.approx(hi)


def test_a_point_with_a_bad_design_or_checkpoints_is_refused_naming_it():
    with pytest.raises(ValueError, match="unknown design 'swiss'"):
        _point("swiss")
    with pytest.raises(ValueError, match="multiples of batch=20"):
        sim.Point(5, "x", (0.0,) * 5, 0.0, 1, 0.0, "uniform", (30, 60))


def test_the_calibration_tables_speak_the_readers_words_and_keep_their_headers_short(fresh_stage):
    """Table 6.4 names its columns in words (no n_models, max_per_study) and reads the first bin from 0 (pandas
    puts its edge at -0.001); Table 6.5's headers carry no word longer than "reported" (ten columns share a
    printed page, and a longer header word broke inside the word)."""
    from compendium.humane import views

    cal = pd.DataFrame({"reported_lo": [-0.001, 0.5], "reported_hi": [0.5, 0.7], "n": [8442, 100],
                        "max_per_study": [7, 2], "mean_reported": [0.4466, 0.6], "observed": [0.4575, 0.62],
                        "observed_lo": [0.4296, 0.5], "observed_hi": [0.4857, 0.7], "n_models": [5, 5]})  # fmt: skip
    t = views.calibration_table(cal)
    assert list(t.columns) == ["models", "reported P(best)", "boards", "most boards from one study", "mean reported",
                               "share right", "share right: 95 % interval"]  # fmt: skip
    assert t.iloc[0].tolist() == [5, "0–0.5", "8,442", 7, "0.447", "0.458", "[0.430, 0.486]"]
    # the stage's own table (brought up to date first: make test on a fresh clone runs before make reproduce)
    cs = pd.read_csv(fresh_stage("humane") / "tables" / "calibration_settings.csv")
    wide = views.calibration_settings_table(cs)
    assert len(wide.columns) == 10
    assert max(len(w) for c in wide.columns for w in c.split()) <= len("reported")

"""compendium.audit.votes: planted effects are found, null cases are flagged no more often than the level allows,
and each fit agrees with an independent computation (choix, a direct scipy.optimize maximisation, a closed form,
``compendium.stats.pairwise.davidson_fit``)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, special, stats

from compendium.audit import votes
from compendium.preferences import rowlevel
from compendium.preferences.reproduce import MODELS
from compendium.stats import pairwise as pw

LEVEL = 0.95


# ----------------------------------------------------------------------------------------------
# hand-made row-level data
# ----------------------------------------------------------------------------------------------


def raw_rows(rng, n, choose, *, models=MODELS, display=True, texts=None, participants=100):
    """``n`` judgements in the hub layout: a random pair of ``models`` per row (random canonical side A), the
    display order a fair coin (``display_swapped``: side B shown first), and ``choose(a, b, a_first, ta, tb, rng)``
    -> "A" / "B" / "tie" the choice; ``texts(model, rng)`` the response texts (none when None)."""
    rows = []
    for r in range(n):
        a, b = rng.choice(len(models), 2, replace=False)
        ma, mb = models[a], models[b]
        a_first = bool(rng.integers(2))
        ta = texts(ma, rng) if texts else None
        tb = texts(mb, rng) if texts else None
        row = {
            "participant_id": f"P{r % participants:03d}",
            "scenario_id": f"s{r}",
            "prompt_id": f"p{r}",
            "a_model": ma,
            "b_model": mb,
            "choice_canonical": choose(ma, mb, a_first, ta, tb, rng),
        }
        if display:
            row["display_swapped"] = not a_first
        if texts:
            row["response_a"], row["response_b"] = ta, tb
        rows.append(row)
    return pd.DataFrame(rows)


def norm_frame(rng, n, share, *, displayed=True):
    """A canonical frame built directly (fast, for many replicates), every vote decisive: with ``displayed``, a fair
    coin decides which side is shown first and the first-shown response is chosen with probability ``share``;
    without, side A is chosen with probability ``share``."""
    a_idx = rng.integers(0, 5, n)
    b_idx = (a_idx + rng.integers(1, 5, n)) % 5
    a = np.asarray(MODELS)[a_idx]
    b = np.asarray(MODELS)[b_idx]
    pick = rng.random(n) < share
    if not displayed:
        return pd.DataFrame({"a_model": a, "b_model": b, "side_choice": np.where(pick, "A", "B")})
    a_first = rng.random(n) < 0.5
    return pd.DataFrame(
        {
            "a_model": a,
            "b_model": b,
            "side_choice": np.where(pick == a_first, "A", "B"),
            "displayed_first": np.where(a_first, a, b),
        }
    )


# ----------------------------------------------------------------------------------------------
# 1. position
# ----------------------------------------------------------------------------------------------


def test_a_planted_first_shown_preference_is_found_and_the_canonical_side_stays_blind_to_it():
    rng = np.random.default_rng(1)

    def first_wins(ma, mb, a_first, ta, tb, rng):  # equal models; the first-shown response wins 65 % of decisive votes
        if rng.random() < 0.1:
            return "tie"
        first_chosen = rng.random() < 0.65
        return "A" if first_chosen == a_first else "B"

    norm = rowlevel.normalise_annotations(raw_rows(rng, 1500, first_wins))
    r = votes.position_effect(norm, level=LEVEL)
    assert r["kind"] == "position" and r["displayed_first_recorded"]
    assert r["flagged"] and r["lo"] > 0.5
    assert r["lo"] < 0.65 < r["hi"]
    assert abs(r["tie_share"] - 0.1) < 0.03
    # under the balanced display randomisation the canonical side A carries no trace of it
    side = rowlevel.canonical_side_asymmetry(norm, z=stats.norm.ppf(0.975))
    assert side["wilson_lo"] < 0.5 < side["wilson_hi"]


def test_without_the_display_order_only_the_canonical_side_is_tested():
    rng = np.random.default_rng(2)
    norm = norm_frame(rng, 800, 0.58, displayed=False)
    r = votes.position_effect(norm, level=LEVEL)
    side = rowlevel.canonical_side_asymmetry(norm, z=stats.norm.ppf(0.975))
    assert r["kind"] == "canonical_side" and not r["displayed_first_recorded"]
    assert r["share"] == side["share_a"] and (r["lo"], r["hi"]) == (side["wilson_lo"], side["wilson_hi"])
    assert r["flagged"]
    assert "cannot be measured" in votes.POSITION_UNMEASURABLE


def test_no_position_effect_is_flagged_at_most_as_often_as_the_level_allows():
    rng = np.random.default_rng(13)
    reps = 150
    flagged = sum(votes.position_effect(norm_frame(rng, 400, 0.5), level=LEVEL)["flagged"] for _ in range(reps))
    # the Wilson interval's size is about 1 - level; allow the binomial's 99.9 % quantile of that rate
    assert flagged <= stats.binom.ppf(0.999, reps, 1 - LEVEL)


def test_the_minimum_detectable_effect_has_80_percent_power():
    """The MDE is the closed form (z_0.975 + z_0.80) * 0.5 / sqrt(n), and a share planted at 0.5 + MDE is flagged in
    about 80 % of simulated studies (the independent check of the formula)."""
    rng = np.random.default_rng(4)
    n = 500
    mde = votes.position_effect(norm_frame(rng, n, 0.5), level=LEVEL)["mde"]
    assert mde == pytest.approx((stats.norm.ppf(0.975) + stats.norm.ppf(0.8)) * 0.5 / np.sqrt(n))
    reps = 120
    power = np.mean([votes.position_effect(norm_frame(rng, n, 0.5 + mde), level=LEVEL)["flagged"] for _ in range(reps)])
    assert abs(power - 0.80) < 3.5 * np.sqrt(0.8 * 0.2 / reps)


def test_a_bad_level_is_refused():
    with pytest.raises(ValueError, match="level"):
        votes.position_effect(norm_frame(np.random.default_rng(0), 10, 0.5), level=95)


# ----------------------------------------------------------------------------------------------
# 2. style control
# ----------------------------------------------------------------------------------------------


def style_frame(rng, n, gamma, *, ties=0.05, markdown=True, scale=60):
    """Equal models whose answers differ in length (model k's about scale * 1.6^k characters, lognormal noise) and, at
    random and independently of everything, in markdown; side A wins with probability sigmoid(gamma * r), r the
    normalised length difference (a - b) / (a + b + 1): the longer answer wins whatever the model."""
    a_idx = rng.integers(0, 5, n)
    b_idx = (a_idx + rng.integers(1, 5, n)) % 5

    def texts(idx):
        length = (scale * 1.6**idx * rng.lognormal(0.0, 0.4, n)).astype(int)
        out = []
        for L in length:
            t = "w" * L
            if markdown:
                t = ("# Title\n" if rng.random() < 0.3 else "") + t
                t += "\n**note**" if rng.random() < 0.5 else ""
                t += "\n- a\n- b" if rng.random() < 0.4 else ""
            out.append(t)
        return np.asarray(out, dtype=object)

    ta, tb = texts(a_idx), texts(b_idx)
    la = np.array([len(t) for t in ta], dtype=float)
    lb = np.array([len(t) for t in tb], dtype=float)
    p_a = special.expit(gamma * (la - lb) / (la + lb + 1.0))
    side = np.where(rng.random(n) < p_a, "A", "B")
    side = np.where(rng.random(n) < ties, "tie", side)
    m = np.asarray(MODELS)
    return pd.DataFrame({"a_model": m[a_idx], "b_model": m[b_idx], "side_choice": side, "a_text": ta, "b_text": tb})


@pytest.fixture(scope="module")
def length_biased():
    return style_frame(np.random.default_rng(6), 2000, 4.0)


def test_a_planted_length_bias_is_found_and_the_style_controlled_models_collapse_to_equal(length_biased):
    t = votes.style_controlled_bt(length_biased, level=LEVEL, tie_weight=0.5)
    models, style = t[t["kind"] == "model"], t[t["kind"] == "style"].set_index("term")
    assert list(style.index) == ["length", "headers", "bold", "lists"]
    assert style.loc["length", "controlled_lo"] > 0 and style.loc["length", "p"] < 1e-6
    # plain Bradley-Terry ranks by verbosity; with the style control the models are equal again
    assert list(models.sort_values("plain_rank")["term"]) == list(MODELS[::-1])
    assert models["plain"].abs().max() > 1.0
    assert models["controlled"].abs().max() < 0.2 * models["plain"].abs().max()
    assert (models["controlled_lo"] < 0).sum() >= 4 and (models["controlled_hi"] > 0).sum() >= 4
    assert style.loc["length", "r2_on_models"] < 0.9  # lengths vary within a pair of models: identified


def test_no_length_effect_is_flagged_at_most_as_often_as_the_level_allows():
    rng = np.random.default_rng(9)
    reps = 50
    flagged = 0
    for _ in range(reps):
        t = votes.style_controlled_bt(style_frame(rng, 400, 0.0, markdown=False, scale=20), level=LEVEL, tie_weight=0.5)
        r = t[t["term"] == "length"].iloc[0]
        flagged += bool(r["controlled_lo"] > 0 or r["controlled_hi"] < 0)
    assert flagged <= stats.binom.ppf(0.999, reps, 1 - LEVEL)


@pytest.mark.parametrize("tie_weight", [0.5, 0.0])
def test_the_plain_fit_is_the_study_bradley_terry_model(length_biased, tie_weight):
    """Cross-check with choix: the win matrix with the same tie weight (0.5: the study's convention; 0: ties dropped)."""
    t = votes.style_controlled_bt(length_biased, level=LEVEL, tie_weight=tie_weight)
    idx = {m: k for k, m in enumerate(MODELS)}
    W = np.zeros((5, 5))
    for a, b, s in zip(
        length_biased["a_model"].map(idx), length_biased["b_model"].map(idx), length_biased["side_choice"]
    ):
        if s == "tie":
            W[a, b] += tie_weight
            W[b, a] += tie_weight
        else:
            W[(a, b) if s == "A" else (b, a)] += 1
    ref = np.log(pw.bradley_terry_choix(W))
    np.testing.assert_allclose(t.loc[t["kind"] == "model", "plain"], ref - ref.mean(), atol=1e-6)
    assert t.attrs["tie_weight"] == tie_weight and t.attrs["n_ties"] == int(
        (length_biased["side_choice"] == "tie").sum()
    )


def test_the_style_controlled_fit_is_the_maximum_likelihood_logistic_regression(length_biased):
    """Cross-check with a direct scipy.optimize maximisation of the logistic likelihood, the features built here
    from the texts with plain string code."""
    df = length_biased[length_biased["side_choice"] != "tie"]
    t = votes.style_controlled_bt(df, level=LEVEL, tie_weight=0.0)
    idx = {m: k for k, m in enumerate(MODELS)}
    n = len(df)
    X = np.zeros((n, 5))
    X[np.arange(n), df["a_model"].map(idx)] += 1
    X[np.arange(n), df["b_model"].map(idx)] -= 1

    def feature(count):
        a = np.array([count(s) for s in df["a_text"]], dtype=float)
        b = np.array([count(s) for s in df["b_text"]], dtype=float)
        r = (a - b) / (a + b + 1)
        return (r - r.mean()) / r.std()

    Z = np.column_stack(
        [
            feature(len),
            feature(lambda s: s.count("# Title")),
            feature(lambda s: s.count("**note**")),
            feature(lambda s: s.count("\n- ")),
        ]
    )
    D = np.hstack([X[:, 1:], Z])
    y = (df["side_choice"] == "A").to_numpy(float)

    def nll(beta):
        eta = D @ beta
        return np.sum(np.logaddexp(0, eta) - y * eta), D.T @ (special.expit(eta) - y)

    beta = optimize.minimize(nll, np.zeros(D.shape[1]), jac=True, method="BFGS", options={"gtol": 1e-10}).x
    th = np.concatenate([[0.0], beta[:4]])
    np.testing.assert_allclose(t.loc[t["kind"] == "model", "controlled"], th - th.mean(), atol=1e-5)
    np.testing.assert_allclose(t.loc[t["kind"] == "style", "controlled"], beta[4:], atol=1e-5)


def test_without_texts_only_the_plain_strengths_are_given(length_biased):
    t = votes.style_controlled_bt(length_biased.drop(columns=["a_text", "b_text"]), level=LEVEL, tie_weight=0.5)
    assert (t["kind"] == "model").all() and t["controlled"].isna().all() and t["plain"].notna().all()
    assert t.attrs["note"] == votes.STYLE_NEEDS_TEXTS and t.attrs["texts"] is False


def test_a_feature_that_repeats_another_is_left_out(length_biased):
    df = length_biased.assign(
        a_text=[s + "\n\n- x" if s.startswith("# ") else s for s in length_biased["a_text"]],
        b_text=[s + "\n\n- x" if s.startswith("# ") else s for s in length_biased["b_text"]],
    )
    df = df.assign(
        a_text=[s.replace("\n- a\n- b", "") for s in df["a_text"]],
        b_text=[s.replace("\n- a\n- b", "") for s in df["b_text"]],
    )
    t = votes.style_controlled_bt(df, level=LEVEL, tie_weight=0.5)
    assert t.attrs["features"] == ["length", "headers", "bold"] and t.attrs["features_collinear"] == ["lists"]


def test_style_counts_follow_lmarenas_definitions():
    text = (
        "# Header one\n## Header two\nNot #a header\n"
        "Some **bold** and __bold too__ and ** not bold\n**across\nlines**\n"
        "- item\n* item\n  + nested item\n1. first\n10. tenth\n-not an item\n"
        "```\n# a comment in code, not a header\n- nor an item\n```\n"
    )
    c = votes.style_counts([text, ""]).iloc[0]
    assert c["length"] == len(text)
    assert (c["headers"], c["bold"], c["lists"]) == (2, 2, 5)
    assert votes.style_counts([""]).iloc[0].tolist() == [0, 0, 0, 0]


# ----------------------------------------------------------------------------------------------
# 3. rater influence
# ----------------------------------------------------------------------------------------------


def board_rows(rng, n, heavy=0, participants=150):
    """``n`` judgements of five models with log-strengths -0.6 .. 0.6 (untrained weakest, recipe_d strongest), 10 %
    ties, by ``participants`` raters; plus one rater "HEAVY" with ``heavy`` votes, each for the untrained model."""
    theta = dict(zip(MODELS, [-0.6, -0.3, 0.0, 0.3, 0.6]))
    rows = []
    for r in range(n):
        a, b = rng.choice(5, 2, replace=False)
        ma, mb = MODELS[a], MODELS[b]
        p_a = special.expit(theta[ma] - theta[mb])
        side = "tie" if rng.random() < 0.1 else ("A" if rng.random() < p_a else "B")
        rows.append({"participant_id": f"P{r % participants:03d}", "a_model": ma, "b_model": mb, "side_choice": side})
    for _ in range(heavy):
        rows.append(
            {
                "participant_id": "HEAVY",
                "a_model": "untrained",
                "b_model": MODELS[rng.integers(1, 5)],
                "side_choice": "A",
            }
        )
    return pd.DataFrame(rows)


def test_one_heavy_rater_voting_for_the_weakest_model_is_found_to_flip_the_board():
    df = board_rows(np.random.default_rng(5), 1500, heavy=500)
    t = votes.rater_influence(df, tie_weight=0.5)
    s = votes.rater_influence_summary(t)
    assert s["top_participant"] == "HEAVY" and s["top_n_judgements"] == 500
    assert s["leader"] == "untrained" and s["change_leader"] == ["HEAVY"] and s["n_change_ranking"] == 1
    top = t.iloc[0]
    assert (
        top["leader_without"] == "recipe_d" and top["max_change_model"] == "untrained" and top["max_change_in_se"] > 10
    )
    # cross-check with choix: the board without HEAVY refitted from its rows
    idx = {m: k for k, m in enumerate(MODELS)}

    def board(d):
        W = np.zeros((5, 5))
        for a, b, c in zip(d["a_model"].map(idx), d["b_model"].map(idx), d["side_choice"]):
            if c == "tie":
                W[a, b] += 0.5
                W[b, a] += 0.5
            else:
                W[(a, b) if c == "A" else (b, a)] += 1
        th = np.log(pw.bradley_terry_choix(W))
        return th - th.mean()

    change = np.abs(board(df[df["participant_id"] != "HEAVY"]) - board(df)).max()
    assert top["max_abs_change"] == pytest.approx(change, abs=1e-7)


def test_without_a_heavy_rater_nobody_alone_changes_the_leader():
    t = votes.rater_influence(board_rows(np.random.default_rng(5), 1500), tie_weight=0.5)
    s = votes.rater_influence_summary(t)
    assert s["n_participants"] == 150 and s["leader"] == "recipe_d"
    assert s["n_change_leader"] == 0 and s["top_max_change_in_se"] < 1


def test_a_rater_without_whom_the_board_has_no_estimate_counts_as_changing_it():
    rich = {"a_model": ["m1", "m2", "m2", "m1"], "b_model": ["m2", "m1", "m3", "m3"], "side_choice": ["A"] * 4}
    df = pd.concat(
        [
            pd.DataFrame({"participant_id": ["x"], "a_model": ["m3"], "b_model": ["m1"], "side_choice": ["A"]}),
            pd.DataFrame({"participant_id": "y", **rich}),
            pd.DataFrame({"participant_id": "z", **rich}),
        ],
        ignore_index=True,
    )  # x gives m3 its only win; without y (or z) the board still exists
    t = votes.rater_influence(df, tie_weight=0.5).set_index("participant_id")
    assert not t.loc["x", "fit_exists"] and t.loc["x", "ranking_changes"] and np.isnan(t.loc["x", "max_abs_change"])
    assert votes.rater_influence_summary(t.reset_index())["n_no_fit"] == 1


# ----------------------------------------------------------------------------------------------
# 4. Bradley-Terry-Davidson, post-stratification, HUMAINE
# ----------------------------------------------------------------------------------------------


def davidson_counts(rng, theta, nu, n_per_pair):
    i, j = pw.pair_index(len(theta))
    out = np.zeros((i.size, 3))
    for p in range(i.size):
        pi, pj = np.exp(theta[i[p]]), np.exp(theta[j[p]])
        g = np.sqrt(pi * pj)
        D = pi + pj + nu * g
        out[p] = rng.multinomial(n_per_pair, [pi / D, pj / D, nu * g / D])
    return out


def davidson_loglik(x, counts, K):
    """The Davidson log-likelihood written out directly (model 0's log-strength 0; x = others, log nu)."""
    i, j = pw.pair_index(K)
    th = np.concatenate([[0.0], x[: K - 1]])
    nu = np.exp(x[K - 1])
    ll = 0.0
    for p in range(i.size):
        pi, pj = np.exp(th[i[p]]), np.exp(th[j[p]])
        D = pi + pj + nu * np.sqrt(pi * pj)
        w, l, t = counts[p]
        ll += w * np.log(pi / D) + l * np.log(pj / D) + t * np.log(nu * np.sqrt(pi * pj) / D)
    return ll


def test_btd_fit_agrees_with_a_direct_maximisation_and_with_davidson_fit():
    rng = np.random.default_rng(10)
    K, theta = 5, np.array([0.0, 0.2, 0.4, -0.1, 0.3])
    counts = davidson_counts(rng, theta, 0.4, 300)
    f = votes.btd_fit(counts, K)
    assert f.exists and f.converged
    res = optimize.minimize(lambda x: -davidson_loglik(x, counts, K), np.zeros(K), method="Nelder-Mead",
                            options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 40_000, "maxfev": 40_000})  # fmt: skip
    th = np.concatenate([[0.0], res.x[: K - 1]])
    np.testing.assert_allclose(f.theta, th - th.mean(), atol=1e-5)
    assert f.nu == pytest.approx(np.exp(res.x[-1]), rel=1e-5)
    i, j = pw.pair_index(K)
    W, T = np.zeros((K, K)), np.zeros((K, K))
    W[i, j], W[j, i], T[i, j] = counts[:, 0], counts[:, 1], counts[:, 2]
    d = pw.davidson_fit(W, T)
    ref = np.log(d.strengths)
    np.testing.assert_allclose(f.theta, ref - ref.mean(), atol=1e-8)
    assert f.nu == pytest.approx(d.nu, rel=1e-8)
    # the covariance is the inverse of the numerical Hessian of the direct log-likelihood (centred)
    x0 = np.concatenate([f.theta[1:] - f.theta[0], [np.log(f.nu)]])
    h = 1e-4
    H = np.empty((K, K))
    for a in range(K):
        for b in range(K):
            ea, eb = np.eye(K)[a] * h, np.eye(K)[b] * h
            H[a, b] = (davidson_loglik(x0 + ea + eb, counts, K) - davidson_loglik(x0 + ea - eb, counts, K)
                       - davidson_loglik(x0 - ea + eb, counts, K) + davidson_loglik(x0 - ea - eb, counts, K)) / (4 * h * h)  # fmt: skip
    full = np.zeros((K, K))
    full[1:, 1:] = np.linalg.inv(-H)[: K - 1, : K - 1]
    C = np.eye(K) - 1 / K
    np.testing.assert_allclose(f.cov, C @ full @ C, rtol=1e-4, atol=1e-8)


def test_btd_fit_of_a_batch_is_the_fit_of_each_and_a_table_without_ties_has_no_estimate():
    rng = np.random.default_rng(11)
    tables = np.stack([davidson_counts(rng, np.array([0.0, 0.5, -0.5]), 0.3, 50) for _ in range(4)])
    tables[2, :, 2] = 0  # no ties: nu's estimate is 0, not finite on the log scale
    batch = votes.btd_fit(tables, 3)
    assert batch.exists.tolist() == [True, True, False, True] and np.isnan(batch.theta[2]).all()
    for k in (0, 1, 3):
        one = votes.btd_fit(tables[k], 3)
        assert np.array_equal(one.theta, batch.theta[k]) and np.array_equal(one.cov, batch.cov[k])


def test_p_best_matches_the_normal_closed_form_for_two_models():
    theta = np.array([0.1, -0.1])
    cov = np.array([[0.04, -0.01], [-0.01, 0.03]])
    z = np.random.default_rng(12).standard_normal((200_000, 2))
    p = votes.p_best(theta, cov, z)
    exact = stats.norm.cdf(0.2 / np.sqrt(0.04 + 0.03 + 0.02))
    assert p[0] == pytest.approx(exact, abs=4 * np.sqrt(exact * (1 - exact) / 200_000)) and p.sum() == pytest.approx(1)


def group_table(groups: dict) -> pd.DataFrame:
    """A long counts table from {group: (theta, nu, n_per_pair)}, expected counts (rounded), models MODELS."""
    rows = []
    i, j = pw.pair_index(5)
    for g, (theta, nu, n) in groups.items():
        pi = np.exp(np.asarray(theta))
        for p in range(i.size):
            a, b = pi[i[p]], pi[j[p]]
            D = a + b + nu * np.sqrt(a * b)
            rows.append({"group": g, "model_x": MODELS[i[p]], "model_y": MODELS[j[p]], "x_wins": round(n * a / D),
                         "y_wins": round(n * b / D), "ties": round(n * nu * np.sqrt(a * b) / D)})  # fmt: skip
    return pd.DataFrame(rows)


def test_the_poststratified_leader_is_the_big_groups_while_the_consolidation_follows_the_louder_group():
    # g1 (80 % of the census): recipe_a ahead by 0.4; g2 (20 %): recipe_b ahead by 0.8; equal sample sizes
    counts = group_table({"g1": ([0, 0.4, 0, 0, 0], 0.4, 400), "g2": ([0, 0, 0.8, 0, 0], 0.4, 400)})
    t = votes.poststratified_btd(counts, {"g1": 0.8, "g2": 0.2}, level=LEVEL, n_sims=4000, seed=1)
    s = votes.poststratified_summary(t)
    assert s["leader_poststratified"] == "recipe_a" and s["p_best_poststratified"] > 0.5
    assert s["leader_consolidated"] == "recipe_b" and s["leader_pooled"] == "recipe_b"
    assert s["ps_differs_from_consolidated"] and s["n_group_leaders"] == 2
    groups = t[t["method"] == "group"]
    assert groups["weight"].round(6).tolist() == [0.8] * 5 + [0.2] * 5
    # post-stratified = the census-weighted mean of the groups' log-strengths
    ps = t[t["method"] == "poststratified"]["theta"].to_numpy()
    g1, g2 = (groups[groups["group"] == g]["theta"].to_numpy() for g in ("g1", "g2"))
    np.testing.assert_allclose(ps, 0.8 * g1 + 0.2 * g2, atol=1e-12)


def test_equal_groups_give_the_pooled_board():
    same = ([0, 0.1, 0.4, 0.3, -0.2], 0.4, 300)
    counts = group_table({"a": same, "b": same, "c": same})
    t = votes.poststratified_btd(counts, {"a": 1, "b": 1, "c": 1}, level=LEVEL, n_sims=2000, seed=2)
    ps, pooled = (t[t["method"] == m].reset_index(drop=True) for m in ("poststratified", "pooled"))
    np.testing.assert_allclose(ps["theta"], pooled["theta"], atol=1e-8)
    np.testing.assert_allclose(ps["se"], pooled["se"], rtol=1e-6)
    assert ps["p_best"].tolist() == pooled["p_best"].tolist()  # the same draws for both boards


def test_a_group_without_a_census_share_is_named():
    counts = group_table({"a": ([0, 0.1, 0.4, 0.3, -0.2], 0.4, 100), "b": ([0, 0.1, 0.4, 0.3, -0.2], 0.4, 100)})
    with pytest.raises(ValueError, match="no census share for group 'b'"):
        votes.poststratified_btd(counts, {"a": 1.0}, level=LEVEL, n_sims=100, seed=1)


@pytest.fixture(scope="module")
def study_truth():
    return np.array([0.7698248624, 0.8325698856, 1.050144124, 1.211254389, 1.136206739]), 0.4368166014


def test_the_consolidated_board_is_the_humane_simulators(study_truth):
    """With equal census shares the census-weighted truth is the point's board, so the share of studies whose
    consolidated leader is the true top model must be the HUMANE simulator's own ``top_consolidated`` share."""
    from compendium.humane import simulate

    point = votes.comparison_points(*study_truth, group_sd=0.2, budget=2000, n_groups=(3,))[0]
    r = votes.humaine_comparison(point, group_weights=[1, 1, 1], n_reps=30, seed=3, level=LEVEL, n_sims=200)
    sim = simulate.simulate_block(point, range(30), 3)
    assert r["p_top_true_consolidated"] == sim["top_consolidated"].mean()
    assert r == votes.humaine_comparison(point, group_weights=[1, 1, 1], n_reps=30, seed=3, level=LEVEL, n_sims=200)


def test_post_stratification_recovers_the_census_leader_that_pooling_misses(study_truth):
    point = votes.comparison_points(*study_truth, group_sd=0.5, budget=4000, n_groups=(2,))[0]
    r = votes.humaine_comparison(point, group_weights=[0.9, 0.1], n_reps=60, seed=7, level=LEVEL, n_sims=500)
    assert r["p_groups_disagree"] == 1.0
    assert r["p_top_true_poststratified"] - r["p_top_true_consolidated"] > 0.3
    assert r["p_leader_differs_consolidated_lo"] > 0.3 and r["mean_abs_dpbest_consolidated"] > 0.05
    assert r["p_leader_differs_pooled_se"] == pytest.approx(
        np.sqrt(r["p_leader_differs_pooled"] * (1 - r["p_leader_differs_pooled"]) / 59)
    )
    # groups alike and a representative sample: the boards agree
    same = votes.comparison_points(*study_truth, group_sd=0.0, budget=4000, n_groups=(2,))[0]
    r0 = votes.humaine_comparison(same, group_weights=[1, 1], n_reps=60, seed=7, level=LEVEL, n_sims=500)
    assert r0["p_groups_disagree"] == 0.0 and r0["p_leader_differs_pooled"] <= 0.1


def test_one_group_or_wrong_shares_are_refused(study_truth):
    one = votes.comparison_points(*study_truth, group_sd=0.2, budget=2000, n_groups=(1,))[0]
    with pytest.raises(ValueError, match="at least 2"):
        votes.humaine_comparison(one, group_weights=[1], n_reps=5, seed=1, level=LEVEL, n_sims=10)
    two = votes.comparison_points(*study_truth, group_sd=0.2, budget=2000, n_groups=(2,))[0]
    with pytest.raises(ValueError, match="census shares"):
        votes.humaine_comparison(two, group_weights=[1, 1, 1], n_reps=5, seed=1, level=LEVEL, n_sims=10)


# ----------------------------------------------------------------------------------------------
# the synthetic full release, and the import rule
# ----------------------------------------------------------------------------------------------


def test_on_the_synthetic_release_the_audits_run_and_say_what_it_cannot_show():
    """``compendium.data.synthetic_hitl.make_study_rows(seed=1)``: the hub's layout, no display order, and response
    texts whose lengths are set by the model (so the style control is not identified on it)."""
    from compendium.data.synthetic_hitl import make_study_rows

    norm = rowlevel.normalise_annotations(make_study_rows(seed=1))
    pos = votes.position_effect(norm, level=LEVEL)
    assert pos["kind"] == "canonical_side" and pos["n_decisive"] == 1239
    style = votes.style_controlled_bt(norm, level=LEVEL, tie_weight=0.5)
    assert style.attrs["features"] == ["length"] and style.attrs["features_constant"] == ["headers", "bold", "lists"]
    assert style.set_index("term").loc["length", "r2_on_models"] > 0.999
    s = votes.rater_influence_summary(votes.rater_influence(norm, tie_weight=0.5))
    assert s["n_participants"] == 305 and s["leader"] == "recipe_c" and s["n_change_leader"] == 0


def test_importing_the_module_loads_no_heavy_library():
    code = (
        "import sys, compendium.audit.votes\n"
        "print([m for m in ('statsmodels', 'pingouin', 'matplotlib.pyplot') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"

"""Votes: what the human-preference study's judgements can and cannot say about its leaderboard.

Four audits of the study's 1,507 pairwise human judgements of five models, and of the ranking model of
Prolific's HUMAINE leaderboard, on the canonical row-level frame ``norm`` of
:func:`compendium.preferences.rowlevel.normalise_annotations` (``participant_id, scenario_id, a_model, b_model,
side_choice`` A / B / tie, ``model_x, model_y, outcome``; ``displayed_first`` when the rows record it; ``a_text,
b_text`` when they carry the responses):

* :func:`position_effect` - does the response shown first win more often? (and, when the display order is not
  recorded, the only thing the rows can test instead: the grid's canonical A / B side asymmetry);
* :func:`style_controlled_bt` - LMArena's style control: Bradley-Terry strengths with and without the answers'
  length and markdown differences as covariates;
* :func:`rater_influence` - leave one participant out: does any single rater move the board?
* :func:`poststratified_btd` and :func:`humaine_comparison` - HUMAINE's ranking model (Bradley-Terry-Davidson per
  demographic group, post-stratified to census margins) against the consolidation of per-group tournaments that
  the HUMANE scale chapter simulates (:mod:`compendium.humane.simulate`) and against one pooled fit.

The bundled data are the study's pair counts only (``data/hitl/published_pair_counts.csv``); the first three
audits need the rows (the hub's ``annotations`` config), the fourth needs demographic groups, which the study's
release does not have: it runs on simulated studies. Every function is pure (frames and arrays in, plain data
out). Random streams: ``np.random.default_rng([seed, k])`` with :data:`K_PBEST` (P(best) of
:func:`poststratified_btd`) and :data:`K_COMPARISON` (P(best) in :func:`humaine_comparison`, with the point's
key appended); the simulated studies themselves are the HUMANE simulator's
(``SeedSequence(seed, spawn_key=(point key, repetition))``, :func:`compendium.humane.simulate.repetition_rng`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from ..data.errors import DataValidationError, require_columns
from ..humane import simulate as hsim
from ..preferences import rowlevel
from ..preferences.reproduce import MODELS
from ..stats import pairwise as pw

__all__ = [
    "K_PBEST",
    "K_COMPARISON",
    "POSITION_UNMEASURABLE",
    "STYLE_NEEDS_TEXTS",
    "position_effect",
    "style_counts",
    "style_controlled_bt",
    "rater_influence",
    "rater_influence_summary",
    "BTDFit",
    "btd_fit",
    "p_best",
    "poststratified_btd",
    "poststratified_summary",
    "comparison_points",
    "humaine_comparison",
]

#: ``default_rng([seed, K_PBEST])``: the normal draws of :func:`poststratified_btd`'s P(best)
K_PBEST = 301
#: ``default_rng([seed, K_COMPARISON, point key])``: the normal draws of :func:`humaine_comparison`'s P(best)
K_COMPARISON = 302
#: power of the minimum detectable effects: (z_{1-(1-level)/2} + z_{POWER}) * SE
POWER = 0.80

#: What the rows can say about position when they do not record the display order (the chapter's sentence).
POSITION_UNMEASURABLE = (
    "The rows do not record which response was displayed first (no displayed_first_model, shown_first_model, "
    "left_model, display_a_model, display_swapped or swapped column), so a position bias cannot be measured. The "
    "interface randomised the display order per participant, and under a balanced randomisation a position bias "
    "adds the same share to both canonical sides: the share of votes for the grid's side A then tests only whether "
    "side A carried the preferred response more often (the canonical side asymmetry), not whether people favour the "
    "response they see first"
)
#: Why :func:`style_controlled_bt` gives the plain strengths only.
STYLE_NEEDS_TEXTS = (
    "The style control needs the two responses' texts (response_a / response_b on the hub, a_text / b_text in the "
    "authors' export): the rows have neither pair, so only the plain Bradley-Terry strengths are given"
)


def _z(level: float) -> float:
    """The two-sided normal quantile of ``level`` (0.95 -> 1.959964)."""
    if not 0.0 < float(level) < 1.0:
        raise ValueError(f"level must be strictly between 0 and 1, got {level!r}")
    return float(stats.norm.ppf(0.5 + float(level) / 2.0))


def _mde(se, level: float):
    """Minimum detectable effect at 80 % power, two-sided at ``level``: (z_{1-(1-level)/2} + z_{0.80}) * SE."""
    return (_z(level) + float(stats.norm.ppf(POWER))) * np.asarray(se, dtype=float)


def _models(*columns) -> list[str]:
    """The models named in ``columns``: the study's (:data:`MODELS`) in its order, then any other in order of
    first appearance."""
    seen = list(pd.unique(pd.concat([pd.Series(np.asarray(c, dtype=object)) for c in columns], ignore_index=True)))
    return [m for m in MODELS if m in seen] + [m for m in seen if m not in MODELS]


def _centre(theta_ref: np.ndarray, cov_ref: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Log-strengths with the first model as reference (``theta_ref`` (..., K) with 0 first, its covariance (..., K,
    K) with a zero first row and column) -> centred log-strengths (sum to zero) and their covariance ``C S C``,
    ``C = I - 1/K`` (rank K - 1: a common shift is no part of a ranking)."""
    K = theta_ref.shape[-1]
    C = np.eye(K) - 1.0 / K
    return theta_ref - theta_ref.mean(-1, keepdims=True), C @ cov_ref @ C


def _ranks(theta: np.ndarray) -> np.ndarray:
    """Rank of each model (1 = strongest), ties broken by model order."""
    order = np.argsort(-theta, axis=-1, kind="stable")
    return np.argsort(order, axis=-1, kind="stable") + 1


# ----------------------------------------------------------------------------------------------
# 1. Position
# ----------------------------------------------------------------------------------------------


def position_effect(norm: pd.DataFrame, *, level: float) -> dict:
    """The displayed side's effect on the vote: among decisive judgements, the share that chose the response
    displayed first, its Wilson interval at ``level``, the exact binomial p against 50 %, and the minimum
    detectable effect at the study's n (80 % power, two-sided at ``level``: ``(z + z_0.80) * 0.5 / sqrt(n)``, as a
    deviation from 50 %). Computed by :func:`compendium.preferences.rowlevel.position_bias` (no second copy here).

    When the rows do not record the display order (``displayed_first`` absent: neither layout of the study has
    it), a position bias is not measurable (:data:`POSITION_UNMEASURABLE`): the only testable share is the grid's
    canonical side asymmetry, the share of decisive votes for side A
    (:func:`compendium.preferences.rowlevel.canonical_side_asymmetry`), returned with the same fields and
    ``kind = "canonical_side"``. Under a balanced randomisation of the display order, a position bias moves both
    canonical sides alike, so this share tests where the grid put the preferred model, not position.

    Returns a dict: ``kind`` ("position" or "canonical_side"), ``displayed_first_recorded``, ``n_decisive``,
    ``k`` (votes for the first-shown response / for side A), ``share``, ``effect`` (share - 0.5), ``lo``, ``hi``
    (Wilson at ``level``), ``binom_p``, ``flagged`` (the interval excludes 0.5), ``mde`` (the smallest |effect|
    the study's n detects with 80 % power), ``tie_share``, ``level``.
    """
    require_columns(norm, ("a_model", "b_model", "side_choice"), "annotations (normalised)")
    z = _z(level)
    pos = rowlevel.position_bias(norm, z=z)
    if pos is not None:
        kind, n, k, share = "position", pos["n_decisive"], pos["chose_first"], pos["share_first"]
        r = pos
    else:
        r = rowlevel.canonical_side_asymmetry(norm, z=z)
        kind, n, k, share = "canonical_side", r["n_decisive"], r["chose_a"], r["share_a"]
    lo, hi = float(r["wilson_lo"]), float(r["wilson_hi"])
    return {
        "kind": kind,
        "displayed_first_recorded": pos is not None,
        "n_decisive": int(n),
        "k": int(k),
        "share": float(share),
        "effect": float(share) - 0.5,
        "lo": lo,
        "hi": hi,
        "binom_p": float(r["binom_p"]),
        "flagged": bool(lo > 0.5 or hi < 0.5),
        "mde": float(_mde(0.5 / np.sqrt(n), level)) if n else float("nan"),
        "tie_share": float((norm["side_choice"] == "tie").mean()),
        "level": float(level),
    }


# ----------------------------------------------------------------------------------------------
# 2. Style control (LMArena)
# ----------------------------------------------------------------------------------------------

# The markdown counts of LMArena's style control, transcribed from the definitions of arena-hard-auto's
# add_markdown_info.py (the features the "Does style matter?" post controls): fenced code blocks are removed first;
# a header is a line starting with 1-6 '#' and a space; a list item a line starting with "1. " (ordered) or "- ",
# "* ", "+ " (unordered); bold is **text** or __text__ within a line.
_CODE_BLOCK = re.compile(r"```[^`]+```")
_HEADER = re.compile(r"^#{1,6}\s", re.MULTILINE)
_ORDERED = re.compile(r"^\s*\d+\.\s", re.MULTILINE)
_UNORDERED = re.compile(r"^\s*[-*+]\s", re.MULTILINE)
_BOLD_STARS = re.compile(r"\*\*[^*\n]+\*\*")
_BOLD_UNDERSCORES = re.compile(r"__[^_\n]+__")
#: the style features, in the order of the output table
STYLE_FEATURES = ("length", "headers", "bold", "lists")


def style_counts(texts) -> pd.DataFrame:
    """Per text: ``length`` (characters of the whole text; LMArena counts tokens, the study's rows have no
    tokenizer) and the markdown counts ``headers``, ``bold``, ``lists`` (list items) of LMArena's style control,
    counted after fenced code blocks are removed (the regular expressions above, transcribed from arena-hard-auto's
    ``add_markdown_info.py``)."""
    s = pd.Series(texts, dtype=object).fillna("").astype(str)
    body = s.map(lambda t: _CODE_BLOCK.sub("", t))
    return pd.DataFrame(
        {
            "length": s.str.len().to_numpy(dtype=float),
            "headers": body.map(lambda t: len(_HEADER.findall(t))).to_numpy(dtype=float),
            "bold": body.map(lambda t: len(_BOLD_STARS.findall(t)) + len(_BOLD_UNDERSCORES.findall(t))).to_numpy(
                dtype=float
            ),
            "lists": body.map(lambda t: len(_ORDERED.findall(t)) + len(_UNORDERED.findall(t))).to_numpy(dtype=float),
        }
    )


def _logit_fit(y, X, w):
    """Maximum-likelihood logistic regression without intercept (statsmodels GLM, binomial, ``freq_weights``):
    coefficients, their covariance (inverse Fisher information) and whether the fit converged."""
    import statsmodels.api as sm

    res = sm.GLM(y, X, family=sm.families.Binomial(), freq_weights=w).fit()
    return np.asarray(res.params, dtype=float), np.asarray(res.cov_params(), dtype=float), bool(res.converged)


def style_controlled_bt(norm: pd.DataFrame, *, level: float, tie_weight: float) -> pd.DataFrame:
    """LMArena's style control: Bradley-Terry strengths with and without the answers' style as covariates.

    Definition (LMArena, "Does style matter? Disentangling style and substance in Chatbot Arena", 2024; its code,
    FastChat's ``construct_style_matrices``, gives the details transcribed here). Each judgement ``n`` is a row of
    a logistic regression without intercept of "A wins" on ``X_n`` (``+1`` in the column of side A's model, ``-1``
    in side B's; the first model, in :data:`MODELS` order, is the reference with log-strength 0) and, for the
    style-controlled fit, the style features ``Z_n``: for each count f of :func:`style_counts` (``length`` in
    characters; ``headers``, ``bold``, ``lists``), ``(f_A - f_B) / (f_A + f_B + 1)`` (the post's normalised
    difference; the code adds 1 to the sum so that two answers without markdown give 0, not 0 / 0), standardised
    over the judgements (mean 0, SD 1, the post's "normalize"). ``P(A wins) = sigmoid(X_n' beta + Z_n' gamma)``.
    A feature constant over the rows (e.g. no markdown in any answer) cannot be standardised and is left out, and
    so is one that is an exact linear combination of the model columns and the features before it (its effect is
    not identified; ``attrs["features_collinear"]``).

    Ties: a tie enters as the outcome 1/2 with weight ``2 * tie_weight``, i.e. ``tie_weight`` of a win to each
    side, the convention of :func:`compendium.stats.pairwise.win_matrix_from_counts`: ``tie_weight = 0.5`` splits
    each tie into half a win each way (the study's convention, and what LMArena's style-control code does: outcome
    0.5), ``0`` drops the ties (what LMArena's earlier Elo code did). The plain fit is therefore exactly the
    study's Bradley-Terry model at that tie weight (tested against ``choix``).

    Written with statsmodels' GLM rather than LMArena's L-BFGS because the intervals need the information matrix
    (LMArena bootstraps instead) and its fits are regularised (a ridge on the coefficients) where this one is the
    plain maximum likelihood. Intervals are Wald intervals at ``level``.

    Returns one row per model (``kind = "model"``) and per style feature used (``kind = "style"``): ``term``;
    for models the centred log-strength (sum to zero over models) of the plain fit, ``plain, plain_se, plain_lo,
    plain_hi, plain_rank`` (1 = strongest), and of the style-controlled fit, ``controlled, controlled_se,
    controlled_lo, controlled_hi, controlled_rank``; for features the coefficient (log-odds of "A wins" per SD of the
    normalised difference) in ``controlled*``, its two-sided Wald ``p`` and minimum detectable coefficient ``mde``
    (80 % power), ``feature_sd`` (the SD used to standardise) and ``r2_on_models`` (R^2 of the standardised feature
    on the model design: near 1, the pair of models already determines the style difference and the style control
    cannot separate the two). ``attrs``: ``n_rows, n_decisive, n_ties, tie_weight, level, features,
    features_constant, features_collinear, texts`` (whether the rows carry texts) and ``converged``. Without texts the controlled
    columns are NaN and ``attrs["note"]`` is :data:`STYLE_NEEDS_TEXTS`.
    """
    require_columns(norm, ("a_model", "b_model", "side_choice"), "annotations (normalised)")
    if not 0.0 <= float(tie_weight) <= 1.0:
        raise ValueError(f"tie_weight must be between 0 and 1, got {tie_weight!r}")
    z = _z(level)
    models = _models(norm["a_model"], norm["b_model"])
    K = len(models)
    idx = {m: k for k, m in enumerate(models)}
    side = norm["side_choice"].to_numpy(dtype=object)
    y = np.select([side == "A", side == "B"], [1.0, 0.0], default=0.5)
    w = np.where(side == "tie", 2.0 * float(tie_weight), 1.0)
    keep = w > 0
    a = norm["a_model"].map(idx).to_numpy()[keep]
    b = norm["b_model"].map(idx).to_numpy()[keep]
    y, w = y[keep], w[keep]
    n = len(y)
    Xm = np.zeros((n, K))
    Xm[np.arange(n), a] += 1.0
    Xm[np.arange(n), b] -= 1.0
    Xm = Xm[:, 1:]  # the first model is the reference

    def strengths(beta, cov):
        th = np.concatenate([[0.0], beta[: K - 1]])
        full = np.zeros((K, K))
        full[1:, 1:] = cov[: K - 1, : K - 1]
        th, full = _centre(th, full)
        return th, np.sqrt(np.clip(np.diag(full), 0.0, None))

    beta_p, cov_p, conv_p = _logit_fit(y, Xm, w)
    th_p, se_p = strengths(beta_p, cov_p)
    out = pd.DataFrame(
        {
            "kind": "model",
            "term": models,
            "plain": th_p,
            "plain_se": se_p,
            "plain_lo": th_p - z * se_p,
            "plain_hi": th_p + z * se_p,
            "plain_rank": _ranks(th_p),
        }
    )
    attrs = {
        "n_rows": int(len(norm)),
        "n_decisive": int((side != "tie").sum()),
        "n_ties": int((side == "tie").sum()),
        "tie_weight": float(tie_weight),
        "level": float(level),
        "texts": "a_text" in norm.columns,
        "features": [],
        "features_constant": [],
        "features_collinear": [],
        "converged": conv_p,
    }
    nan_cols = ("controlled", "controlled_se", "controlled_lo", "controlled_hi", "controlled_rank")
    if "a_text" not in norm.columns:
        for c in (*nan_cols, "p", "mde", "feature_sd", "r2_on_models"):
            out[c] = np.nan
        out["controlled_rank"] = out["controlled_rank"].astype("Int64")
        attrs["note"] = STYLE_NEEDS_TEXTS
        out.attrs.update(attrs)
        return out
    ca = style_counts(norm["a_text"].to_numpy()[keep])
    cb = style_counts(norm["b_text"].to_numpy()[keep])
    ratio = (ca - cb) / (ca + cb + 1.0)
    sd = ratio.std(ddof=0)
    varying = [f for f in STYLE_FEATURES if sd[f] > 0]
    used, Z = [], np.empty((n, 0))
    for f in varying:  # a feature that is a linear combination of the models and the features before it is left out
        col = ((ratio[f] - ratio[f].mean()) / sd[f]).to_numpy()[:, None]
        trial = np.hstack([Xm, Z, col])
        if np.linalg.matrix_rank(trial) == trial.shape[1]:
            used.append(f)
            Z = np.hstack([Z, col])
    attrs["features"] = used
    attrs["features_constant"] = [f for f in STYLE_FEATURES if f not in varying]
    attrs["features_collinear"] = [f for f in varying if f not in used]
    beta_c, cov_c, conv_c = _logit_fit(y, np.hstack([Xm, Z]), w)
    attrs["converged"] = conv_p and conv_c
    th_c, se_c = strengths(beta_c, cov_c)
    out["controlled"] = th_c
    out["controlled_se"] = se_c
    out["controlled_lo"] = th_c - z * se_c
    out["controlled_hi"] = th_c + z * se_c
    out["controlled_rank"] = _ranks(th_c)
    g = beta_c[K - 1 :]
    g_se = np.sqrt(np.clip(np.diag(cov_c)[K - 1 :], 0.0, None))
    design = np.hstack([np.ones((n, 1)), Xm])
    r2 = []
    for col in Z.T:
        resid = col - design @ np.linalg.lstsq(design, col, rcond=None)[0]
        r2.append(1.0 - float(resid @ resid) / float(col @ col))
    feats = pd.DataFrame(
        {
            "kind": "style",
            "term": used,
            "controlled": g,
            "controlled_se": g_se,
            "controlled_lo": g - z * g_se,
            "controlled_hi": g + z * g_se,
            "p": 2.0 * stats.norm.sf(np.abs(g) / g_se),
            "mde": _mde(g_se, level),
            "feature_sd": sd[used].to_numpy(),
            "r2_on_models": r2,
        }
    )
    out = pd.concat([out, feats], ignore_index=True)
    out[["plain_rank", "controlled_rank"]] = out[["plain_rank", "controlled_rank"]].astype("Int64")
    out.attrs.update(attrs)
    return out


# ----------------------------------------------------------------------------------------------
# 3. Rater influence (leave one participant out)
# ----------------------------------------------------------------------------------------------


def _strongly_connected(E: np.ndarray) -> np.ndarray:
    """Whether each directed graph of the stack ``E`` (..., K, K) (``E[i, j]``: an edge i -> j) is strongly
    connected, by repeated squaring of the reachability matrix (integer products: exact)."""
    K = E.shape[-1]
    R = (np.asarray(E, dtype=bool) | np.eye(K, dtype=bool)).astype(np.int64)
    for _ in range(max(1, int(np.ceil(np.log2(K))))):
        R = ((R @ R) > 0).astype(np.int64)
    return R.astype(bool).all((-1, -2))


def _bt_exists(W: np.ndarray) -> np.ndarray:
    """Whether the Bradley-Terry maximum-likelihood estimate of each win matrix exists (finite, unique): the
    graph with an edge i -> j when i has some credit against j (``W[i, j] > 0``) is strongly connected
    (Hunter 2004, Assumption 1)."""
    return _strongly_connected(np.asarray(W) > 0)


def _bt_log(W: np.ndarray) -> np.ndarray:
    """Centred Bradley-Terry log-strengths of a stack of win matrices, by the study's MM algorithm
    (:func:`compendium.stats.pairwise.bradley_terry_mm`) run to 1e-12 instead of the published 1e-6, because the
    leave-one-out changes are compared with each other and are small."""
    fit = pw.bradley_terry_mm(W, tol=1e-12, max_iter=200_000)
    if not np.all(fit.converged):
        raise RuntimeError("rater_influence: a Bradley-Terry fit did not converge in 200,000 MM iterations")
    th = np.log(fit.strengths)
    return th - th.mean(-1, keepdims=True)


def rater_influence(norm: pd.DataFrame, *, tie_weight: float) -> pd.DataFrame:
    """Leave one participant out: how far does any single rater move the Bradley-Terry board?

    For every participant p, the study's Bradley-Terry model (ties as ``tie_weight`` of a win to each side,
    :func:`compendium.stats.pairwise.win_matrix_from_counts`' convention; the study's 0.5) is refitted to all
    judgements but p's, and compared with the fit to all judgements (centred log-strengths). Written as a loop of
    win matrices (all fits in one batched MM call) rather than with a library because no library has a
    leave-one-cluster-out Bradley-Terry; the influence of a cluster on an estimate is the case-deletion
    diagnostic of Cook (1977) with the participant as the case.

    Returns one row per participant, most influential first (largest ``max_abs_change``; ties by participant id):
    ``participant_id``, ``n_judgements``, ``n_ties``, ``max_abs_change`` (largest |change| of a centred
    log-strength), ``max_change_model`` (whose), ``max_change_in_se`` (largest |change| / that model's standard
    error in the fit to all judgements), ``leader_all``, ``leader_without`` (the top model without p),
    ``leader_changes``, ``ranking_changes`` (any rank differs), ``n_models_moved`` (models whose rank differs) and
    ``fit_exists`` (False when, without p, some model has no credit against the others, so the estimate is not
    finite: its changes are NaN, and it counts as changing the ranking). Summarise with
    :func:`rater_influence_summary`.
    """
    require_columns(norm, ("participant_id", "a_model", "b_model", "side_choice"), "annotations (normalised)")
    if not 0.0 <= float(tie_weight) <= 1.0:
        raise ValueError(f"tie_weight must be between 0 and 1, got {tie_weight!r}")
    models = _models(norm["a_model"], norm["b_model"])
    K = len(models)
    idx = {m: k for k, m in enumerate(models)}
    a = norm["a_model"].map(idx).to_numpy()
    b = norm["b_model"].map(idx).to_numpy()
    side = norm["side_choice"].to_numpy(dtype=object)
    code, pids = pd.factorize(norm["participant_id"].astype(str), sort=True)
    P = len(pids)
    W = np.zeros((P, K, K))
    dec = side != "tie"
    win = np.where(side == "A", a, b)
    lose = np.where(side == "A", b, a)
    np.add.at(W, (code[dec], win[dec], lose[dec]), 1.0)
    np.add.at(W, (code[~dec], a[~dec], b[~dec]), float(tie_weight))
    np.add.at(W, (code[~dec], b[~dec], a[~dec]), float(tie_weight))
    W_all = W.sum(0)
    if not _bt_exists(W_all):
        raise DataValidationError(
            "annotations: the Bradley-Terry fit of all judgements has no finite estimate (some model has no win or "
            "counted tie against the others); rater influence needs a board that exists"
        )
    th_all = _bt_log(W_all[None])[0]
    se_all = np.sqrt(np.clip(np.diag(pw.bradley_terry_log_covariance(np.exp(th_all), W_all)), 0.0, None))
    W_loo = np.clip(W_all[None] - W, 0.0, None)
    exists = _bt_exists(W_loo)
    th_loo = np.full((P, K), np.nan)
    if exists.any():
        th_loo[exists] = _bt_log(W_loo[exists])
    d = np.abs(th_loo - th_all[None])
    order_all = np.argsort(-th_all, kind="stable")
    rank_all = _ranks(th_all)
    rank_loo = np.where(exists[:, None], _ranks(np.nan_to_num(th_loo, nan=0.0)), 0)
    leader_loo = np.array([models[k] for k in np.nanargmax(np.where(exists[:, None], th_loo, 0.0), axis=1)])
    worst = np.where(exists, np.nanargmax(np.where(exists[:, None], d, 0.0), axis=1), 0)
    per = pd.DataFrame(
        {
            "participant_id": np.asarray(pids, dtype=object),
            "n_judgements": np.bincount(code, minlength=P),
            "n_ties": np.bincount(code[~dec], minlength=P),
            "max_abs_change": np.where(exists, np.nanmax(np.where(exists[:, None], d, 0.0), axis=1), np.nan),
            "max_change_model": np.where(exists, np.asarray(models, dtype=object)[worst], None),
            "max_change_in_se": np.where(exists, np.nanmax(np.where(exists[:, None], d / se_all, 0.0), axis=1), np.nan),
            "leader_all": models[order_all[0]],
            "leader_without": np.where(exists, leader_loo, None),
            "leader_changes": ~exists | (leader_loo != models[order_all[0]]),
            "ranking_changes": ~exists | (rank_loo != rank_all[None]).any(1),
            "n_models_moved": np.where(exists, (rank_loo != rank_all[None]).sum(1), K),
            "fit_exists": exists,
        }
    )
    per = per.sort_values(
        ["max_abs_change", "participant_id"], ascending=[False, True], kind="stable", na_position="first"
    )
    return per.reset_index(drop=True)


def rater_influence_summary(table: pd.DataFrame) -> dict:
    """What :func:`rater_influence`'s table says in sentences: ``n_participants``, ``leader`` (fit to all
    judgements), ``n_change_leader`` / ``n_change_ranking`` (participants whose removal alone changes the top
    model / any rank), ``change_leader`` (their ids), ``n_no_fit`` (removals leaving no finite estimate), the most
    influential participant (``top_participant``, ``top_n_judgements``, ``top_max_abs_change``,
    ``top_max_change_in_se``) and the median ``max_abs_change`` over participants."""
    top = table.iloc[0]
    return {
        "n_participants": int(len(table)),
        "leader": str(table["leader_all"].iloc[0]),
        "n_change_leader": int(table["leader_changes"].sum()),
        "n_change_ranking": int(table["ranking_changes"].sum()),
        "change_leader": [str(p) for p in table.loc[table["leader_changes"], "participant_id"]],
        "n_no_fit": int((~table["fit_exists"]).sum()),
        "top_participant": str(top["participant_id"]),
        "top_n_judgements": int(top["n_judgements"]),
        "top_max_abs_change": float(top["max_abs_change"]),
        "top_max_change_in_se": float(top["max_change_in_se"]),
        "median_max_abs_change": float(table["max_abs_change"].median()),
    }


# ----------------------------------------------------------------------------------------------
# 4. HUMAINE's ranking model: Bradley-Terry-Davidson per group, post-stratified
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BTDFit:
    """Batched Bradley-Terry-Davidson fits (:func:`btd_fit`): ``theta`` (..., K) centred log-strengths, ``nu``
    (...) the tie parameter, ``cov`` (..., K, K) the covariance of ``theta`` (inverse observed information, the tie
    parameter's uncertainty included; rank K - 1), ``converged`` and ``exists`` (...) (the estimate is finite;
    where not, ``theta``, ``nu`` and ``cov`` are NaN)."""

    theta: np.ndarray
    nu: np.ndarray
    cov: np.ndarray
    converged: np.ndarray
    exists: np.ndarray


def _btd_parts(x: np.ndarray, counts: np.ndarray, i: np.ndarray, j: np.ndarray, info: bool):
    """Davidson log-likelihood at ``x`` (..., K) = (log-strengths of models 1..K-1, model 0's fixed at 0; log nu),
    and with ``info`` its gradient and observed information (negative Hessian), both (..., K) / (..., K, K).

    Per pair, ``log D = log(e^{t_i} + e^{t_j} + e^{log nu + (t_i + t_j)/2})`` is a log-sum-exp of three linear
    forms with gradients ``l_1 = e_i``, ``l_2 = e_j``, ``l_3 = (e_i + e_j)/2 + e_nu`` and softmax weights ``(a, b,
    c)`` (the three outcome probabilities), so its Hessian is ``sum_k p_k l_k l_k' - m m'``, ``m = sum_k p_k l_k``;
    the rest of the log-likelihood is linear in the parameters, so the information is ``sum_pairs n_ij`` times
    that covariance (it does not depend on the outcomes)."""
    Km = x.shape[-1]
    lead = x.shape[:-1]
    th = np.concatenate([np.zeros(lead + (1,)), x[..., :-1]], axis=-1)
    ti, tj = th[..., i], th[..., j]
    u3 = x[..., -1:] + 0.5 * (ti + tj)
    m = np.maximum(np.maximum(ti, tj), u3)
    ea, eb, ec = np.exp(ti - m), np.exp(tj - m), np.exp(u3 - m)
    D = ea + eb + ec
    wi, wj, t = counts[..., 0], counts[..., 1], counts[..., 2]
    n = wi + wj + t
    ll = (wi * ti + wj * tj + t * u3 - n * (m + np.log(D))).sum(-1)
    if not info:
        return ll
    a, b, c = ea / D, eb / D, ec / D
    mi, mj, mn = a + c / 2.0, b + c / 2.0, c
    g = np.zeros(lead + (Km + 1,))
    H = np.zeros(lead + (Km + 1, Km + 1))
    blocks = {
        (0, 0): a + c / 4.0 - mi * mi,
        (1, 1): b + c / 4.0 - mj * mj,
        (0, 1): c / 4.0 - mi * mj,
        (0, 2): c / 2.0 - mi * mn,
        (1, 2): c / 2.0 - mj * mn,
        (2, 2): c - mn * mn,
    }
    grads = (wi + t / 2.0 - n * mi, wj + t / 2.0 - n * mj, t - n * mn)
    for p in range(i.size):
        where = (int(i[p]), int(j[p]), Km)
        for r in range(3):
            g[..., where[r]] += grads[r][..., p]
        for (r, s), v in blocks.items():
            e = n[..., p] * v[..., p]
            H[..., where[r], where[s]] += e
            if r != s:
                H[..., where[s], where[r]] += e
    return ll, g[..., 1:], H[..., 1:, 1:]


def btd_fit(counts, n_models: int, *, max_iter: int = 100) -> BTDFit:
    """Maximum-likelihood Bradley-Terry-Davidson (Davidson 1970) fits of a stack of count tables, by Newton's
    method with the analytic information and step halving.

    ``counts`` (..., P, 3): for the ``P = K(K-1)/2`` pairs of :func:`compendium.stats.pairwise.pair_index`, the wins
    of the pair's first model, of its second, and the ties; leading axes are batch axes (groups, simulated studies).
    The model and its likelihood are those of :func:`compendium.stats.pairwise.davidson_fit` (``P(i beats j) =
    pi_i / D``, ``P(tie) = nu sqrt(pi_i pi_j) / D``); the log-likelihood is concave in (log-strengths, log nu), so
    Newton with step halving converges wherever the estimate exists. It exists (finite, unique) when the pair
    graph with an edge i -> j for a win of i or a tie is strongly connected and there are both ties and decisive
    outcomes; elsewhere the result is NaN (``exists`` False).

    Why not ``davidson_fit`` itself: it fits one table at a time in about 80 ms (L-BFGS, then a Newton polish with
    finite-difference Hessians), and the post-stratification comparison needs groups x simulated studies fits (a
    few thousand) plus their covariance; batched, all of them take milliseconds. The two agree to 1e-8 (tested,
    and against a direct ``scipy.optimize`` maximisation). Every element is iterated on its own (a converged one is
    frozen) and no LAPACK is used (:func:`compendium.stats.pairwise.spd_inverse`), so a fit's bits do not depend on
    the batch it is in.
    """
    counts = np.asarray(counts, dtype=float)
    K = int(n_models)
    i, j = pw.pair_index(K)
    if counts.ndim < 2 or counts.shape[-2:] != (i.size, 3):
        raise ValueError(f"btd_fit: counts must have shape (..., {i.size}, 3) for {K} models, got {counts.shape}")
    if np.any(counts < 0):
        raise ValueError("btd_fit: counts must be non-negative")
    lead = counts.shape[:-2]
    wi, wj, t = counts[..., 0], counts[..., 1], counts[..., 2]
    E = np.zeros(lead + (K, K), dtype=bool)
    E[..., i, j] = (wi + t) > 0
    E[..., j, i] = (wj + t) > 0
    ties, total = t.sum(-1), counts.sum((-1, -2))
    exists = (ties > 0) & (total - ties > 0) & _strongly_connected(E)
    safe = np.where(exists[..., None, None], counts, 1.0)  # elements without an estimate run on a stand-in
    tau = np.where(exists, ties / np.where(total > 0, total, 1.0), 1.0 / 3.0)
    x = np.zeros(lead + (K,))
    x[..., -1] = np.log(2.0 * tau / (1.0 - tau))  # nu at which two equal models tie at the observed rate
    ll, g, H = _btd_parts(x, safe, i, j, True)
    done = np.zeros(lead, dtype=bool)
    for _ in range(max_iter):
        step = (pw.spd_inverse(H) * g[..., None, :]).sum(-1)
        step = np.where(done[..., None], 0.0, step)
        scale = np.ones(lead)
        for _ in range(60):
            x_try = x + scale[..., None] * step
            worse = ~(_btd_parts(x_try, safe, i, j, False) >= ll - 1e-12 * np.abs(ll))
            if not worse.any():
                break
            scale = np.where(worse, scale / 2.0, scale)
        moved = np.abs(scale[..., None] * step).max(-1)
        x = x_try
        ll, g, H = _btd_parts(x, safe, i, j, True)
        done |= moved < 1e-13
        if done.all():
            break
    converged = exists & (np.abs(g).max(-1) <= 1e-6)
    cov_red = pw.spd_inverse(H)
    th = np.concatenate([np.zeros(lead + (1,)), x[..., :-1]], axis=-1)
    full = np.zeros(lead + (K, K))
    full[..., 1:, 1:] = cov_red[..., : K - 1, : K - 1]
    th, cov = _centre(th, full)
    nan = ~exists
    return BTDFit(
        theta=np.where(nan[..., None], np.nan, th),
        nu=np.where(nan, np.nan, np.exp(x[..., -1])),
        cov=np.where(nan[..., None, None], np.nan, cov),
        converged=converged,
        exists=exists,
    )


def p_best(theta, cov, z) -> np.ndarray:
    """P(best) of each model under the normal approximation ``theta ~ N(theta_hat, cov)`` of a fit's posterior:
    the share of the draws ``theta_hat + A z`` (``cov = A A'``, by the symmetric square root, so a singular
    covariance such as that of centred log-strengths works) in which the model is the largest. ``theta`` (..., K),
    ``cov`` (..., K, K), ``z`` standard normal draws (S, K) or (..., S, K); returns (..., K). The same ``z`` for two
    boards gives common random numbers: their P(best) differ by the boards, not by the draws."""
    theta = np.asarray(theta, dtype=float)
    w, V = np.linalg.eigh(np.asarray(cov, dtype=float))
    A = V * np.sqrt(np.clip(w, 0.0, None))[..., None, :]
    draws = theta[..., None, :] + np.einsum("...sk,...lk->...sl", np.asarray(z, dtype=float), A)
    best = draws.argmax(-1)
    K = theta.shape[-1]
    return (best[..., None] == np.arange(K)).mean(-2)


def _group_counts(counts_by_group: pd.DataFrame) -> tuple[list, list[str], np.ndarray]:
    """The groups, the models and the (G, P, 3) counts of a long table ``group, model_x, model_y, x_wins, y_wins,
    ties`` (the shape of ``rowlevel.aggregate_pair_counts(norm, by=("group",))``)."""
    cols = ("group", "model_x", "model_y", "x_wins", "y_wins", "ties")
    require_columns(counts_by_group, cols, "counts_by_group")
    df = counts_by_group
    same = (df["model_x"] == df["model_y"]).to_numpy()
    if same.any():
        r = int(np.flatnonzero(same)[0])
        raise DataValidationError(
            f"counts_by_group: row {r + 1}: field model_y: the same model {df['model_x'].iloc[r]!r} on both sides"
        )
    vals = df[["x_wins", "y_wins", "ties"]].apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(vals).all(1) | (vals < 0).any(1)
    if bad.any():
        r = int(np.flatnonzero(bad)[0])
        raise DataValidationError(
            f"counts_by_group: row {r + 1}: fields x_wins, y_wins, ties must be non-negative numbers, got "
            f"{df[['x_wins', 'y_wins', 'ties']].iloc[r].tolist()}"
        )
    groups = list(pd.unique(df["group"]))
    models = _models(df["model_x"], df["model_y"])
    K = len(models)
    idx = {m: k for k, m in enumerate(models)}
    i, j = pw.pair_index(K)
    pair = {(int(a), int(b)): p for p, (a, b) in enumerate(zip(i, j))}
    gidx = {g: k for k, g in enumerate(groups)}
    out = np.zeros((len(groups), i.size, 3))
    for g, mx, my, (xw, yw, t) in zip(df["group"], df["model_x"], df["model_y"], vals):
        ix, iy = idx[mx], idx[my]
        p = pair[(min(ix, iy), max(ix, iy))]
        out[gidx[g], p] += (xw, yw, t) if ix < iy else (yw, xw, t)
    return groups, models, out


def _weights(group_weights, groups: list) -> np.ndarray:
    """Census weights in the order of ``groups``, normalised to sum to 1; every group needs one."""
    if not isinstance(group_weights, Mapping):
        raise TypeError("group_weights must map each group to its census share")
    missing = [g for g in groups if g not in group_weights]
    if missing:
        raise DataValidationError(
            f"group_weights: no census share for group {missing[0]!r} (and {len(missing) - 1} more); give every group "
            "of counts_by_group a share"
        )
    w = np.array([float(group_weights[g]) for g in groups])
    if not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
        raise DataValidationError(f"group_weights: shares must be non-negative with a positive sum, got {w.tolist()}")
    return w / w.sum()


def _consolidated(counts: np.ndarray, K: int, prior_sd: float) -> tuple[np.ndarray, np.ndarray]:
    """The HUMANE consolidation of per-group tournaments, exactly as :func:`compendium.humane.simulate.simulate_block`
    computes it: each group's board is the MAP Bradley-Terry fit (ties as half wins, ``N(0, prior_sd^2)`` prior,
    ``simulate._boards``), the consolidated board the equal-weight mean of the groups' log-strengths; its
    covariance, the groups being independent, the mean of the groups' Laplace covariances divided by G.
    ``counts`` (..., G, P, 3) -> centred log-strengths (..., K) and covariance (..., K, K)."""
    i, j = pw.pair_index(K)
    thg, covg = hsim._boards(counts, K, i, j, prior_sd)
    G = counts.shape[-3]
    th = thg.mean(-2)
    C = np.eye(K) - 1.0 / K
    return th - th.mean(-1, keepdims=True), C @ (covg.sum(-3) / (G * G)) @ C


def poststratified_btd(
    counts_by_group: pd.DataFrame, group_weights: Mapping, *, level: float, n_sims: int, seed: int
) -> pd.DataFrame:
    """HUMAINE's ranking model on group counts: Bradley-Terry-Davidson per demographic group, post-stratified to
    census shares; beside it the HUMANE consolidation of per-group tournaments and one pooled fit.

    HUMAINE ranks with a hierarchical Bayesian Bradley-Terry-Davidson model post-stratified to census margins
    (TrueSkill only chooses the pairs while collecting). Here, without MCMC: each group's counts get a maximum-
    likelihood Davidson fit (:func:`btd_fit`), and the population's board is the census-weighted mean of the
    groups' centred log-strengths, ``theta_ps = sum_g w_g theta_g`` (post-stratification, as in multilevel regression
    and post-stratification, applied to the log-strengths), with covariance ``sum_g w_g^2 Cov_g`` (independent
    groups). Not done: the hierarchical shrinkage of the groups towards each other (a refinement that matters when
    a group has few votes per pair; with the hundreds per pair simulated here the groups' estimates barely move).
    Compared with:

    * ``consolidated``: the per-group tournaments combined as the HUMANE scale chapter does
      (:func:`compendium.humane.simulate.simulate_block`: MAP Bradley-Terry boards, ties as half wins, prior SD
      :attr:`compendium.humane.simulate.Point.prior_sd`, averaged with equal weights);
    * ``pooled``: one Davidson fit of all groups' counts summed, unweighted (each group counts by its sample size).

    P(best) of each board from its approximate normal posterior (:func:`p_best`, ``n_sims`` draws of
    ``default_rng([seed, K_PBEST])``, the same draws for every board), with its Monte Carlo standard error
    ``sqrt(p (1 - p) / n_sims)``. ``counts_by_group``: columns ``group, model_x, model_y, x_wins, y_wins, ties``
    (``rowlevel.aggregate_pair_counts(norm, by=("group",))`` gives it); ``group_weights``: group -> census share
    (normalised here).

    Returns one row per board and model: ``method`` ("group", "poststratified", "consolidated", "pooled"),
    ``group`` (the group of a "group" row, else None), ``weight`` (the group's normalised census share), ``model``,
    ``theta`` (centred log-strength), ``se``, ``lo``, ``hi`` (Wald at ``level``), ``rank`` (1 = strongest),
    ``p_best``, ``p_best_mc_se``, ``nu`` (Davidson tie parameter of a group's or the pooled fit). Summarise with
    :func:`poststratified_summary`.
    """
    z = _z(level)
    groups, models, counts = _group_counts(counts_by_group)
    w = _weights(group_weights, groups)
    K = len(models)
    fits = btd_fit(counts, K)
    if not fits.exists.all():
        g = groups[int(np.flatnonzero(~fits.exists)[0])]
        raise DataValidationError(
            f"counts_by_group: group {g!r}: its Davidson fit has no finite estimate (it needs ties, decisive votes, "
            "and every model with a win or tie against the others); merge the group with a neighbour or collect more "
            "votes in it"
        )
    pooled = btd_fit(counts.sum(0), K)
    if not pooled.exists:
        raise DataValidationError("counts_by_group: the pooled Davidson fit has no finite estimate")
    ps_theta = (w[:, None] * fits.theta).sum(0)
    ps_cov = (w[:, None, None] ** 2 * fits.cov).sum(0)
    cons_theta, cons_cov = _consolidated(counts, K, hsim.Point.prior_sd)
    zs = np.random.default_rng([int(seed), K_PBEST]).standard_normal((int(n_sims), K))
    boards = [("group", g, w[k], fits.theta[k], fits.cov[k], float(fits.nu[k])) for k, g in enumerate(groups)]
    boards += [
        ("poststratified", None, np.nan, ps_theta, ps_cov, np.nan),
        ("consolidated", None, np.nan, cons_theta, cons_cov, np.nan),
        ("pooled", None, np.nan, pooled.theta, pooled.cov, float(pooled.nu)),
    ]
    rows = []
    for method, g, wt, th, cov, nu in boards:
        se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
        pb = p_best(th, cov, zs)
        rows.append(
            pd.DataFrame(
                {
                    "method": method,
                    "group": [g] * K,
                    "weight": wt,
                    "model": models,
                    "theta": th,
                    "se": se,
                    "lo": th - z * se,
                    "hi": th + z * se,
                    "rank": _ranks(th),
                    "p_best": pb,
                    "p_best_mc_se": np.sqrt(pb * (1.0 - pb) / int(n_sims)),
                    "nu": nu,
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


def poststratified_summary(table: pd.DataFrame) -> dict:
    """The leaders of :func:`poststratified_btd`'s boards: for ``poststratified``, ``consolidated`` and ``pooled``,
    ``leader_<method>`` and ``p_best_<method>`` (the leader's P(best)) with ``p_best_<method>_mc_se``; whether the
    post-stratified leader differs from the consolidated one and from the pooled one; and ``n_group_leaders``, the
    number of distinct group leaders (1: the groups agree on the top model)."""
    out: dict = {}
    for method in ("poststratified", "consolidated", "pooled"):
        r = table[(table["method"] == method) & (table["rank"] == 1)].iloc[0]
        out[f"leader_{method}"] = str(r["model"])
        out[f"p_best_{method}"] = float(r["p_best"])
        out[f"p_best_{method}_mc_se"] = float(r["p_best_mc_se"])
    out["ps_differs_from_consolidated"] = out["leader_poststratified"] != out["leader_consolidated"]
    out["ps_differs_from_pooled"] = out["leader_poststratified"] != out["leader_pooled"]
    g = table[(table["method"] == "group") & (table["rank"] == 1)]
    out["n_group_leaders"] = int(g["model"].nunique())
    return out


def comparison_points(
    study_pi, study_nu: float, *, group_sd: float, budget: int, n_groups: Sequence[int] = (5, 22)
) -> list[hsim.Point]:
    """The grid points of the HUMANE scale study at which :func:`humaine_comparison` is run: 5 models with the
    study's Davidson strengths and tie parameter (``study_pi``, ``study_nu``: ``compendium.humane.grid.study_truth()``),
    uniform pairs, ``n_groups`` groups whose log-strengths are perturbed with SD ``group_sd`` (the parameter
    ``humane.group_sd``), scored once, at ``budget`` judgements. With the study's small spread (SD of log-strengths
    about 0.17) and a group SD of 0.2, the groups' boards disagree on the top model in most simulated studies: the
    points where pooling, consolidating and post-stratifying can differ."""
    theta = hsim.strengths(len(np.atleast_1d(study_pi)), "study", study_pi, 0.0)
    return [
        hsim.Point(
            n_models=theta.size,
            spread="study",
            theta=tuple(float(v) for v in np.round(theta, 12)),
            nu=float(study_nu),
            n_groups=int(G),
            group_sd=float(group_sd),
            design="uniform",
            checkpoints=(int(budget),),
        )
        for G in n_groups
    ]


def _share(x) -> tuple[float, float]:
    """Mean of a 0/1 or real array over simulated studies and its Monte Carlo standard error."""
    x = np.asarray(x, dtype=float)
    return float(x.mean()), float(x.std(ddof=1) / np.sqrt(x.size)) if x.size > 1 else float("nan")


def humaine_comparison(
    point: hsim.Point, *, group_weights: Sequence[float], n_reps: int, seed: int, level: float, n_sims: int
) -> dict:
    """Over ``n_reps`` studies simulated at one grid point of the HUMANE scale study, how often HUMAINE's
    post-stratified Bradley-Terry-Davidson board (:func:`poststratified_btd`'s method, census shares
    ``group_weights``) has another leader than the HUMANE consolidation of per-group tournaments and than the pooled
    Davidson fit, and by how much their P(best) differ.

    Each study is the HUMANE simulator's (:mod:`compendium.humane.simulate`: judgements drawn at the point with
    its design, groups drawn with equal shares, each group's log-strengths the point's plus a centred normal
    perturbation of SD ``point.group_sd``; ``SeedSequence(seed, spawn_key=(point key, repetition))``), its counts
    taken at the point's last checkpoint. ``group_weights`` are the census shares of the point's groups (the
    simulator's sample has equal shares; unequal census shares make the sample unrepresentative, the case
    post-stratification is for). P(best) of each board from its normal posterior (:func:`p_best`, ``n_sims`` draws
    per study from ``default_rng([seed, K_COMPARISON, point key])``, the same draws for the three boards).

    Returns a dict of floats, each share or mean over the simulated studies with its Monte Carlo standard error
    (``*_se``) and normal Monte Carlo interval at ``level`` (``*_lo``, ``*_hi``): ``p_groups_disagree`` (the groups' true boards do not share one top model) and
    ``p_group_fits_disagree`` (the fitted group boards do not); ``p_leader_differs_consolidated`` and
    ``p_leader_differs_pooled`` (post-stratified against each); ``mean_abs_dpbest_consolidated`` and
    ``mean_abs_dpbest_pooled`` (|P(best) of the post-stratified leader - P(best) of the other board's leader|, the
    printed numbers); ``mean_tv_consolidated`` / ``mean_tv_pooled`` (half the summed |differences| of the two
    P(best) vectors); ``p_top_true_<board>`` (the board's leader is the top model of the census-weighted true
    board ``sum_g w_g theta_g``) and ``mean_pbest_<board>`` (its leader's P(best)) for ``poststratified``,
    ``consolidated``, ``pooled``; and the point's ``n_models, n_groups, group_sd, budget, n_reps, n_sims``.
    """
    G, K = int(point.n_groups), int(point.n_models)
    if G < 2:
        raise ValueError(f"humaine_comparison: the point has {G} group; post-stratification needs at least 2")
    w = np.asarray(group_weights, dtype=float)
    if w.shape != (G,) or not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
        raise ValueError(f"group_weights: need {G} non-negative census shares with a positive sum, got {w.tolist()}")
    w = w / w.sum()
    if int(n_reps) < 2:
        raise ValueError("n_reps must be at least 2 (a Monte Carlo standard error needs two studies)")
    i, j = pw.pair_index(K)
    reps = np.arange(int(n_reps))
    d = hsim._draws(point, int(seed), reps)
    theta_g = np.asarray(point.theta, dtype=float)[None, None, :] + point.group_sd * d["z_grp"]  # (R, G, K)
    if point.design in ("uniform", "arena"):
        counts = hsim._counts_nonadaptive(point, d, theta_g, i, j)
    else:
        counts = hsim._counts_adaptive(point, d, theta_g, i, j)
    counts = counts[:, -1].astype(float)  # (R, G, P, 3) at the budget
    groups = btd_fit(counts, K)
    pooled = btd_fit(counts.sum(1), K)
    if not (groups.exists.all() and pooled.exists.all()):
        r, g = np.argwhere(~groups.exists)[0] if not groups.exists.all() else (np.flatnonzero(~pooled.exists)[0], -1)
        raise ValueError(
            f"humaine_comparison: repetition {int(r)}{'' if g < 0 else f', group {int(g)}'}: the Davidson fit has no "
            "finite estimate (too few judgements per group); raise the point's budget or lower its number of groups"
        )
    boards = {
        "poststratified": ((w[None, :, None] * groups.theta).sum(1), (w[None, :, None, None] ** 2 * groups.cov).sum(1)),
        "consolidated": _consolidated(counts, K, point.prior_sd),
        "pooled": (pooled.theta, pooled.cov),
    }
    zs = np.random.default_rng([int(seed), K_COMPARISON, hsim.point_key(point)]).standard_normal(
        (reps.size, int(n_sims), K)
    )
    pb = {k: p_best(th, cov, zs) for k, (th, cov) in boards.items()}
    lead = {k: th.argmax(-1) for k, (th, _) in boards.items()}
    rows = np.arange(reps.size)
    lead_pb = {k: pb[k][rows, lead[k]] for k in boards}
    true_top = (w[None, :, None] * theta_g).sum(1).argmax(-1)
    true_group_top = theta_g.argmax(-1)
    fit_group_top = groups.theta.argmax(-1)
    out: dict = {
        "n_models": K,
        "n_groups": G,
        "group_sd": float(point.group_sd),
        "budget": int(point.budget),
        "n_reps": int(reps.size),
        "n_sims": int(n_sims),
        "level": float(level),
    }

    z = _z(level)

    def put(name, x):
        m, se = _share(x)
        out[name], out[f"{name}_se"], out[f"{name}_lo"], out[f"{name}_hi"] = m, se, m - z * se, m + z * se

    put("p_groups_disagree", (true_group_top != true_group_top[:, :1]).any(1))
    put("p_group_fits_disagree", (fit_group_top != fit_group_top[:, :1]).any(1))
    for other in ("consolidated", "pooled"):
        put(f"p_leader_differs_{other}", lead["poststratified"] != lead[other])
        put(f"mean_abs_dpbest_{other}", np.abs(lead_pb["poststratified"] - lead_pb[other]))
        put(f"mean_tv_{other}", 0.5 * np.abs(pb["poststratified"] - pb[other]).sum(-1))
    for k in boards:
        put(f"p_top_true_{k}", lead[k] == true_top)
        put(f"mean_pbest_{k}", lead_pb[k])
    return out

"""What the preferences chapter says: every number and phrase its prose quotes, from the analysis results.

The chapter (``notebooks/30_preferences.md``) runs the analysis in a few visible calls, then
:func:`summary` turns their results into the ``{glue:text}`` values of the prose (one flat dict, glued in
one call by :func:`compendium.display.glue_all`), :func:`chapter_values` into the chapter's own
``values.json`` entries, and :func:`chapter_tables` into the CSVs under ``results/preferences/tables``.
:func:`rowlevel_section` handles the optional row-level annotations and :func:`register_section` the
register. Display-only column names are :data:`COLUMNS` (passed to :func:`compendium.display.table`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .. import paths, yamlfile
from ..stats.pairwise import bradley_terry_mm
from . import register, rowlevel
from .montecarlo import mc_round, mc_text
from .reproduce import MODEL_LABELS, MODELS, TRAINED, head_to_head, win_matrix, winrate_vs_base
from .simulation import STRATEGIES, compare_with_uniform, decisive_truth, detectable_saving
from .uncertainty import wilson_rule_familywise_error

#: display names of the chapter's table columns (display only; the CSVs keep the code names)
COLUMNS = {
    "higher_val_model": "metric's favourite",
    "lower_val_model": "other",
    "higher_val_wins": "wins",
    "lower_val_wins": "losses",
    "higher_val_win_rate": "win rate",
    "wilson_lo": "Wilson low",
    "wilson_hi": "Wilson high",
    "delta_val_pref_acc": "Δ metric",
    "sd_log_strength": "bootstrap SD (log)",
    "asymptotic_se_log": "asymptotic SE (log)",
    "p_best": "P(best)",
    "mean_rank": "mean rank",
    "share_of_assigned": "share",
    "bt_half_win": "BT (tie = half win)",
    "bt_rank": "rank",
    "davidson": "Davidson",
    "davidson_rank": "rank ",
    "centred_mu_mean": "centred μ",
    "centred_mu_sd_over_orders": "SD over orders",
    "mu_sd_over_orders": "raw μ SD",
    "sigma_mean": "mean σ",
    "p_top": "P(top)",
    "log_gap": "log(π_C/π_D)",
    "ratio_to_estimate": "× estimate",
    "n_needed": "decisive judgements needed",
    "n_mc_interval": "90 % Monte Carlo interval",
    "share_of_bootstrap_gaps_below": "share of bootstrap gaps below",
    "published_procedure": "published procedure",
    "mm_converged": "MM converged",
    "abs_diff_procedure_vs_choix": "|procedure − choix|",
    "abs_diff_converged_vs_choix": "|converged − choix|",
}

_LABELS = {"model": MODEL_LABELS}

#: how each table of the chapter is displayed: keyword arguments of :func:`compendium.display.table`, which
#: applies them in this order: ``columns`` kept, ``rename`` (code -> display names), ``formats`` (by display
#: name), ``labels`` (model ids -> names, by display name). Display only: the CSVs keep the data
VIEWS: dict[str, dict[str, Any]] = {
    "counts": {
        "columns": ["model_x", "model_y", "x_wins", "y_wins", "ties", "n"],
        "labels": {"model_x": MODEL_LABELS, "model_y": MODEL_LABELS},
    },
    "pairs": {
        "columns": [
            "higher_val_model",
            "lower_val_model",
            "higher_val_wins",
            "lower_val_wins",
            "ties",
            "n",
            "higher_val_win_rate",
            "wilson_lo",
            "wilson_hi",
            "delta_val_pref_acc",
            "signal",
        ],
        "rename": COLUMNS,
        "labels": {"metric's favourite": MODEL_LABELS, "other": MODEL_LABELS},
    },
    "record": {"labels": _LABELS},
    "crosscheck": {
        "columns": [
            "model",
            "published_procedure",
            "mm_converged",
            "choix",
            "abs_diff_procedure_vs_choix",
            "abs_diff_converged_vs_choix",
        ],
        "rename": COLUMNS,
        "labels": _LABELS,
        "formats": {
            "published procedure": "{:.10f}",
            "MM converged": "{:.10f}",
            "choix": "{:.10f}",
            "|procedure − choix|": "{:.1e}",
            "|converged − choix|": "{:.1e}",
        },
    },
    "themes": {"columns": ["label", "count", "share_of_assigned", "example_quote"], "rename": COLUMNS},
    "bootstrap": {"rename": COLUMNS, "labels": _LABELS},  # bootstrap_view adds the level to ci_lo / ci_hi
    "davidson": {"rename": COLUMNS, "labels": _LABELS},
    "trueskill": {
        "columns": [
            "environment",
            "model",
            "centred_mu_mean",
            "centred_mu_sd_over_orders",
            "mu_sd_over_orders",
            "sigma_mean",
            "p_top",
            "mean_rank",
        ],
        "rename": COLUMNS,
        "labels": _LABELS,
    },
    "gap": {"rename": COLUMNS, "formats": {"decisive judgements needed": "{:,.0f}"}},
}


def bootstrap_view(ci_level: float) -> dict[str, Any]:
    """:data:`VIEWS` entry of the bootstrap tables, with the interval level in the names of its bounds."""
    v = VIEWS["bootstrap"]
    return v | {"rename": v["rename"] | {"ci_lo": f"{ci_level:.0%} low", "ci_hi": f"{ci_level:.0%} high"}}


#: the notebook parameters :func:`summary` reads (``params``)
PARAMS = (
    "n_bootstrap",
    "ci_level",
    "trueskill_orders",
    "sim_budget",
    "sim_repetitions",
    "sim_checkpoint_every",
    "sim_batch",
    "sim_arena_skew",
    "sim_target",
)

#: the analysis results :func:`summary`, :func:`chapter_values` and :func:`chapter_tables` read
INPUTS = (
    "counts",
    "by_category",
    "prompts",
    "themes",
    "cat_check",
    "claims",
    "pairs",
    "record",
    "bt",
    "crosscheck",
    "rho",
    "rho_ci",
    "cat_bt",
    "cat_wr",
    "cat_pairs",
    "themes_tbl",
    "themes_check",
    "boot",
    "boot_summary",
    "rank_probs",
    "het",
    "boot_cl",
    "cd",
    "h2h",
    "holm",
    "dav_tbl",
    "dav",
    "ts_default",
    "ts_static",
    "ts_libdiff",
    "true_strengths",
    "sim",
    "needed",
    "at_study",
    "mc",
    "params",
)


def _check(r: Mapping[str, Any]) -> None:
    missing = [k for k in INPUTS if k not in r]
    if missing:
        raise KeyError(f"preferences summary: missing analysis results {missing}")


def survive_phrase(n: int) -> str:
    """How many pairs survive a correction, as the prose says it: "none survives", "1 survives", "2 survive"."""
    if n < 0:
        raise ValueError(f"a count of pairs cannot be negative: {n}")
    return "none survives" if n == 0 else f"{n} survives" if n == 1 else f"{n} survive"


def pairs_phrase(n: int) -> str:
    """``n`` pairs with the noun agreeing: "no pair", "1 pair", "3 pairs"."""
    if n < 0:
        raise ValueError(f"a count of pairs cannot be negative: {n}")
    return "no pair" if n == 0 else "1 pair" if n == 1 else f"{n} pairs"


def published_claims(path: str | Path | None = None) -> dict[str, Any]:
    """``{claim id: published value}`` of ``published/hitl.yaml`` (the prose quotes a few beside ours)."""
    reg = yamlfile.load(path or paths.PUBLISHED / "hitl.yaml")
    return {c["id"]: c["published"] for c in reg["claims"]}


def n_decisive(counts: pd.DataFrame) -> int:
    return int(counts["x_wins"].sum() + counts["y_wins"].sum())


def bt_vs_published(bt: pd.DataFrame, pub: Mapping[str, Any]) -> float:
    """Largest |our BT strength - published| over the trained recipes."""
    s = bt.set_index("model")["strength"]
    return float(max(abs(s[m] - pub[f"hitl.bt.{m}"]) for m in TRAINED))


def category_leaders(cat_bt: pd.DataFrame) -> str:
    """ "Recipe C in advice, ...; ..." : the strongest model per prompt category, grouped by model."""
    leaders = cat_bt.idxmax(axis=1)
    return "; ".join(
        f"{MODEL_LABELS[m]} in {', '.join(c.replace('_', ' ') for c in leaders.index[leaders == m])}"
        for m in MODELS
        if (leaders == m).any()
    )


def category_model_decisive(by_category: pd.DataFrame) -> pd.Series:
    """Decisive judgements per (category, model), over the model's four pairs."""
    dec = by_category.assign(d=by_category["x_wins"] + by_category["y_wins"])
    return (
        pd.concat(
            [
                dec[["category", "model_x", "d"]].rename(columns={"model_x": "m"}),
                dec[["category", "model_y", "d"]].rename(columns={"model_y": "m"}),
            ]
        )
        .groupby(["category", "m"])["d"]
        .sum()
    )


def rank_shares(boot) -> dict[str, float]:
    """Shares of bootstrap replicates with the untrained model and Recipe A in the bottom two / untrained last."""
    r_s = (-boot.strengths).argsort(1).argsort(1)  # 0 = best
    ui, ai = MODELS.index("untrained"), MODELS.index("recipe_a")
    return {
        "bottom_pair": float(((r_s[:, ui] >= 3) & (r_s[:, ai] >= 3)).mean()),
        "untrained_last": float((r_s[:, ui] == 4).mean()),
    }


def gap_section(r: Mapping[str, Any]) -> dict[str, Any]:
    """The C-D gap: its Davidson-scale estimate, the bootstrap draws, the adjacent gaps of the truth, and
    the needed-by-gap table of the ``preferences_mc`` stage (``r["mc"]``, simulated at every gap) with
    the share of bootstrap gaps below each, for the rows where C-D stays the closest pair."""
    ts, boot, cd = r["true_strengths"], r["boot"], r["cd"]
    ci_, di_ = MODELS.index("recipe_c"), MODELS.index("recipe_d")
    gap_hat = float(np.log(ts[ci_] / ts[di_]))
    cd_draws = np.log(boot.strengths[:, ci_] / boot.strengths[:, di_])
    order = list(np.argsort(-np.log(ts), kind="stable"))
    adjacent = [
        (MODELS[a], MODELS[b], float(np.log(ts[a] / ts[b]))) for a, b in zip(order[:-1], order[1:], strict=True)
    ]
    mc = r["mc"]["gap"]
    kept = mc[mc["closest_pair"].astype(bool)].reset_index(drop=True)
    se = kept["n_mc_se"].to_numpy(float)
    gap_tbl = pd.DataFrame(
        {
            "ratio_to_estimate": kept["factor"].to_numpy(float),
            "log_gap": kept["log_gap"].to_numpy(float),
            "n_needed": [mc_round(n, e) for n, e in zip(kept["n_needed"], se, strict=True)],
            "n_mc_interval": [
                f"{mc_round(lo, e):,.0f}–{mc_round(hi, e):,.0f}"
                for lo, hi, e in zip(kept["n_mc_lo"], kept["n_mc_hi"], se, strict=True)
            ],
            "share_of_bootstrap_gaps_below": [
                float((cd_draws * gap_hat / cd["log_ratio"] < g).mean()) for g in kept["log_gap"]
            ],
        }
    )
    dropped = [f"×{f:g}" for f in mc.loc[~mc["closest_pair"].astype(bool), "factor"]]
    return {
        "gap_hat": gap_hat,
        "cd_draws": cd_draws,
        "adjacent": adjacent,
        "gap_tbl": gap_tbl,
        "kept": kept,
        "dropped": dropped,
        "dropped_txt": " and ".join(dropped) or "none",
    }


def mc_section(r: Mapping[str, Any]) -> dict[str, Any]:
    """The ``preferences_mc`` numbers the prose quotes: judgements needed at the estimated gap and at
    half and a quarter of it, each to the digits its Monte Carlo error supports."""
    v, kept = r["mc"]["values"], gap_section(r)["kept"].set_index("factor")

    def txt(f: float) -> str:
        row = kept.loc[f]
        return mc_text(row["n_needed"], row["n_mc_lo"], row["n_mc_hi"], row["n_mc_se"])

    n1, se1 = v["pref_mc.uniform.n_for_ranking"], v["pref_mc.uniform.n_for_ranking_mc_se"]
    return {
        "n": n1,
        "n_rounded": mc_round(n1, se1),
        "txt": mc_text(n1, v["pref_mc.uniform.n_for_ranking_mc_lo"], v["pref_mc.uniform.n_for_ranking_mc_hi"], se1),
        "half_txt": txt(0.5) if 0.5 in kept.index else "not simulated",
        "quarter_txt": txt(0.25) if 0.25 in kept.index else "not simulated",
        "repetitions": int(v["pref_mc.repetitions"]),
        "target": float(v["pref_mc.target"]),
    }


def simulation_comparison(r: Mapping[str, Any]) -> tuple[int, pd.DataFrame]:
    """The budget where uniform sampling first reaches the target, and each design compared with it there."""
    nd = r["needed"].set_index("strategy")
    v = nd.loc["uniform", "n_for_ranking"]
    n_cmp = int(v) if np.isfinite(v) else int(r["params"]["sim_budget"])
    return n_cmp, compare_with_uniform(r["sim"], n_cmp).set_index("strategy")


def _verdict(cmp: pd.DataFrame, s: str) -> str:
    row = cmp.loc[s]
    word = {
        "more": "recovers the full ranking more often than uniform sampling",
        "less": "recovers the full ranking less often than uniform sampling",
        "no detectable difference": "recovers the full ranking about as often as uniform sampling",
    }[row["verdict"]]
    return (
        f"{word} ({row['p_ranking']:.1%} vs {row['p_ranking_uniform']:.1%} of simulated studies; difference "
        f"{100 * row['difference']:+.1f} percentage points, 95 % interval {100 * row['diff_lo']:+.1f} to "
        f"{100 * row['diff_hi']:+.1f})"
    )


def _ts(ts) -> pd.DataFrame:
    return ts.summary().set_index("model")


def summary(r: Mapping[str, Any], pub: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Every ``{glue:text}`` value of the chapter's prose, keyed by its glue name.

    ``r`` maps each name of :data:`INPUTS` to the chapter's analysis result of that name (``params`` is
    the dict of the notebook's parameters); ``pub`` the published claims (default: the register's).
    """
    _check(r)
    p = r["params"]
    pub = published_claims() if pub is None else pub
    counts, by_category, claims, bt = r["counts"], r["by_category"], r["claims"], r["bt"]
    out: dict[str, Any] = {}
    # the data
    out.update(
        pref_cat_match=int(r["cat_check"]["match"].sum()),
        pref_n_pairs=len(counts),
        pref_n_prompts=len(r["prompts"]),
        pref_n_categories=int(by_category["category"].nunique()),
        pref_ratings_per_cell=float(counts["n"].sum() / (len(counts) * len(r["prompts"]))),
        pref_cat_nmin=int(by_category["n"].min()),
        pref_cat_nmax=int(by_category["n"].max()),
    )
    # the pair table
    db = head_to_head(counts, "recipe_d", "recipe_b")
    out.update(
        pref_n_ratings=int(claims["hitl.n_ratings"]),
        pref_n_ties=int(claims["hitl.n_ties"]),
        pref_tracking=int(claims["hitl.pairs.tracking"]),
        pref_flipping=int(claims["hitl.pairs.flipping"]),
        pref_n_decisive=n_decisive(counts),
        pref_tie_share=float(claims["hitl.n_ties"] / claims["hitl.n_ratings"]),
        pref_db_d=db["wins"],
        pref_db_b=db["losses"],
    )
    for m, w in winrate_vs_base(counts).items():
        out[f"pref_vs_base_{m}"] = float(w)
    # Bradley-Terry as published
    cc = r["crosscheck"]
    out.update(
        pref_bt_maxdiff=bt_vs_published(bt, pub),
        pref_bt_iter=int(bradley_terry_mm(win_matrix(counts)).n_iter),
        pref_bt_choix_diff=float(cc["abs_diff_procedure_vs_choix"].max()),
        pref_bt_choix_conv=float(cc["abs_diff_converged_vs_choix"].max()),
        pref_pub_bt_untrained=f"{pub['hitl.bt.untrained']}",
        pref_pub_participants=f"{pub['hitl.n_participants']}",
        pref_bt_untrained=float(bt.set_index("model").loc["untrained", "strength"]),
    )
    # the metric and people
    ci = r["rho_ci"]
    out.update(
        pref_rho=float(r["rho"]),
        pref_rho_lo=ci["ci_lo"],
        pref_rho_hi=ci["ci_hi"],
        pref_rho_p=ci["p"],
        pref_rho_n=ci["n"],
    )
    # per category
    per_model = category_model_decisive(by_category)
    out.update(
        pref_cat_leaders=category_leaders(r["cat_bt"]),
        pref_cat_model_nmin=int(per_model.min()),
        pref_cat_model_nmax=int(per_model.max()),
        pref_cat_halfwidth=float(1.96 * np.sqrt(0.25 / per_model.median())),
    )
    # comment themes
    tc = r["themes_check"]
    out.update(
        pref_themes_sum=tc["sum_counts"],
        pref_n_themes=len(r["themes_tbl"]),
        pref_themes_n=tc["n_comments"],
        pref_themes_gap=tc["difference"],
        pref_themes_gap_share=tc["difference"] / tc["n_comments"],
    )
    # bootstrap
    bs = r["boot_summary"].set_index("model")
    out.update(
        pref_n_boot=int(p["n_bootstrap"]),
        pref_boot_sd=float(bs["sd_log_strength"].mean()),
        pref_asym_se=float(bs["asymptotic_se_log"].mean()),
    )
    for m in MODELS:
        out[f"pref_p_best_{m.replace('recipe_', '')}"] = float(bs.loc[m, "p_best"])
    out["pref_p_top2_cd"] = float(r["rank_probs"].loc[["recipe_c", "recipe_d"], "rank_1"].sum())
    shares = rank_shares(r["boot"])
    out.update(pref_p_bottom_pair=shares["bottom_pair"], pref_p_untrained_last=shares["untrained_last"])
    het, cl = r["het"], r["boot_cl"].summary(level=p["ci_level"])
    cd_cl = r["boot_cl"].log_ratio_interval("recipe_c", "recipe_d", level=p["ci_level"])
    widen = cl.set_index("model")["sd_log_strength"] / bs["sd_log_strength"]  # per model
    out.update(
        pref_het_chi2=het["chi2"],
        pref_het_df=het["df"],
        pref_het_p=het["p"],
        pref_het_disp=het["dispersion"],
        pref_cl_sd=float(cl["sd_log_strength"].mean()),
        pref_cl_widen=float(cl["sd_log_strength"].mean() / bs["sd_log_strength"].mean()),
        pref_cl_widen_min=float(widen.min()),
        pref_cl_widen_max=float(widen.max()),
        pref_cl_p_best_c=float(cl.set_index("model").loc["recipe_c", "p_best"]),
        pref_cl_cd_p=cd_cl["p_greater"],
        pref_cl_cd_p_se=100 * float(np.sqrt(cd_cl["p_greater"] * (1 - cd_cl["p_greater"]) / p["n_bootstrap"])),
        pref_cl_cd_lo=cd_cl["ci_lo"],
        pref_cl_cd_hi=cd_cl["ci_hi"],
    )
    # C vs D
    cd, h2h = r["cd"], r["h2h"]
    same_dir = (cd["log_ratio"] > 0) == (h2h["win_rate"] < 0.5)  # pooled C > D and C won the head-to-head
    out.update(
        pref_cd_lo=cd["ci_lo"],
        pref_cd_hi=cd["ci_hi"],
        pref_cd_p=cd["p_greater"],
        pref_cd_p_se=100 * float(np.sqrt(cd["p_greater"] * (1 - cd["p_greater"]) / p["n_bootstrap"])),
        pref_cd_verdict="are separable: the interval excludes equality"
        if cd["separable"]
        else "cannot be separated: the interval of their strength ratio contains 1",
        pref_h2h_d=h2h["wins"],
        pref_h2h_c=h2h["losses"],
        pref_h2h_rate=float(h2h["win_rate"]),
        pref_h2h_lo=float(h2h["wilson_lo"]),
        pref_h2h_hi=float(h2h["wilson_hi"]),
        pref_h2h_p=float(h2h["binom_p"]),
        pref_ci_level=float(p["ci_level"]),
        pref_cd_answer="Yes, at this interval level" if cd["separable"] else "No",
        pref_cd_contains="excludes 0" if cd["separable"] else "contains 0",
        pref_h2h_direction=(
            "the same direction as the pooled ranking" if same_dir else "the opposite direction from the pooled ranking"
        )
        + (", and not significant either" if h2h["binom_p"] >= 0.05 else ""),
        pref_cd_report_verdict="At this interval level the data support the report's \"humans disambiguated the top "
        'two recipes".'
        if cd["separable"]
        else 'The report\'s "humans disambiguated the top two recipes" is not '
        "supported by these data: Recipe C ranks first on the point estimate only.",
    )
    # multiplicity
    holm = r["holm"]
    sig = holm.loc[holm["significant_holm"], ["higher_val_model", "lower_val_model", "p_holm"]]
    n_holm = len(sig)
    wilson_fwer = wilson_rule_familywise_error(counts["x_wins"] + counts["y_wins"])
    out.update(
        pref_unadj_n=int(holm["significant_unadjusted"].sum()),
        pref_holm_n=n_holm,
        pref_holm_survive=survive_phrase(n_holm),
        pref_holm_n_pairs=pairs_phrase(n_holm),
        pref_fwer=float(1 - 0.95 ** len(holm)),
        **{f"pref_fwer_wilson_{k}": x for k, x in wilson_fwer.items()},
        pref_holm_pairs="; ".join(
            f"{MODEL_LABELS[a]} vs {MODEL_LABELS[b]}, Holm p = {q:.3f}" for a, b, q in sig.itertuples(index=False)
        )
        or "none",
    )
    # Davidson
    dav = r["dav"]
    out.update(
        pref_nu=dav["nu"],
        pref_nu_tie=dav["tie_prob_equal_models"],
        pref_davidson_verdict="the same ranking as the half-win fit"
        if dav["same_ranking"]
        else "a different ranking from the half-win fit",
    )
    # TrueSkill
    tsd, tss = _ts(r["ts_default"]), _ts(r["ts_static"])
    strengths = bt.set_index("model").loc[list(MODELS), "strength"].to_numpy()
    gaps = np.diff(np.sort(tsd["centred_mu_mean"].to_numpy()))
    out.update(
        pref_ts_orders=int(p["trueskill_orders"]),
        pref_ts_libdiff=float(r["ts_libdiff"]),
        pref_ts_match_default=float(r["ts_default"].share_matching_ranking(strengths)),
        pref_ts_match_static=float(r["ts_static"].share_matching_ranking(strengths)),
        pref_ts_sd_default=float(tsd["centred_mu_sd_over_orders"].mean()),
        pref_ts_sd_static=float(tss["centred_mu_sd_over_orders"].mean()),
        pref_ts_rawsd_static=float(tss["mu_sd_over_orders"].mean()),
        pref_ts_sigma_static=float(tss["sigma_mean"].mean()),
        pref_ts_gap_min=float(gaps.min()),
        pref_ts_gap_max=float(gaps.max()),
        pref_ts_sigma_default=float(tsd["sigma_mean"].mean()),
        pref_ts_ptop_c=float(tsd.loc["recipe_c", "p_top"]),
    )
    # simulation
    nd, g, nd_ = r["needed"].set_index("strategy"), gap_section(r), n_decisive(counts)
    out.update(
        pref_sim_batch=int(p["sim_batch"]),
        pref_truth_diff=float(np.abs(decisive_truth(counts, "ties_dropped") - r["true_strengths"]).max()),
        pref_gap_hat=g["gap_hat"],
        pref_gap_p_nonpos=float((g["cd_draws"] <= 0).mean()),
        pref_gap_adjacent=", ".join(
            f"{MODEL_LABELS[a].replace('Recipe ', '')}–{MODEL_LABELS[b].replace('Recipe ', '')} {x:.3f}"
            for a, b, x in g["adjacent"]
        ),
        pref_gap_dropped=g["dropped_txt"],
        pref_sim_skew=float(p["sim_arena_skew"]),
        pref_sim_every=int(p["sim_checkpoint_every"]),
        pref_sim_reps=int(p["sim_repetitions"]),
        pref_sim_target=float(p["sim_target"]),
        pref_sim_p_rank_study=r["at_study"]["p_ranking"],
        pref_sim_p_top_study=r["at_study"]["p_top"],
    )
    budget = p["sim_budget"]
    for s in STRATEGIES:
        short = {"uniform": "uniform", "information_gain": "ig", "arena": "arena"}[s]
        for k, col in (("rank", "n_for_ranking"), ("top", "n_for_top")):
            v, lo, hi = nd.loc[s, col], nd.loc[s, f"{col}_mc_lo"], nd.loc[s, f"{col}_mc_hi"]
            out[f"pref_sim_{short}_{k}"] = float(v) if np.isfinite(v) else float(budget)
            out[f"pref_sim_{short}_{k}_txt"] = (
                (f"{v:,.0f} ({lo:,.0f}–{hi:,.0f})" if np.isfinite(lo) else f"{v:,.0f}")
                if np.isfinite(v)
                else f"more than {budget:,}"
            )
    mc = mc_section(r)
    out.update(
        pref_mc_uniform_rank=mc["n_rounded"],
        pref_mc_uniform_rank_txt=mc["txt"],
        pref_mc_gap_half_txt=mc["half_txt"],
        pref_mc_gap_quarter_txt=mc["quarter_txt"],
        pref_mc_reps=mc["repetitions"],
        pref_mc_target=mc["target"],
        pref_sim_ratio=float(mc["n"] / nd_),
    )
    out["pref_sim_tie_factor"] = float(1 / (1 - claims["hitl.n_ties"] / claims["hitl.n_ratings"]))
    n_cmp, cmp = simulation_comparison(r)
    ig = cmp.loc["information_gain", "verdict"]
    alloc = r["sim"].allocation.pivot_table(
        index=["model_i", "model_j"], columns="strategy", values="mean_share", sort=False
    )
    ds = detectable_saving(r["sim"].curves, n_cmp, p["sim_repetitions"])
    out.update(
        pref_sim_cmp_n=n_cmp,
        pref_sim_ig_verdict=_verdict(cmp, "information_gain"),
        pref_sim_arena_verdict=_verdict(cmp, "arena"),
        pref_sim_ig_short={
            "more": "recovers the ranking with fewer judgements than uniform sampling",
            "less": "needs more judgements than uniform sampling",
            "no detectable difference": "does not detectably reduce that number",
        }[ig],
        pref_sim_claim_verdict="is supported" if ig == "more" else "is not supported",
        pref_sim_ig_max_share=float(alloc["information_gain"].max()),
        pref_sim_ig_min_share=float(alloc["information_gain"].min()),
        pref_sim_mdd=100 * ds["mdd"],
        pref_sim_saving=ds["saving"] if np.isfinite(ds["saving"]) else 1.0,
    )
    return out


def chapter_values(r: Mapping[str, Any], pub: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The chapter's own ``values.json`` entries (the report's claims and the ``pref.*`` values)."""
    _check(r)
    p, counts, claims, bt = r["params"], r["counts"], r["claims"], r["bt"]
    pub = published_claims() if pub is None else pub
    cc, bs = r["crosscheck"], r["boot_summary"].set_index("model")
    values: dict[str, Any] = {"pref.category_counts_sum_to_pairs": int(r["cat_check"]["match"].all())}
    values.update(claims)
    values["pref.n_decisive"] = n_decisive(counts)
    values["pref.tie_share"] = claims["hitl.n_ties"] / claims["hitl.n_ratings"]
    values["pref.bt.max_abs_diff_vs_published_trained"] = bt_vs_published(bt, pub)
    values["pref.bt.n_iter"] = int(bradley_terry_mm(win_matrix(counts)).n_iter)
    values["pref.bt.max_abs_diff_procedure_vs_choix"] = float(cc["abs_diff_procedure_vs_choix"].max())
    values["pref.bt.max_abs_diff_converged_vs_choix"] = float(cc["abs_diff_converged_vs_choix"].max())
    ci = r["rho_ci"]
    values.update(
        {
            "pref.spearman.pingouin.rho": ci["rho"],
            "pref.spearman.pingouin.ci": [ci["ci_lo"], ci["ci_hi"]],
            "pref.spearman.pingouin.p": ci["p"],
        }
    )
    values["pref.comment_themes.sum_counts"] = r["themes_check"]["sum_counts"]
    values["pref.comment_themes.n_comments"] = r["themes_check"]["n_comments"]
    for m in MODELS:
        values[f"pref.bootstrap.p_best.{m}"] = float(bs.loc[m, "p_best"])
        values[f"pref.bootstrap.ci_lo.{m}"] = float(bs.loc[m, "ci_lo"])
        values[f"pref.bootstrap.ci_hi.{m}"] = float(bs.loc[m, "ci_hi"])
    shares = rank_shares(r["boot"])
    values["pref.bootstrap.p_bottom_two_untrained_a"] = shares["bottom_pair"]
    values["pref.bootstrap.p_untrained_last"] = shares["untrained_last"]
    het, cl = r["het"], r["boot_cl"].summary(level=p["ci_level"])
    cd_cl = r["boot_cl"].log_ratio_interval("recipe_c", "recipe_d", level=p["ci_level"])
    values.update(
        {
            "pref.category_heterogeneity.chi2": het["chi2"],
            "pref.category_heterogeneity.df": het["df"],
            "pref.category_heterogeneity.p": het["p"],
            "pref.bootstrap_cluster.sd_log_strength_mean": float(cl["sd_log_strength"].mean()),
            "pref.bootstrap_cluster.p_c_stronger_than_d": cd_cl["p_greater"],
            "pref.bootstrap_cluster.c_vs_d_ci": [cd_cl["ci_lo"], cd_cl["ci_hi"]],
        }
    )
    for m in MODELS:
        values[f"pref.bootstrap_cluster.p_best.{m}"] = float(cl.set_index("model").loc[m, "p_best"])
    cd, h2h, holm, dav, dav_tbl = r["cd"], r["h2h"], r["holm"], r["dav"], r["dav_tbl"]
    values.update(
        {
            "pref.c_vs_d.log_ratio": cd["log_ratio"],
            "pref.c_vs_d.ci_lo": cd["ci_lo"],
            "pref.c_vs_d.ci_hi": cd["ci_hi"],
            "pref.c_vs_d.p_c_stronger": cd["p_greater"],
            "pref.c_vs_d.n_bootstrap": int(p["n_bootstrap"]),
            "pref.c_vs_d.separable": int(cd["separable"]),
            "pref.d_vs_c.head_to_head_win_rate": float(h2h["win_rate"]),
            "pref.d_vs_c.head_to_head_binom_p": float(h2h["binom_p"]),
        }
    )
    values["pref.pairs.significant_unadjusted"] = int(holm["significant_unadjusted"].sum())
    values["pref.pairs.significant_holm"] = int(holm["significant_holm"].sum())
    values.update({"pref.davidson.nu": dav["nu"], "pref.davidson.same_ranking_as_bt": dav["same_ranking"]})
    for m, s in zip(dav_tbl["model"], dav_tbl["davidson"], strict=True):
        values[f"pref.davidson.strength.{m}"] = float(s)
    tsd, tss = _ts(r["ts_default"]), _ts(r["ts_static"])
    strengths = bt.set_index("model").loc[list(MODELS), "strength"].to_numpy()
    values.update(
        {
            "pref.trueskill.share_orders_matching_bt.default_tau": r["ts_default"].share_matching_ranking(strengths),
            "pref.trueskill.share_orders_matching_bt.tau0": r["ts_static"].share_matching_ranking(strengths),
            "pref.trueskill.centred_mu_sd_over_orders.default_tau": float(tsd["centred_mu_sd_over_orders"].mean()),
            "pref.trueskill.centred_mu_sd_over_orders.tau0": float(tss["centred_mu_sd_over_orders"].mean()),
            "pref.trueskill.sigma_mean.default_tau": float(tsd["sigma_mean"].mean()),
            "pref.trueskill.library_max_abs_diff": float(r["ts_libdiff"]),
            "pref.trueskill.draw_probability": r["ts_default"].draw_probability,
        }
    )
    values["pref.sim.truth"] = "davidson"
    nd = r["needed"].set_index("strategy")
    for s in STRATEGIES:
        for col in ("n_for_ranking", "n_for_top"):
            values[f"pref.sim.{s}.{col}"] = float(nd.loc[s, col])
    values["pref.sim.uniform.p_ranking_at_study_size"] = r["at_study"]["p_ranking"]
    values["pref.sim.uniform.p_top_at_study_size"] = r["at_study"]["p_top"]
    n_cmp, cmp = simulation_comparison(r)
    values["pref.sim.information_gain.diff_p_ranking_vs_uniform"] = float(cmp.loc["information_gain", "difference"])
    values["pref.sim.arena.diff_p_ranking_vs_uniform"] = float(cmp.loc["arena", "difference"])
    ds = detectable_saving(r["sim"].curves, n_cmp, p["sim_repetitions"])
    values["pref.sim.detectable_difference_pp"] = 100 * ds["mdd"]
    values["pref.sim.detectable_saving"] = ds["saving"]
    return values


def chapter_tables(r: Mapping[str, Any]) -> dict[str, tuple[pd.DataFrame, bool]]:
    """``{name: (table, write the index?)}``: the CSVs the chapter writes under ``results/preferences/tables``."""
    _check(r)
    p, boot = r["params"], r["boot"]
    ts_tbl = trueskill_table(r["ts_default"], r["ts_static"])
    out = {
        "pairs": (r["pairs"], False),
        "model_record": (r["record"], False),
        "bradley_terry": (r["bt"], False),
        "bradley_terry_crosscheck": (r["crosscheck"], False),
        "category_bradley_terry": (r["cat_bt"], True),
        "category_win_rates": (r["cat_wr"], True),
        "category_pairs": (r["cat_pairs"], False),
        "comment_themes": (r["themes_tbl"], False),
        "bt_bootstrap": (r["boot_summary"], False),
        "bt_rank_probabilities": (r["rank_probs"], True),
        "bt_prob_greater": (boot.prob_greater(), True),
        "bt_bootstrap_category_clusters": (r["boot_cl"].summary(level=p["ci_level"]), False),
        "pair_tests_holm": (r["holm"], False),
        "davidson": (r["dav_tbl"], False),
        "trueskill": (ts_tbl, False),
        "simulation_curves": (r["sim"].curves, False),
        "simulation_allocation": (r["sim"].allocation, False),
        "simulation_needed": (r["needed"], False),
    }
    gap_tbl = gap_section(r)["gap_tbl"]
    if gap_tbl is not None:
        out["simulation_needed_by_gap"] = (gap_tbl, False)
    out["simulation_vs_uniform"] = (simulation_comparison(r)[1].reset_index(), False)
    return out


def trueskill_table(ts_default, ts_static) -> pd.DataFrame:
    """The TrueSkill summaries of the two environments (package defaults, tau = 0), stacked."""
    return pd.concat(
        [ts_default.summary().assign(environment="default tau"), ts_static.summary().assign(environment="tau = 0")],
        ignore_index=True,
    )


def c_vs_d_view(cd: Mapping[str, Any], h2h: Mapping[str, Any], ci_level: float) -> tuple[pd.DataFrame, str]:
    """The C-vs-D table for display and the end of its caption (which says whether the two agree)."""
    view = pd.DataFrame(
        {
            "quantity": [
                "log(π_C / π_D), pooled fit",
                f"{ci_level:.0%} bootstrap interval",
                "P(π_C > π_D) over replicates",
                "head to head, D–C (ties)",
                "D's win rate, Wilson 95 %",
                "exact binomial p (50 %)",
            ],
            "value": [
                f"{cd['log_ratio']:+.3f}",
                f"[{cd['ci_lo']:+.3f}, {cd['ci_hi']:+.3f}]",
                f"{cd['p_greater']:.3f}",
                f"{h2h['wins']}–{h2h['losses']} ({h2h['ties']})",
                f"{h2h['win_rate']:.3f} [{h2h['wilson_lo']:.3f}, {h2h['wilson_hi']:.3f}]",
                f"{h2h['binom_p']:.3f}",
            ],
        }
    )
    tail = ("opposite directions" if (cd["log_ratio"] > 0) == (h2h["win_rate"] > 0.5) else "the same direction") + (
        "; neither interval excludes equality."
        if not cd["separable"] and h2h["wilson_lo"] < 0.5 < h2h["wilson_hi"]
        else "; read the intervals for whether equality is excluded."
    )
    return view, tail


def claims_view(claims_tbl: pd.DataFrame) -> pd.DataFrame:
    """The claims-check table for display: ✓ / ✗ / — and our value to 6 significant digits."""

    def ours(v):
        return "" if v is None else f"{v:.6g}" if isinstance(v, float) else str(v)

    view = claims_tbl.assign(
        agrees=claims_tbl["agrees"].map({True: "✓ yes", False: "✗ no"}).fillna("— empty"),
        ours=claims_tbl["ours"].map(ours),
        published=claims_tbl["published"].map(str),
    )
    return view[["claim_id", "level", "published", "ours", "tol", "agrees", "missing"]]


def rowlevel_section(
    annotations_path: str | Path,
    counts: pd.DataFrame,
    by_category: pd.DataFrame,
    prompts: pd.DataFrame,
    pub: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The row-level annotations, if present: ``raw`` (or None), ``text`` (Markdown), ``values``, ``tables``,
    ``participants`` (per-participant activity, for the figure, or None)."""
    from ..safetext import code  # the path is a parameter: a literal code span in the Markdown

    pub = published_claims() if pub is None else pub
    ann_file = rowlevel.annotations_path(annotations_path)
    raw = rowlevel.read_annotations(ann_file) if ann_file.exists() else None
    if raw is None:
        text = (
            f"The row-level annotations ({code(annotations_path)}, the `annotations` config of the Hugging Face "
            "dataset ProlificAI/autoresearch-hitl-annotations, one row per judgement) were not available to this "
            "build, so these register cells are published as empty, each with the missing file named in "
            "`results/preferences/missing.json`: "
            f"`hitl.n_participants` (the report's {pub['hitl.n_participants']}), the 10 × 3 cells of the Fleiss "
            "table, the 8 × 3 cells of the disagreement table, the 5 × 3 example tallies and the two length "
            "ratios (which also need the response texts)."
        )
        return {"raw": None, "text": text, "values": {"pref.rowlevel.available": 0}, "tables": {}, "participants": None}
    ann = rowlevel.normalise_annotations(raw, prompts=prompts)
    agg_check = rowlevel.compare_with_published(rowlevel.aggregate_pair_counts(ann), counts)
    agg_cat_check = rowlevel.compare_with_published(
        rowlevel.aggregate_pair_counts(ann, by=("category",)), by_category, by=("category",)
    )
    kappa = rowlevel.fleiss_table(ann)
    side = rowlevel.canonical_side_asymmetry(ann)
    bias = rowlevel.position_bias(ann)
    per_participant, activity = rowlevel.participant_activity(ann)
    tables = {
        "rowlevel_aggregation_check": agg_check,
        "rowlevel_category_check": agg_cat_check,
        "rowlevel_fleiss_kappa": kappa,
        "rowlevel_disagreement": rowlevel.disagreement_by_category(ann),
        "rowlevel_examples": rowlevel.disagreement_examples(ann),
        "rowlevel_participants": per_participant,
    }
    values = {
        "pref.rowlevel.available": 1,
        "pref.rowlevel.n_rows": len(ann),
        "pref.rowlevel.pairs_match_published": int(agg_check["match"].all()),
        "pref.rowlevel.categories_match_published": int(agg_cat_check["match"].all()),
        "pref.rowlevel.canonical_side_a_share": side["share_a"],
        "pref.rowlevel.canonical_side_binom_p": side["binom_p"],
        "pref.rowlevel.judgements_per_participant_median": activity["median"],
        "pref.rowlevel.n_rows_without_choice": ann.attrs["n_without_choice"],
        "pref.rowlevel.n_duplicate_rows": ann.attrs["n_duplicate_rows"],
    }
    if bias is not None:
        values.update(
            {
                "pref.rowlevel.position_first_share": bias["share_first"],
                "pref.rowlevel.position_binom_p": bias["binom_p"],
            }
        )
    bias_text = (
        "The rows record the displayed order: the response shown first was chosen in "
        f"{bias['share_first']:.1%} of decisive judgements (exact binomial p = {bias['binom_p']:.3f})."
        if bias is not None
        else "The rows do not record the displayed order, so no position bias is computed."
    )
    text = (
        f"The row-level annotations are present ({code(annotations_path)}, {len(ann):,} rows). "
        f"They aggregate to the published pair counts in {int(agg_check['match'].sum())} of {len(agg_check)} "
        f"pairs and to the category counts in {int(agg_cat_check['match'].sum())} of {len(agg_cat_check)} cells. "
        f"**{activity['n_participants']} distinct participants** made between {activity['min']} and "
        f"{activity['max']} judgements each (median {activity['median']:.0f}). Fleiss' κ per pair over its "
        f"scenarios with exactly three ratings ({kappa['n_items'].min()}–{kappa['n_items'].max()} per pair) "
        f"ranges from {kappa['kappa'].min():.2f} to {kappa['kappa'].max():.2f}. Canonical-side asymmetry: side A "
        f"was chosen in {side['share_a']:.1%} of {side['n_decisive']:,} decisive judgements (Wilson 95 % interval "
        f"{side['wilson_lo']:.3f}–{side['wilson_hi']:.3f}, exact binomial p = {side['binom_p']:.3f}). {bias_text} "
        "The tables are `rowlevel_*.csv`."
    )
    skipped, dup = ann.attrs["n_without_choice"], ann.attrs["n_duplicate_rows"]
    text += (
        f" Of the {ann.attrs['n_rows_read']:,} rows read, {skipped:,} had no choice and were skipped, as the "
        "study's report skips them (their participants still count among the participants, as in the report); "
        + (
            f"{dup:,} row(s) repeat a participant's judgement of the same scenario and are counted, as the "
            "report counts every row."
            if dup
            else "no row repeats a participant's judgement of the same scenario."
        )
    )
    return {"raw": raw, "text": text, "values": values, "tables": tables, "participants": per_participant}


def _missing_reason(s: str) -> str:
    return (
        "row-level annotations"
        if "annotations.parquet" in s
        else "model checkpoints (outside)"
        if "checkpoints" in s
        else "design constant (quoted)"
        if "quoted" in s
        else s
    )


def register_section(
    values: Mapping[str, Any],
    counts: pd.DataFrame,
    by_category: pd.DataFrame,
    prompts: pd.DataFrame,
    themes: dict,
    annotations: pd.DataFrame | None,
) -> tuple[dict[str, Any], dict[str, Any], dict[str, str], pd.DataFrame]:
    """The register (:func:`compendium.preferences.register.register_values`, with the scenario votes) merged
    into the chapter's ``values``: (merged values, register values, register missing, empty values by input)."""
    from .. import data

    reg_values, reg_missing = register.register_values(
        counts, by_category, prompts, themes, annotations=annotations, examples=data.load_hitl_scenario_votes()
    )
    merged, reg_summary = merge_register(values, reg_values, reg_missing)
    return merged, reg_values, reg_missing, reg_summary


def merge_register(
    values: Mapping[str, Any], reg_values: Mapping[str, Any], reg_missing: Mapping[str, str]
) -> tuple[dict[str, Any], pd.DataFrame]:
    """Merge the register's values into the chapter's (they must agree where both exist): (merged values, the
    summary of empty values by missing input). Raises ``ValueError`` on a clash."""
    clash = {
        k
        for k in reg_values
        if k in values
        and values[k] != reg_values[k]
        and not (isinstance(values[k], float) and np.isclose(values[k], reg_values[k], rtol=0, atol=1e-12))
    }
    if clash:
        raise ValueError(f"register values differ from the chapter's: {sorted(clash)}")
    merged = {**values, **reg_values}
    reasons = pd.Series(dict(reg_missing), dtype=object).map(_missing_reason)
    reg_summary = reasons.value_counts().rename_axis("missing input").reset_index(name="empty values")
    return merged, reg_summary


def register_summary(
    reg_values: Mapping[str, Any], reg_missing: Mapping[str, str], claims_tbl: pd.DataFrame
) -> dict[str, Any]:
    """The prose numbers of the register and claims-check sections."""
    n_cells = sum(len(register.cell_ids(t)) for t in register.load_layout())
    agrees = claims_tbl["agrees"]
    return {
        "pref_reg_cells": n_cells,
        "pref_reg_text": len(reg_values) - n_cells - sum(".variant." in k for k in reg_values),
        "pref_reg_null": len(reg_missing),
        "pref_n_reproduced": int((agrees == True).sum()),  # noqa: E712
        "pref_n_disagree": int((agrees == False).sum()),  # noqa: E712
        "pref_n_computed": int(agrees.notna().sum()),
        "pref_n_empty": int(agrees.isna().sum()),
        "pref_n_claims": len(claims_tbl),
    }

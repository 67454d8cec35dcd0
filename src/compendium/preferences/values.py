"""What the preferences stage records: its own ``values.json`` entries (``pref.*``) and its tables, from one
build's result (:class:`compendium.preferences.build.PreferencesResult`).

:func:`stage_values` is the union of one small mapping per section (:data:`VALUE_SECTIONS`), :func:`tables` the
tables under ``results/preferences/tables``; the chapter hands both, with the register's values
(:func:`compendium.preferences.register.register_values`), to :func:`compendium.chapter.publish.publish`, which
merges them (a key given two different values raises) and writes them. :func:`register_missing` is the table of
the register's empty values by the input they wait for. Nothing here computes what the result holds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pandas as pd

from compendium.pipeline.results import merge_values

from .reproduce import MODELS
from .simulation import STRATEGIES

if TYPE_CHECKING:
    from .build import PreferencesResult

__all__ = ["VALUE_SECTIONS", "stage_values", "tables", "register_missing"]


def report_values(r: PreferencesResult) -> dict[str, Any]:
    rep, cc = r.report, r.report.crosscheck
    ci = rep.rho_ci
    return {
        "pref.category_counts_sum_to_pairs": int(rep.cat_check["match"].all()),
        "pref.n_decisive": rep.n_decisive,
        "pref.tie_share": rep.n_ties / rep.n_ratings,
        "pref.bt.max_abs_diff_vs_published_trained": rep.max_diff_vs_published,
        "pref.bt.n_iter": rep.bt_n_iter,
        "pref.bt.max_abs_diff_procedure_vs_choix": float(cc["abs_diff_procedure_vs_choix"].max()),
        "pref.bt.max_abs_diff_converged_vs_choix": float(cc["abs_diff_converged_vs_choix"].max()),
        "pref.spearman.pingouin.rho": ci["rho"],
        "pref.spearman.pingouin.ci": [ci["ci_lo"], ci["ci_hi"]],
        "pref.spearman.pingouin.p": ci["p"],
        "pref.comment_themes.sum_counts": r.themes.check["sum_counts"],
        "pref.comment_themes.n_comments": r.themes.check["n_comments"],
    }


def bootstrap_values(r: PreferencesResult) -> dict[str, Any]:
    bs = r.bootstrap.summary.set_index("model")
    values: dict[str, Any] = {}
    for m in MODELS:
        values[f"pref.bootstrap.p_best.{m}"] = float(bs.loc[m, "p_best"])
        values[f"pref.bootstrap.ci_lo.{m}"] = float(bs.loc[m, "ci_lo"])
        values[f"pref.bootstrap.ci_hi.{m}"] = float(bs.loc[m, "ci_hi"])
    shares = r.bootstrap.rank_shares
    values["pref.bootstrap.p_bottom_two_untrained_a"] = shares["bottom_pair"]
    values["pref.bootstrap.p_untrained_last"] = shares["untrained_last"]
    return values


def cluster_values(r: PreferencesResult) -> dict[str, Any]:
    het, cl, cd_cl = r.categories.heterogeneity, r.cluster.summary, r.cluster.c_vs_d
    values = {
        "pref.category_heterogeneity.chi2": het["chi2"],
        "pref.category_heterogeneity.df": het["df"],
        "pref.category_heterogeneity.p": het["p"],
        "pref.bootstrap_cluster.sd_log_strength_mean": float(cl["sd_log_strength"].mean()),
        "pref.bootstrap_cluster.p_c_stronger_than_d": cd_cl["p_greater"],
        "pref.bootstrap_cluster.c_vs_d_ci": [cd_cl["ci_lo"], cd_cl["ci_hi"]],
    }
    for m in MODELS:
        values[f"pref.bootstrap_cluster.p_best.{m}"] = float(cl.set_index("model").loc[m, "p_best"])
    return values


def c_vs_d_values(r: PreferencesResult) -> dict[str, Any]:
    cd, h2h, holm = r.bootstrap.c_vs_d, r.tests.d_vs_c, r.tests.holm
    return {
        "pref.c_vs_d.log_ratio": cd["log_ratio"],
        "pref.c_vs_d.ci_lo": cd["ci_lo"],
        "pref.c_vs_d.ci_hi": cd["ci_hi"],
        "pref.c_vs_d.p_c_stronger": cd["p_greater"],
        "pref.c_vs_d.n_bootstrap": int(r.params.n_bootstrap),
        "pref.c_vs_d.separable": int(cd["separable"]),
        "pref.d_vs_c.head_to_head_win_rate": float(h2h["win_rate"]),
        "pref.d_vs_c.head_to_head_binom_p": float(h2h["binom_p"]),
        "pref.pairs.significant_unadjusted": int(holm["significant_unadjusted"].sum()),
        "pref.pairs.significant_holm": int(holm["significant_holm"].sum()),
    }


def davidson_values(r: PreferencesResult) -> dict[str, Any]:
    dav, tbl = r.davidson.fit, r.davidson.table
    values = {"pref.davidson.nu": dav["nu"], "pref.davidson.same_ranking_as_bt": dav["same_ranking"]}
    for m, s in zip(tbl["model"], tbl["davidson"], strict=True):
        values[f"pref.davidson.strength.{m}"] = float(s)
    return values


def trueskill_values(r: PreferencesResult) -> dict[str, Any]:
    ts = r.trueskill
    tsd, tss = ts.summary_default, ts.summary_static
    return {
        "pref.trueskill.share_orders_matching_bt.default_tau": ts.match_default,
        "pref.trueskill.share_orders_matching_bt.tau0": ts.match_static,
        "pref.trueskill.centred_mu_sd_over_orders.default_tau": float(tsd["centred_mu_sd_over_orders"].mean()),
        "pref.trueskill.centred_mu_sd_over_orders.tau0": float(tss["centred_mu_sd_over_orders"].mean()),
        "pref.trueskill.sigma_mean.default_tau": float(tsd["sigma_mean"].mean()),
        "pref.trueskill.library_max_abs_diff": ts.libdiff,
        "pref.trueskill.draw_probability": ts.default.draw_probability,
    }


def simulation_values(r: PreferencesResult) -> dict[str, Any]:
    sim = r.simulation
    values: dict[str, Any] = {"pref.sim.truth": "davidson"}
    nd = sim.needed.set_index("strategy")
    for s in STRATEGIES:
        for col in ("n_for_ranking", "n_for_top"):
            values[f"pref.sim.{s}.{col}"] = float(nd.loc[s, col])
    values["pref.sim.uniform.p_ranking_at_study_size"] = sim.at_study["p_ranking"]
    values["pref.sim.uniform.p_top_at_study_size"] = sim.at_study["p_top"]
    cmp = sim.vs_uniform.set_index("strategy")
    values["pref.sim.information_gain.diff_p_ranking_vs_uniform"] = float(cmp.loc["information_gain", "difference"])
    values["pref.sim.arena.diff_p_ranking_vs_uniform"] = float(cmp.loc["arena", "difference"])
    values["pref.sim.detectable_difference_pp"] = 100 * sim.detectable["mdd"]
    values["pref.sim.detectable_saving"] = sim.detectable["saving"]
    return values


def rowlevel_values(r: PreferencesResult) -> dict[str, Any]:
    rows = r.rows
    if rows is None:
        return {"pref.rowlevel.available": 0}
    ann, side, bias = rows.rows, rows.side, rows.position
    values = {
        "pref.rowlevel.available": 1,
        "pref.rowlevel.n_rows": len(ann),
        "pref.rowlevel.pairs_match_published": int(rows.pairs_check["match"].all()),
        "pref.rowlevel.categories_match_published": int(rows.categories_check["match"].all()),
        "pref.rowlevel.canonical_side_a_share": side["share_a"],
        "pref.rowlevel.canonical_side_binom_p": side["binom_p"],
        "pref.rowlevel.judgements_per_participant_median": rows.activity["median"],
        "pref.rowlevel.n_rows_without_choice": ann.attrs["n_without_choice"],
        "pref.rowlevel.n_duplicate_rows": ann.attrs["n_duplicate_rows"],
    }
    if bias is not None:
        values["pref.rowlevel.position_first_share"] = bias["share_first"]
        values["pref.rowlevel.position_binom_p"] = bias["binom_p"]
    return values


#: the chapter's own values, one mapping per section of the result
VALUE_SECTIONS = (
    report_values,
    bootstrap_values,
    cluster_values,
    c_vs_d_values,
    davidson_values,
    trueskill_values,
    simulation_values,
    rowlevel_values,
)


def stage_values(result: PreferencesResult) -> dict[str, Any]:
    """The chapter's own ``values.json`` entries (``pref.*``), the union of :data:`VALUE_SECTIONS` (two sections
    giving one key different values raise); the register's claim ids come from
    :func:`compendium.preferences.register.register_values`."""
    return merge_values(*(f(result) for f in VALUE_SECTIONS), what="preferences values")


#: the tables written with their index (its name becomes the first column)
_INDEXED = ("category_bradley_terry", "category_win_rates", "bt_rank_probabilities", "bt_prob_greater")


def tables(result: PreferencesResult) -> dict[str, pd.DataFrame]:
    """``{name: table}``: every table of the result the chapter writes under ``results/preferences/tables``
    (those of :data:`_INDEXED` with their index as the first column); the register's two tables are
    :func:`register_missing` and :func:`compendium.preferences.summary.claims_check`."""
    rep, cat, sim = result.report, result.categories, result.simulation
    out = {
        "pairs": rep.pairs,
        "model_record": rep.record,
        "bradley_terry": rep.bt,
        "bradley_terry_crosscheck": rep.crosscheck,
        "category_bradley_terry": cat.bt,
        "category_win_rates": cat.win_rates,
        "category_pairs": cat.pairs,
        "comment_themes": result.themes.table,
        "bt_bootstrap": result.bootstrap.summary,
        "bt_rank_probabilities": result.bootstrap.rank_probs,
        "bt_prob_greater": result.bootstrap.prob_greater,
        "bt_bootstrap_category_clusters": result.cluster.summary,
        "pair_tests_holm": result.tests.holm,
        "davidson": result.davidson.table,
        "trueskill": result.trueskill.table,
        "simulation_curves": sim.sim.curves,
        "simulation_allocation": sim.sim.allocation,
        "simulation_needed": sim.needed,
        "simulation_needed_by_gap": result.gap.table,
        "simulation_vs_uniform": sim.vs_uniform,
    }
    if result.rows is not None:
        rows = result.rows
        out |= {
            "rowlevel_aggregation_check": rows.pairs_check,
            "rowlevel_category_check": rows.categories_check,
            "rowlevel_fleiss_kappa": rows.kappa,
            "rowlevel_disagreement": rows.disagreement,
            "rowlevel_examples": rows.examples,
            "rowlevel_participants": rows.per_participant,
        }
    return {name: df.reset_index() if name in _INDEXED else df for name, df in out.items()}


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


def register_missing(missing: Mapping[str, str]) -> pd.DataFrame:
    """The register's values this build leaves empty, counted by the input they wait for (``missing``: the second
    half of :func:`compendium.preferences.register.register_values`): ``results/preferences/tables/register_missing.csv``."""
    reasons = pd.Series(dict(missing), dtype=object).map(_missing_reason)
    return reasons.value_counts().rename_axis("missing input").reset_index(name="empty values")

"""What the robustness chapter says: its findings table, its values, every number and phrase of its prose.

The sweeps themselves are :mod:`compendium.robustness`. This module turns their tables into

* :func:`findings` - the summary table (one row per finding: does it hold at every setting, the range
  of its number, how sure we are beyond the sweep);
* :func:`stage_values` - the ``rob.*`` values of ``results/robustness/values.json``;
* :func:`summary` - ``{glue key: value}`` for every number and phrase the prose quotes
  (``notebooks/40_robustness.md`` glues it in one call, :func:`compendium.display.glue_all`);
* ``*_view`` - the display copies of the chapter's tables (columns chosen and named for the page).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from . import robustness as rob

__all__ = [
    "holds_phrase",
    "fmt_list",
    "green_largest_where",
    "split_has",
    "split_pwb",
    "findings",
    "stage_values",
    "summary",
    "grids_view",
    "zones_view",
    "has_view",
    "pwb_view",
    "bt_view",
    "findings_view",
    "ZONE_LABELS",
]

ZONE_LABELS = {"green": "Green Light", "red": "Red Light", "rnd": "R&D Opportunity", "low": "Low Priority"}
TOP_MODEL = "GLM 5.1"


def holds_phrase(
    flags: Iterable, all_tpl: str = "at every one of the {n} settings", some_tpl: str = "at {k} of {n} settings"
) -> str:
    """``"at every one of the 5 settings"`` when every flag is true, else ``"at 3 of 5 settings"``."""
    flags = [bool(f) for f in flags]
    k, n = sum(flags), len(flags)
    if n == 0:
        raise ValueError("holds_phrase: no settings")
    return (all_tpl if k == n else some_tpl).format(k=k, n=n)


def fmt_list(items: Iterable[str]) -> str:
    """``"a"``, ``"a and b"``, ``"a, b and c"``."""
    items = list(items)
    if not items:
        raise ValueError("fmt_list: no items")
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def green_largest_where(zones: pd.DataFrame) -> str:
    """Where Green Light is the largest zone in a :func:`compendium.robustness.zone_sweep` table, in words."""
    ok = zones[zones["green_largest"]]["cutoff"]
    bad = zones[~zones["green_largest"]]["cutoff"]
    if bad.empty:
        return "every setting"
    if ok.empty:
        return "no setting"
    if ok.max() < bad.min():
        above = sorted({z for s in zones.loc[~zones["green_largest"], "largest_zone"] for z in s.split("=")})
        return f"cut-offs up to {ok.max():g}; above that, " + " or ".join(ZONE_LABELS[z] for z in above) + " is larger"
    return "cut-offs " + ", ".join(f"{c:g}" for c in sorted(set(ok)))


def split_has(has: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, pd.Series]:
    """The HAS sweep's rows with one rule for both sides, with mixed rules, and the paper's row."""
    return has[has["same_rule"]], has[~has["same_rule"]], has[has["reference"]].iloc[0]


def split_pwb(pwb: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, pd.Series]:
    """The PWB sweep's named schemes, random schemes, and the v2.1 row."""
    return (
        pwb[pwb["family"] != "random"],
        pwb[pwb["family"] == "random"],
        pwb.set_index("scheme").loc[rob.DEFAULT_SCHEME],
    )


def _untied_flags(same: pd.DataFrame, untied: Mapping) -> tuple[list, list]:
    holds = list(same["workers_more_exceeds"]) + [untied["workers_more"] > untied["experts_more"]]
    margins = list(same["margin"]) + [untied["workers_more"] - untied["experts_more"]]
    return holds, margins


def findings(
    zones: pd.DataFrame,
    has: pd.DataFrame,
    untied: Mapping,
    pwb: pd.DataFrame,
    bt: pd.DataFrame,
    zs: Mapping,
    bs: Mapping,
) -> pd.DataFrame:
    """The chapter's summary table (``results/robustness/tables/summary.csv``): one
    :func:`compendium.robustness.finding_row` per finding, with its "how sure is this?" note.

    ``zones``/``has``/``pwb``/``bt``: the four sweeps; ``untied``: :func:`compendium.workbank.agency.untied_only`;
    ``zs``/``bs``: :func:`compendium.robustness.zone_sampling_check` and ``bt_sampling_check``.
    """
    ref_z = zones[zones["reference"]].iloc[0]
    same, _, ref_h = split_has(has)
    named, rnd, ref_p = split_pwb(pwb)
    ref_b = bt[bt["reference"]].iloc[0]
    pct = "{:.0%}".format
    ties = f"{bs['ties_per_model_min']}-{bs['ties_per_model_max']}"
    sure = {
        "wb_green_largest": f"Fragile to the cut-off, not to sampling: at 3.0 Green is largest in "
        f"{pct(zs['p_green_largest'])} of rater-cluster resamples, and in "
        f"{pct(zs['p_green_largest_experts_only'])} when only the expert panel is resampled. Overturned by a "
        "cut-off above 3.",
        "wb_red_gt_rnd": f"Holds at every cut-off and in {pct(zs['p_red_gt_rnd'])} of rater-cluster resamples at 3.0. "
        "Overturned by a sweep setting or resample with R&D ≥ Red; none found.",
        "wb_workers_more_same_rule": "Direction holds for every symmetric tie rule and on untied tasks; the size (the "
        f"paper's {ref_h['workers_more']:.1f} %) is the top of the symmetric range. No "
        "sampling interval computed (ranges are over rules and random tie-breaks of the "
        "same data). Overturned by a symmetric rule with experts wanting more.",
        "wb_workers_more_any_rule": "Mixed rules are lopsided bounds, shown for completeness; a 'no' here is expected "
        "and is not evidence against the finding.",
        "pwb_all_gain": "Over weightings of fixed released scores only; the run-level data needed to resample are not "
        "released, so sampling noise is unchecked. Overturned by a scheme or a re-run with a model's "
        "ΔPWI ≤ 0.",
        "pwb_top_glm": f"Over weightings only; no sampling check. GLM 5.1 leads by {ref_p['glm_lead']:+.1f} points at "
        "v2.1 and "
        + (
            "loses first place under some named schemes."
            if not (named["glm_lead"] > 0).all()
            else "keeps first place under every named scheme."
        ),
        "pwb_top3": "Over weightings only; no sampling check.",
        "pwb_all_gain_random": "Random weights around v2.1 (one Dirichlet family); shares are over weightings, not a "
        "sampling interval.",
        "pwb_top_glm_random": "Random weights around v2.1; shares are over weightings, not a sampling interval.",
        "pwb_top3_random": "Random weights around v2.1; shares are over weightings, not a sampling interval.",
        "bt_top_c": f"Holds at every tie credit because each model has a similar number of ties ({ties}). "
        "Resampling judgements, C beats D in "
        f"{pct(bs['p_c_beats_d_judgements'])} of replicates ({pct(bs['p_c_beats_d_categories'])} with "
        "prompt categories resampled): not settled. Overturned by an interval of log(C/D) that excludes 0 "
        "on the other side.",
        "bt_ranking": f"Holds at every tie credit because each model has a similar number of ties ({ties}). "
        "The exact order recurs in "
        f"{pct(bs['p_same_ranking_judgements'])} of judgement resamples "
        f"({pct(bs['p_same_ranking_categories'])} with categories).",
        "bt_rho": f"ρ = 0.8 recurs in {pct(bs['p_same_rho_judgements'])} of judgement resamples "
        f"({pct(bs['p_same_rho_categories'])} with categories); with four recipes ρ moves in steps of 0.2.",
    }
    zone_settings, has_measure = "zone cut-off × boundary", "workers more − experts more (pp)"
    same_holds, same_margins = _untied_flags(same, untied)
    rows = [
        rob.finding_row(
            "wb_green_largest",
            "WORKBank",
            "Green Light is the largest of the four zones",
            zones["green_largest"],
            zones["green_lead"],
            "{:+.0f}",
            zone_settings,
            "Green − largest other zone (tasks)",
            float(ref_z["green_lead"]),
        ),
        rob.finding_row(
            "wb_red_gt_rnd",
            "WORKBank",
            "More tasks are Red Light (capable, unwanted) than R&D Opportunity (wanted, not yet capable)",
            zones["red_gt_rnd"],
            zones["red_minus_rnd"],
            "{:+.0f}",
            zone_settings,
            "Red − R&D (tasks)",
            float(ref_z["red_minus_rnd"]),
        ),
        rob.finding_row(
            "wb_workers_more_same_rule",
            "WORKBank",
            "Workers want more agency than experts on more tasks than the reverse",
            same_holds,
            same_margins,
            "{:+.1f}",
            "one tie rule for both sides; untied tasks only",
            has_measure,
            float(ref_h["margin"]),
        ),
        rob.finding_row(
            "wb_workers_more_any_rule",
            "WORKBank",
            "… the same, under any combination of tie rules",
            has["workers_more_exceeds"],
            has["margin"],
            "{:+.1f}",
            "workers' × experts' tie rule",
            has_measure,
            float(ref_h["margin"]),
        ),
    ]
    pwb_findings = [
        (
            "pwb_all_gain",
            "Every model gains from the pro-worker prompt",
            "all_gain",
            "min_delta",
            "{:+.1f}",
            "smallest ΔPWI (points)",
        ),
        (
            "pwb_top_glm",
            "GLM 5.1 has the highest prompted PWI",
            None,
            "glm_lead",
            "{:+.1f}",
            "GLM 5.1 − best other (points)",
        ),
        (
            "pwb_top3",
            "The same three models lead the prompted ranking",
            "top3_stable",
            "kendall_tau",
            "{:.2f}",
            "Kendall τ vs v2.1",
        ),
    ]
    for frame, suffix, settings in [
        (named, "", "named weight schemes"),
        (rnd, "_random", f"{len(rnd)} random weight schemes"),
    ]:
        if suffix and not len(rnd):
            continue
        for key, text, flag, col, fmt, measure in pwb_findings:
            holds = frame["glm_lead"] > 0 if flag is None else frame[flag]
            rows.append(
                rob.finding_row(key + suffix, "PWB", text, holds, frame[col], fmt, settings, measure, float(ref_p[col]))
            )
    rows += [
        rob.finding_row(
            "bt_top_c",
            "Preferences",
            "Recipe C is the most preferred model",
            bt["top_model"] == "recipe_c",
            bt["log_c_over_d"],
            "{:+.3f}",
            "tie conventions",
            "log(C / D strength)",
            float(ref_b["log_c_over_d"]),
        ),
        rob.finding_row(
            "bt_ranking",
            "Preferences",
            f"The ranking is {ref_b['ranking']}",
            bt["same_ranking_as_published"],
            bt["min_adjacent_log_gap"],
            "{:+.3f}",
            "tie conventions",
            "smallest log-strength gap between neighbours",
            float(ref_b["min_adjacent_log_gap"]),
        ),
        rob.finding_row(
            "bt_rho",
            "Preferences",
            f"Spearman ρ(strength, val_pref_acc) = {ref_b['rho_val_pref_acc']:.1f}",
            np.isclose(bt["rho_val_pref_acc"], ref_b["rho_val_pref_acc"]),
            bt["rho_val_pref_acc"],
            "{:.1f}",
            "tie conventions",
            "ρ",
            float(ref_b["rho_val_pref_acc"]),
        ),
    ]
    for r in rows:
        r["how_sure"] = sure.get(r["key"], "")
    return pd.DataFrame(rows)


def stage_values(
    zones: pd.DataFrame,
    has: pd.DataFrame,
    untied: Mapping,
    pwb: pd.DataFrame,
    bt: pd.DataFrame,
    found: pd.DataFrame,
    zs: Mapping,
    bs: Mapping,
    models: Sequence[str],
) -> dict:
    """The ``rob.*`` values of ``results/robustness/values.json`` (``found``: :func:`findings`)."""
    ref_z = zones[zones["reference"]].iloc[0]
    same, _, ref_h = split_has(has)
    named, rnd, ref_p = split_pwb(pwb)
    ref_b = bt[bt["reference"]].iloc[0]
    v: dict = {f"rob.reference.zones.{z}": int(ref_z[z]) for z in ("green", "red", "rnd", "low")}
    v["rob.reference.has.workers_more"] = float(ref_h["workers_more"])
    v["rob.has.untied.workers_more"] = float(untied["workers_more"])
    v["rob.has.untied.experts_more"] = float(untied["experts_more"])
    v["rob.has.untied.n_tasks"] = int(untied["n_tasks"])
    v["rob.reference.pwb.min_delta"] = float(ref_p["min_delta"])
    v["rob.reference.pwb.mean_delta"] = float(ref_p["mean_delta"])
    for m in models:
        v[f"rob.reference.bt.{m}"] = float(ref_b[m])
    v.update({f"rob.sampling.zones.{k}": x for k, x in zs.items()})
    v.update({f"rob.sampling.bt.{k}": x for k, x in bs.items()})
    for r in found.itertuples():
        v[f"rob.{r.key}.holds_all"] = int(r.holds_all)
        v[f"rob.{r.key}.n_hold"] = int(r.n_hold)
        v[f"rob.{r.key}.n_settings"] = int(r.n_settings)
        v[f"rob.{r.key}.min"] = float(r.min)
        v[f"rob.{r.key}.max"] = float(r.max)
    v["rob.n_findings"] = int(len(found))
    v["rob.n_hold_all"] = int(found["holds_all"].sum())
    v["rob.zones.green.min"] = int(zones["green"].min())
    v["rob.zones.green.max"] = int(zones["green"].max())
    v["rob.has.workers_more.min"] = float(has["workers_more"].min())
    v["rob.has.workers_more.max"] = float(has["workers_more"].max())
    v["rob.has.workers_more.same_rule.min"] = float(same["workers_more"].min())
    v["rob.has.workers_more.same_rule.max"] = float(same["workers_more"].max())
    v["rob.pwb.mean_delta.min"] = float(named["mean_delta"].min())
    v["rob.pwb.mean_delta.max"] = float(named["mean_delta"].max())
    v["rob.pwb.random.n"] = int(len(rnd))
    v["rob.pwb.random.share_all_gain"] = float(rnd["all_gain"].mean()) if len(rnd) else None
    v["rob.pwb.random.share_top_glm"] = float((rnd["top_model"] == TOP_MODEL).mean()) if len(rnd) else None
    v["rob.pwb.random.share_top3_stable"] = float(rnd["top3_stable"].mean()) if len(rnd) else None
    for m in models:
        v[f"rob.bt.{m}.min"] = float(bt[m].min())
        v[f"rob.bt.{m}.max"] = float(bt[m].max())
    return v


def summary(
    *,
    land: pd.DataFrame,
    zones: pd.DataFrame,
    has: pd.DataFrame,
    untied: Mapping,
    pwb: pd.DataFrame,
    n_weights: int,
    bt: pd.DataFrame,
    counts: pd.DataFrame,
    tie_weights: Sequence[float],
    found: pd.DataFrame,
    zs: Mapping,
    bs: Mapping,
    params: Mapping,
) -> dict:
    """``{glue key: value}`` for every number and phrase of the chapter's prose.

    ``land``: :func:`compendium.workbank.landscape.task_landscape`; ``n_weights``: the number of PWB
    dimension weights (for the typical relative spread of a random weight); ``counts``: the preference
    study's pair counts; ``found``: :func:`findings`; ``params``: ``has_random_draws``,
    ``pwb_random_concentration``, ``n_sampling``.
    """
    nan = float("nan")
    g: dict = {}
    # WORKBank zones
    ref_z = zones[zones["reference"]].iloc[0]
    for z in ("green", "red", "rnd", "low"):
        g[f"rob_ref_{z}"] = int(ref_z[z])
    at3 = rob.zone_sweep(land, [rob.PAPER_CUTOFF], ("ge", "gt")).set_index("boundary")  # whatever the grid
    g.update(
        rob_n_tasks=len(land),
        rob_zone_n=len(zones),
        rob_cut_min=float(zones["cutoff"].min()),
        rob_cut_max=float(zones["cutoff"].max()),
        rob_green_min=int(zones["green"].min()),
        rob_green_max=int(zones["green"].max()),
        rob_green_largest_n=int(zones["green_largest"].sum()),
        rob_green_largest_where=green_largest_where(zones),
        rob_redrnd_phrase=holds_phrase(zones["red_gt_rnd"]),
        rob_nw_min=int(land["n_workers"].min()),
        rob_nw_max=int(land["n_workers"].max()),
        rob_paper_cut=float(rob.PAPER_CUTOFF),
        rob_gt_green=int(at3.loc["gt", "green"]),
        rob_gt_low=int(at3.loc["gt", "low"]),
        rob_ge_gt_moved=int(at3.loc["ge", "green"] - at3.loc["gt", "green"]),
    )
    # HAS tie rules
    same, mixed, ref_h = split_has(has)
    g.update(
        rob_has_draws=int(params["has_random_draws"]),
        rob_has_ref=float(ref_h["workers_more"]),
        rob_has_same_phrase=holds_phrase(_untied_flags(same, untied)[0]),
        rob_has_same_min=float(same["workers_more"].min()),
        rob_has_same_max=float(same["workers_more"].max()),
        rob_has_untied_wm=float(untied["workers_more"]),
        rob_has_untied_em=float(untied["experts_more"]),
        rob_has_untied_n=int(untied["n_tasks"]),
        rob_has_all_min=float(has["workers_more"].min()),
        rob_has_all_max=float(has["workers_more"].max()),
    )
    if len(mixed):
        lo = mixed.loc[mixed["workers_more"].idxmin()]
        fails = mixed[~mixed["workers_more_exceeds"]]
        g.update(
            rob_has_mixed_min=float(lo["workers_more"]),
            rob_has_mixed_min_em=float(lo["experts_more"]),
            rob_has_mixed_min_rules=f"workers {lo['worker_rule']}, experts {lo['expert_rule']}",
            rob_has_fail_n=int(len(fails)),
            rob_has_mixed_n=int(len(mixed)),
            rob_has_fail_list=fmt_list(
                [f"workers {a} / experts {b}" for a, b in zip(fails["worker_rule"], fails["expert_rule"], strict=True)]
            )
            if len(fails)
            else "none",
        )
    else:
        g.update(
            rob_has_mixed_min=float(ref_h["workers_more"]),
            rob_has_mixed_min_em=float(ref_h["experts_more"]),
            rob_has_mixed_min_rules="no mixed rules in the grid",
            rob_has_fail_n=0,
            rob_has_mixed_n=0,
            rob_has_fail_list="none",
        )
    # PWB weights
    named, rnd, ref_p = split_pwb(pwb)
    conc = float(params["pwb_random_concentration"])
    p_typ = 1.0 / n_weights
    n_top = int((named["top_model"] == TOP_MODEL).sum())
    lost = named[named["top_model"] != TOP_MODEL]
    t3 = named[~named["top3_stable"]]
    g.update(
        rob_pwb_rand_n=int(len(rnd)),
        rob_pwb_conc=conc,
        rob_pwb_rel_sd=float(np.sqrt((1 - p_typ) / (p_typ * (conc + 1)))),
        rob_pwb_gain_min=float(named["min_delta"].min()),
        rob_pwb_gain_max=float(named["min_delta"].max()),
        rob_pwb_gain_ref=float(ref_p["min_delta"]),
        rob_pwb_mean_min=float(named["mean_delta"].min()),
        rob_pwb_mean_max=float(named["mean_delta"].max()),
        rob_pwb_tau_min=float(named["kendall_tau"].min()),
        rob_pwb_rand_gain=float(rnd["all_gain"].mean()) if len(rnd) else nan,
        rob_pwb_rand_top=float((rnd["top_model"] == TOP_MODEL).mean()) if len(rnd) else nan,
        rob_pwb_rand_top3=float(rnd["top3_stable"].mean()) if len(rnd) else nan,
        rob_pwb_rand_gain_min=float(rnd["min_delta"].min()) if len(rnd) else nan,
        rob_pwb_gain_phrase=holds_phrase(named["all_gain"], "under all {n}", "under {k} of the {n}"),
        rob_pwb_top_verdict=f"{n_top} of {len(named)}",
        rob_pwb_top_lost=fmt_list([f"{s} ({m})" for s, m in zip(lost["scheme"], lost["top_model"], strict=True)])
        if len(lost)
        else "none",
        rob_pwb_top3_lost=fmt_list(list(t3["scheme"])) if len(t3) else "none",
    )
    # preferences: tie conventions
    ref_b = bt[bt["reference"]].iloc[0]
    rho_same = np.isclose(bt["rho_val_pref_acc"], ref_b["rho_val_pref_acc"])
    g.update(
        rob_bt_n=int(len(bt)),
        rob_bt_n_ties=int(counts["ties"].sum()),
        rob_bt_ranking=str(ref_b["ranking"]),
        rob_bt_rho=float(ref_b["rho_val_pref_acc"]),
        rob_bt_same_n=int(bt["same_ranking_as_published"].sum()),
        rob_bt_rho_n="all" if rho_same.all() else str(int(rho_same.sum())),
        rob_bt_grid=", ".join(f"{w:g}" for w in tie_weights),
        rob_bt_c_min=float(bt["recipe_c"].min()),
        rob_bt_c_max=float(bt["recipe_c"].max()),
        rob_bt_u_min=float(bt["untrained"].min()),
        rob_bt_u_max=float(bt["untrained"].max()),
        rob_bt_cd_min=float(np.exp(bt["log_c_over_d"].min())),
        rob_bt_cd_max=float(np.exp(bt["log_c_over_d"].max())),
    )
    g.update(rob_bt_ties_min=int(bs["ties_per_model_min"]), rob_bt_ties_max=int(bs["ties_per_model_max"]))
    # how sure: the resampling checks; the summary table
    g.update(
        rob_n_sampling=int(params["n_sampling"]),
        rob_zs_green=zs["p_green_largest"],
        rob_zs_redrnd=zs["p_red_gt_rnd"],
        rob_bs_cd_j=bs["p_c_beats_d_judgements"],
        rob_bs_cd_c=bs["p_c_beats_d_categories"],
        rob_bs_cd_n=int(bs["c_beats_d_n_boot"]),
        rob_bs_cd_se=100 * max(bs["p_c_beats_d_judgements_mc_se"], bs["p_c_beats_d_categories_mc_se"]),
        rob_bs_rank_j=bs["p_same_ranking_judgements"],
        rob_bs_rank_c=bs["p_same_ranking_categories"],
        rob_n_findings=int(len(found)),
        rob_n_hold_all=int(found["holds_all"].sum()),
    )
    return g


# ------------------------------------------------------------------------------ display copies of the tables


def _grid(xs) -> str:
    return ", ".join(f"{x:g}" if isinstance(x, float) else str(x) for x in xs)


def grids_view(
    cutoffs, boundaries, tie_rules, cf_weights, restore_weights, tie_weights, n_random: int, concentration: float
) -> pd.DataFrame:
    """The grids of this build, one row per analysis choice (the chapter's first table)."""
    return pd.DataFrame(
        [
            ("WORKBank", "zone cut-off (both axes)", "zone_cutoffs", _grid(cutoffs), f"{rob.PAPER_CUTOFF:g}"),
            (
                "WORKBank",
                "mean on the cut-off counts as",
                "zone_boundaries",
                _grid(boundaries).replace("ge", "high (ge)").replace("gt", "low (gt)"),
                "high (ge)",
            ),
            ("WORKBank", "HAS tie rule (workers × experts)", "has_tie_rules", _grid(tie_rules), rob.PAPER_TIE_RULE),
            ("PWB", "scheme (fixed)", "", "v2.1, equal, v2.0", "v2.1"),
            ("PWB", "CF-heavy: weight of cognitive forcing", "pwb_cf_heavy_weights", _grid(cf_weights), ""),
            ("PWB", "restore: weight of UT and AR_d", "pwb_restore_weights", _grid(restore_weights), ""),
            (
                "PWB",
                "random weights around v2.1",
                "pwb_random_schemes, pwb_random_concentration",
                f"{n_random} draws, concentration {concentration:g}",
                "",
            ),
            (
                "Preferences",
                "tie credited to each side (w)",
                "bt_tie_weights",
                _grid(tie_weights) + "; Davidson model",
                f"{rob.PAPER_TIE_WEIGHT:g}",
            ),
        ],
        columns=["study", "choice", "params.yaml key (robustness.)", "grid", "paper"],
    )


def zones_view(zones: pd.DataFrame) -> pd.DataFrame:
    """Tasks per zone at every setting, named for the page."""
    view = zones.assign(
        cutoff=zones["cutoff"].map("{:g}".format),
        boundary=zones["boundary"].map({"ge": "high", "gt": "low"}),
        largest_zone=zones["largest_zone"].map(lambda s: " = ".join(ZONE_LABELS[z] for z in s.split("="))),
        setting=np.where(zones["reference"], "paper", ""),
    )
    cols = ["cutoff", "boundary", "green", "red", "rnd", "low", "largest_zone", "red_minus_rnd", "setting"]
    return view[cols].rename(
        columns={
            "boundary": "mean on cut-off",
            "green": "Green Light",
            "red": "Red Light",
            "rnd": "R&D Opp.",
            "low": "Low Priority",
            "largest_zone": "largest zone",
            "red_minus_rnd": "Red − R&D",
        }
    )


def has_view(has: pd.DataFrame, untied: Mapping) -> pd.DataFrame:
    """The HAS tie-rule grid with the untied-tasks row, named for the page."""
    hv = has.assign(
        setting=np.where(has["reference"], "paper", ""),
        random_range=[
            f"{a:.1f}–{b:.1f}" if a != b else ""
            for a, b in zip(has["workers_more_lo"], has["workers_more_hi"], strict=True)
        ],
    )
    extra = pd.DataFrame(
        [
            {
                "worker_rule": "(untied tasks only)",
                "expert_rule": f"n = {untied['n_tasks']}",
                "diagonal": untied["diagonal"],
                "workers_more": untied["workers_more"],
                "experts_more": untied["experts_more"],
                "margin": untied["workers_more"] - untied["experts_more"],
                "random_range": "",
                "setting": "",
            }
        ]
    )
    hv = pd.concat([hv, extra], ignore_index=True)
    cols = [
        "worker_rule",
        "expert_rule",
        "diagonal",
        "workers_more",
        "experts_more",
        "margin",
        "random_range",
        "setting",
    ]
    return hv[cols].rename(
        columns={
            "worker_rule": "workers' rule",
            "expert_rule": "experts' rule",
            "diagonal": "same level %",
            "workers_more": "workers want more %",
            "experts_more": "experts want more %",
            "margin": "difference (pp)",
            "random_range": "95 % of random draws",
        }
    )


def pwb_view(pwb: pd.DataFrame) -> pd.DataFrame:
    """The PWB findings under each named weight scheme, named for the page."""
    named = split_pwb(pwb)[0]
    yes_no = {True: "yes", False: "no"}
    pv = named.assign(
        setting=np.where(named["scheme"] == rob.DEFAULT_SCHEME, "paper (v2.1)", ""),
        all_gain=named["all_gain"].map(yes_no),
        top3_stable=named["top3_stable"].map(yes_no),
    )
    cols = [
        "scheme",
        "kendall_tau",
        "max_dev",
        "min_delta",
        "mean_delta",
        "all_gain",
        "top_model",
        "glm_lead",
        "top3_stable",
        "setting",
    ]
    return pv[cols].rename(
        columns={
            "kendall_tau": "Kendall τ",
            "max_dev": "max |ΔPWI vs v2.1|",
            "min_delta": "smallest gain",
            "mean_delta": "mean gain",
            "all_gain": "all gain?",
            "top_model": "top prompted model",
            "glm_lead": "GLM 5.1 lead",
            "top3_stable": "same top 3?",
        }
    )


def bt_view(bt: pd.DataFrame, models: Sequence[str], labels: Mapping[str, str]) -> pd.DataFrame:
    """Bradley-Terry strengths under each tie convention, named for the page."""
    bv = bt.assign(
        setting=np.where(bt["reference"], "paper", ""),
        same=bt["same_ranking_as_published"].map({True: "yes", False: "no"}),
        cd=np.exp(bt["log_c_over_d"]),
    )
    cols = ["convention", *models, "ranking", "same", "rho_val_pref_acc", "cd", "setting"]
    return bv[cols].rename(
        columns={
            **labels,
            "same": "same ranking?",
            "rho_val_pref_acc": "ρ vs val_pref_acc",
            "cd": "C / D strength ratio",
        }
    )


def findings_view(found: pd.DataFrame) -> pd.DataFrame:
    """The summary table for the page (a finding that holds everywhere in bold)."""
    from .safetext import myst

    sv = found.assign(verdict=[str(myst(v)).replace("yes", "**yes**") for v in found["verdict"]])
    cols = ["study", "finding", "settings", "verdict", "measure", "paper_setting", "range", "how_sure"]
    out = sv[cols].rename(
        columns={
            "settings": "swept over",
            "verdict": "holds under all settings?",
            "paper_setting": "paper's setting",
            "range": "range over the settings",
            "how_sure": "how sure is this?",
        }
    )
    out.attrs["markup"] = ["holds under all settings?"]  # escaped above, bold added (compendium.display.table)
    return out

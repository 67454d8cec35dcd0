"""What the PWB chapters say: every number and phrase of their prose, phrased from the results.

The chapter (``notebooks/10_pwb.md``) computes once, ``result = compendium.pwb.build(params, inputs)``,
and phrases the result here:

- :func:`summary` -- the dict of every number and phrase its prose quotes (glued in one call with
  :func:`compendium.chapter.display.glue_all`; the keys are the ``{glue:text}`` names of the chapter), each a pure
  function of the result,
- :func:`verdicts` -- the Table 2 sentence, from the claims' statuses,
- :func:`instances_markdown`, :func:`anomaly_table`, :func:`register_slips`, :func:`d_interval_matrix` --
  the paragraphs and display tables that are phrasing rather than results.

Nothing is computed here: the analyses are in :mod:`compendium.pwb.compute` (and the modules it calls), the
``values.json`` entries and result tables in :mod:`compendium.pwb.outputs`, the claim ids in
:mod:`compendium.pwb.register`. Display-only formatting is :func:`compendium.chapter.display.table`'s;
:data:`LABELS` holds the chapter's display labels.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from . import paper_printed as printed
from .aggregates import mean_printed_delta
from .compute import PwbResult
from .constants import ABBREV, DIMENSIONS, dim_label

__all__ = [
    "summary",
    "verdicts",
    "VERDICT_NAMES",
    "dim_label",
    "LABELS",
    "count_word",
    "register_slips",
    "anomaly_table",
    "instances_status",
    "instances_markdown",
    "d_interval_matrix",
    "benchmark_summary",
]

_WORDS = {0: "No", 1: "One", 2: "Two", 3: "Three", 4: "Four", 5: "Five", 6: "Six", 7: "Seven", 8: "Eight", 9: "Nine"}


def count_word(n: int, capital: bool = True, small: int = 9) -> str:
    """``n`` as an English word up to ``small`` ("Seven", or "seven" with ``capital=False``), else digits."""
    if 0 <= n <= small:
        w = _WORDS[n]
        return w if capital else w.lower()
    return str(n)


#: Display labels of the chapter's tables (for :func:`compendium.chapter.display.table`'s ``labels``).
LABELS: dict = {
    "dimension": lambda d: dim_label(d, long=True) if d in ABBREV else d,
    "condition": {"with_system_prompt": "prompted"},
}


def _phrase_list(items: list[str]) -> str:
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else "".join(items)


def _phrase_list(items: list[str]) -> str:
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else "".join(items)


def _slip_notes(notes: Mapping) -> dict:
    """The register's ``differs`` notes other than the stale table (``published/notes/pwb.yaml``)."""
    return {k: n for k, n in notes.items() if n.get("kind") == "differs" and n.get("reason") != "stale_table"}


def register_slips(notes: Mapping, published: Mapping, reg_values: Mapping) -> pd.DataFrame:
    """The register's ``differs`` notes other than the stale table: claim, printed, our value, reason, why."""
    rows = [
        {
            "claim": k,
            "printed": published[k],
            "data": reg_values.get(k),
            "reason": n["reason"].replace("_", " "),
            "why": " ".join(n["note"].split()),
        }
        for k, n in _slip_notes(notes).items()
    ]
    return pd.DataFrame(rows, columns=["claim", "printed", "data", "reason", "why"])


def anomaly_table(anomalies: pd.DataFrame, instances_present: bool) -> tuple[pd.DataFrame, str]:
    """The judge anomalies by kind and dimension, and the table's caption."""
    if len(anomalies):
        show = anomalies.groupby(["kind", "dimension"]).size().rename("judge values / runs").reset_index()
        return show, (
            f"The {len(anomalies)} judge anomalies of the per-instance results, by kind and dimension "
            "(each listed in full in `judge_anomalies.csv`). They are counted through the stored panel score."
        )
    show = pd.DataFrame({"kind": ["(none found)" if instances_present else "(no per-instance data in this build)"]})
    return show, (
        "Judge anomalies of the per-instance results: "
        + (
            "none found."
            if instances_present
            else "the per-instance results are not in this build, so there is nothing to list yet."
        )
    )


_TEST_TABLES = {
    "per_dimension": (
        "tbl-pwb-inst-wilcoxon",
        "Layer 1, per dimension: paired Wilcoxon signed-rank test of prompted against baseline runs "
        "(pingouin; rank-biserial correlation as the effect size), p-values Bonferroni-corrected over the dimensions.",
    ),
    "per_model": (
        "tbl-pwb-inst-ttest",
        "Layer 1, per model: paired t-test of prompted against baseline runs (pingouin), with the 95 % interval of "
        "the mean difference, d_z and p-values Bonferroni-corrected over the models.",
    ),
    "layer2": (
        "tbl-pwb-inst-layer2",
        "Layer 2: paired t-tests over scenarios, per model and pooled.",
    ),
    "layer3": ("tbl-pwb-inst-layer3", "Layer 3: paired t-tests over prompts, per model and pooled."),
}


_P_FORMATS = {"p": "{:.2e}", "p_bonferroni": "{:.2e}"}


def _tests_markdown(tests: Mapping[str, pd.DataFrame]) -> str:
    from compendium.chapter.display import table

    parts = []
    for k, (name, cap) in _TEST_TABLES.items():
        if k in tests:  # the Layer-2/3 tables have a p but no p_bonferroni: format the p columns each has
            fmt = {c: f for c, f in _P_FORMATS.items() if c in tests[k].columns}
            parts.append(table(tests[k], name, cap, precision=3, labels=LABELS, spaces=True, formats=fmt).data)
    return "".join("\n\n" + p for p in parts)


def instances_status(r: PwbResult) -> str:
    """The chapter's sentence on the per-instance data (``pwb_inst_status``)."""
    if r.instances is not None:
        return (
            "The per-instance results are present in this build: the bootstrap PWIs, d_pooled, the Table 3 CIs, "
            "paired tests, IRR on complete triples and r(CF, CO) are computed from them and fill the claim ids."
        )
    return (
        "The per-instance results are not in this build (they are on the Hugging Face hub only), so d_pooled, "
        "the bootstrap intervals, the paired tests, the full IRR table and r(CF, CO) carry no reproduced value; "
        "acquiring them (python -m compendium.data.acquire pwb) makes the stage compute all of them."
    )


def instances_markdown(r: PwbResult, root: Path | None = None) -> str:
    """The paragraph of the per-instance section; with the data it ends with the significance tests as
    numbered tables. The folder (a parameter) is a literal code span; ``root``: the repository."""
    from compendium.chapter.safetext import code
    from compendium.pipeline import paths

    results_dir, n_boot, seed = r.inputs.results_dir, r.params.n_boot, r.params.seed
    if r.instances is not None:
        res = r.instances.res
        md = (
            f"{code(results_dir.name + '/')} is present: {r.instances.n_scores:,} judge scores, "
            f"{len(res['runs']):,} scored Layer-1 runs. The per-cell score sums of these runs differ from the "
            f"sums recovered from the aggregates by at most {r.instances.max_sum_diff:g}. The tables "
            "`results/pwb/tables/instances_*.csv` hold the bootstrap PWIs with percentile intervals, d_pooled, "
            "Table 3 with its bootstrap CIs, the paired tests, the IRR table and the prompt-level correlations; "
            "{numref}`fig-pwb-inst` shows the PWIs."
        )
        return md + _tests_markdown(r.instances.pingouin)
    root = root or paths.ROOT
    where = results_dir.relative_to(root) if results_dir.is_relative_to(root) else results_dir
    md = (
        f"No per-instance results in this build ({code(where)} does not exist). The code that computes everything the "
        "paper computes from them is in `compendium.pwb.instances` and is tested on synthetic instance tables with "
        "known answers: the tidy schema (model, condition, layer, dimension, prompt_id, run, judge, score) and its "
        "loader for the Hugging Face release, the panel-median rule, the "
        f"{n_boot:,}-draw PWI bootstrap (seed {seed}, percentile interval), d_pooled, the per-dimension Wilcoxon and "
        "per-model paired tests with Bonferroni, IRR on complete triples and the prompt-level correlations. The "
        "significance tests (the per-dimension Wilcoxon tests, the per-model, pooled, Layer 2 and Layer 3 paired "
        "t-tests) are also computed with pingouin (`compendium.pwb.effects`); with the data they appear here "
        "as tables. With "
        "network access, `python -m compendium.data.acquire pwb` puts the release under `data/pwb/results/` and "
        "this stage runs that path automatically; the claim ids that need it (d_pooled, r(CF, CO)) are then filled "
        "and the PWI claims take the bootstrap means. `benchmarks/pwb_instances.py` times the whole path, the 14 "
        "bootstraps included, on synthetic tables of the real size (42,000 judge scores) and ten times it."
    )
    return md


def _ci_text(d, lo, hi) -> list[str]:
    return [f"{a:.2f} [{b:.2f}, {c:.2f}]" for a, b, c in zip(d, lo, hi, strict=True)]


def d_interval_matrix(cell_ci: pd.DataFrame, dim_ci: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per dimension (rows, in the authors' order) and model (columns): "d [lower, upper]" (2 decimals); with
    ``dim_ci`` (:func:`~compendium.pwb.effects.dimension_d_pooled_intervals`) a last column "all models"."""
    t = cell_ci.assign(text=_ci_text(cell_ci["d"], cell_ci["ci_lower"], cell_ci["ci_upper"]))
    m = t.pivot(index="dimension", columns="model", values="text")
    if dim_ci is not None:
        pooled = dim_ci.set_index("dimension")
        m["all models"] = pd.Series(
            _ci_text(pooled["d_pooled"], pooled["ci_lower"], pooled["ci_upper"]), index=pooled.index
        )
    return m.reindex([d for d in DIMENSIONS if d in m.index]).reset_index().rename_axis(columns=None)


def _pwi_off(t2: pd.DataFrame) -> list[tuple[str, str]]:
    """(model, condition) of the published PWIs that differ from our point PWI rounded to 1 decimal."""
    return [
        (r["model"], cond)
        for _, r in t2.iterrows()
        for cond in ("baseline", "prompted")
        if round(float(r[cond]), 1) != float(r[f"{cond}_released"])
    ]


def _sens_n_match(cmp: pd.DataFrame) -> int:
    return int(
        sum(
            (cmp[c].round(d) == cmp[f"{c}_printed"]).sum()
            for c, d in (("kendall_tau", 3), ("max_dev", 1), ("min_delta", 1))
        )
        + (cmp["top3_stable"] == cmp["top3_stable_printed"]).sum()
    )


def summary(r: PwbResult) -> dict:
    """Every number and phrase the chapter's prose quotes, by its ``{glue:text}`` name (plain Python values;
    ``pwb_weight_scheme_md`` is Markdown for ``{glue:md}``)."""
    from IPython.display import Markdown

    from compendium.chapter.safetext import code

    s: dict = {}
    a, sen, val, e = r.aggregates, r.sensitivity, r.validation, r.effects
    cells, t2, diag, released, published = a.cells, a.t2, a.diag, r.inputs.released, r.inputs.published
    # reconstruction and Table 2
    n_models = int(cells["model"].nunique())
    s["pwb_n_models"] = n_models
    s["pwb_n_pwis"] = 2 * n_models
    s["pwb_n_models_word"] = {7: "Seven"}.get(n_models, str(n_models))
    s["pwb_n_dims"] = int(cells["dimension"].nunique())
    pub_base = [v for k, v in published.items() if k.startswith("pwb.pwi.") and k.endswith(".baseline")]
    s["pwb_pub_base_min"], s["pwb_pub_base_max"] = float(min(pub_base)), float(max(pub_base))
    s["pwb_pub_mean_delta"] = float(published["pwb.delta.mean"])
    s["pwb_n_cells"] = len(cells)
    s["pwb_n_checks"] = len(a.checks)
    s["pwb_recon_maxdiff"] = float(a.checks["abs_diff"].max())
    s["pwb_post_maxdev"] = float((cells["posterior_implied"] - cells["posterior_released"]).abs().max())
    scheme_note = "the paper's v2.1 weights" if r.params.weight_scheme == "weights" else "not the paper's v2.1 weights"
    s["pwb_weight_scheme_md"] = Markdown(f"{code(r.params.weight_scheme)} ({scheme_note})")
    gaps = pd.concat([t2["diff_baseline"], t2["diff_prompted"]]).abs()
    off = _pwi_off(t2)
    summ = released["summary"].set_index("Model")
    s["pwb_n_pwi_off"] = {0: "No", 1: "One", 2: "Two", 3: "Three"}.get(len(off), str(len(off)))
    s["pwb_pwi_off_names"] = " and ".join(f"{m} {c}" for m, c in off) or "none"
    s["pwb_pwi_off_summary"] = " and ".join(f"{summ.loc[m, 'PWI_' + c]:.1f}" for m, c in off) or "–"
    s["pwb_pwi_maxdiff"] = float(gaps.max())
    s["pwb_n_within_tol"] = int((gaps <= 0.1).sum())
    s["pwb_mean_delta"] = mean_printed_delta(t2["baseline"], t2["prompted"])
    for name, col in (("delta", "delta_printed"), ("base", "baseline"), ("prompt", "prompted")):
        s[f"pwb_{name}_min"], s[f"pwb_{name}_max"] = float(t2[col].min()), float(t2[col].max())
    # d_pooled
    d = a.d_approx
    s["pwb_dpool_n_match"] = int(d["rounds_to_printed"].sum())
    s["pwb_dpool_maxwidth"] = float((d["d_hi"] - d["d_lo"]).max())
    s["pwb_dpool_min"], s["pwb_dpool_max"] = float(d["d_pooled"].min()), float(d["d_pooled"].max())
    # Table 3, layer 1, the model x dimension profile
    d_ = diag.set_index("dimension")
    for dim, col in (
        ("complementarity", "delta"),
        ("cognitive_forcing", "baseline"),
        ("cognitive_forcing", "prompted"),
        ("anti_sycophancy", "baseline"),
        ("anti_sycophancy", "prompted"),
        ("contrastive_explanation", "delta"),
        ("ethical_surfacing", "prompted"),
        ("appropriate_reliance", "prompted"),
        ("draft_annotation", "prompted"),
    ):
        s[f"pwb_dim_{dim}_{col}"] = float(d_.loc[dim, col])
    s["pwb_dim_ratio"] = float(d_["delta"].max() / d_["delta"].min())
    l1_ = a.l1.set_index("condition")
    s["pwb_l1_base"] = float(l1_.loc["baseline", "mean"])
    s["pwb_l1_prompt"] = float(l1_.loc["with_system_prompt", "mean"])
    s["pwb_l1_nb"] = int(l1_.loc["baseline", "n"])
    s["pwb_l1_np"] = int(l1_.loc["with_system_prompt", "n"])
    mats = a.matrices
    neg = mats["delta"].stack()
    neg = neg[neg < 0]
    by_model: dict[str, list[str]] = {}
    for (m, dd), _v in neg.items():
        by_model.setdefault(m, []).append(dim_label(dd))
    s["pwb_neg_cells"] = "; ".join(f"{m} on {', '.join(ds)}" for m, ds in by_model.items()) or "none"
    # correlation matrix (released)
    corr = released["correlation"]
    offd = corr.where(~np.eye(len(corr), dtype=bool)).stack()
    cf_co = float(corr.loc["cognitive_forcing", "complementarity"])
    s["pwb_cf_co_released"] = cf_co
    s["pwb_corr_n_above"] = int((offd.abs() > 0.70).sum() // 2)
    s["pwb_corr_second"] = float(offd[offd < cf_co - 1e-12].max())
    # weight sensitivity, restore grid, leaderboard
    s["pwb_cf_heavy_weight"] = float(r.params.cf_heavy_weight)
    s["pwb_restore_weight"] = float(r.params.restore_weight)
    s_ = sen.sens.set_index("scheme")
    s["pwb_tau_equal"] = float(s_.loc["equal", "kendall_tau"])
    s["pwb_min_cf"] = float(s_.loc["cf_heavy", "min_delta"])
    s["pwb_restore_min"] = float(s_.loc["restore_ut_ar", "min_delta"])
    s["pwb_default_min"] = float(s_.loc["default", "min_delta"])
    s["pwb_v20_min"] = float(s_.loc["v2_0", "min_delta"])
    s["pwb_sens_n_match"] = _sens_n_match(sen.cmp)
    s["pwb_sens_n_entries"] = int(4 * len(sen.cmp))
    s["pwb_grid_005"] = float(sen.grid.loc[0.05, 0.05])
    lbc = sen.lb_cmp
    s["pwb_lb_n_match"] = int(
        sum((lbc[c].round(1) == lbc[f"{c}_printed"]).sum() for c in ("baseline", "prompted", "delta"))
    )
    s["pwb_lb_n_printed"] = int(3 * len(lbc))
    # human pilot
    p = val.pilot
    s["pwb_pilot_n"] = p["overall"]["n"]
    s["pwb_pilot_dim_min"] = int(p["per_dimension"]["n"].min())
    s["pwb_pilot_dim_max"] = int(p["per_dimension"]["n"].max())
    s["pwb_pilot_exact"], s["pwb_pilot_adj"], s["pwb_pilot_qwk"] = (
        p["overall"][k] for k in ("exact", "adjacent", "qwk")
    )
    s["pwb_pilot_low_n"], s["pwb_pilot_low_exact"], s["pwb_pilot_low_adj"] = (
        p["low_irr"][k] for k in ("n", "exact", "adjacent")
    )
    # fourth judge: records, duplicates, errors, rules
    au = val.audit
    s["pwb_fj_records"], s["pwb_fj_items"] = au["n_records"], au["n_items"]
    s["pwb_fj_dup_ids"] = _phrase_list([str(i) for i in au["duplicated_items"]])
    s["pwb_fj_dup_lastpos"] = int(val.dups["line"].max())
    s["pwb_fj_dup_disagree"] = sum(len(set(v)) > 1 for v in au["duplicate_scores"].values())
    s["pwb_fj_dup_n"] = len(au["duplicated_items"])
    s["pwb_fj_dup_records"] = len(val.dups)
    att = sorted({int(x) for x in r.inputs.fourth_errors["attempts"]})
    s["pwb_fj_err_attempts"] = str(att[0]) if len(att) == 1 else f"{att[0]}–{att[-1]}"
    s["pwb_fj_err_records"] = au["n_error_records"]
    s["pwb_fj_err_range"] = f"{au['error_item_range'][0]}–{au['error_item_range'][1]}"
    s["pwb_fj_n"] = au["n_sample"]
    per_dim_n = sorted(set(au["per_dimension_n"].values()))
    s["pwb_fj_per_dim"] = str(per_dim_n[0]) if len(per_dim_n) == 1 else f"{per_dim_n[0]}–{per_dim_n[-1]}"
    s["pwb_fj_rule_spread"] = float(val.rules["qwk"].max() - val.rules["qwk"].min())
    s["pwb_fj_irr_per_dim"] = au["n_sample"] // max(len(au["per_dimension_n"]), 1)
    # fourth judge agreement, sample IRR, full IRR (released)
    fa, fpd = val.fa, val.fa["per_dimension"].set_index("dimension")
    sirr_ = val.sirr.set_index("dimension")
    irr_rel = released["irr"].rename(columns={"Dimension": "dimension", "N": "n"}).set_index("dimension")
    s["pwb_fj_exact"], s["pwb_fj_adj"], s["pwb_fj_qwk"] = (fa["overall"][k] for k in ("exact", "adjacent", "qwk"))
    s["pwb_fj_qwk_mc"] = float(fpd.loc["metacognitive_calibration", "qwk"])
    s["pwb_fj_qwk_ut"] = float(fpd.loc["uncertainty_transparency", "qwk"])
    s["pwb_fj_n_triples"] = int(sirr_.loc["POOLED", "n"])
    s["pwb_irr_full_n"] = int(irr_rel.loc["POOLED", "n"])
    below = irr_rel.drop("POOLED")["qwk"].sort_values()
    below = below[below < 0.70]
    s["pwb_irr_below_n"] = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}.get(len(below), str(len(below)))
    s["pwb_irr_below_names"] = ", ".join(dim_label(dd) for dd in below.index)
    s["pwb_fj_beats_panel"] = int(sum(fpd.loc[dd, "qwk"] > sirr_.loc[dd, "qwk"] for dd in below.index))
    # the stale appendix table
    stale = a.stale
    prom_m, stale_printed = mats["prompted"], a.stale_printed
    s["pwb_stale_n_cells"] = len(stale)
    s["pwb_stale_n_off"] = int((stale["diff"].abs() > 0.005 + 1e-9).sum())
    s["pwb_stale_max"] = float(stale["diff"].abs().max())
    s["pwb_stale_mean"] = float(stale["diff"].abs().mean())
    s["pwb_stale_gpt_cf"] = float(prom_m.loc["GPT-oss 120B", "cognitive_forcing"])
    s["pwb_stale_gpt_cf_printed"] = float(stale_printed.loc["GPT-oss 120B", "cognitive_forcing"])
    s["pwb_stale_gpt_cf_rank"] = int(prom_m["cognitive_forcing"].rank(ascending=False).loc["GPT-oss 120B"])
    # the stale IRR figures of Section 4.3
    irr_ = released["irr"].set_index("Dimension")
    s["pwb_irr_ut"] = float(irr_.loc["uncertainty_transparency", "exact"])
    s["pwb_irr_ar"] = float(irr_.loc["appropriate_reliance", "exact"])
    s["pwb_irr_as"] = float(irr_.loc["anti_sycophancy", "exact"])
    s["pwb_sample_ut_exact"] = float(sirr_.loc["uncertainty_transparency", "exact"])
    s["pwb_sample_ut_n"] = int(sirr_.loc["uncertainty_transparency", "n"])
    need = a.stale_irr.set_index("dimension")
    for dim, key in (("uncertainty_transparency", "ut"), ("appropriate_reliance", "ar"), ("anti_sycophancy", "as")):
        s[f"pwb_need_{key}"] = float(need.loc[dim, "needed_share"])
    sp = printed.SMALLER_PRINTED
    s["pwb_dz_check"] = float(sp["paired_t"] / np.sqrt(sp["paired_n"]))
    s["pwb_n_slips"] = count_word(len(_slip_notes(r.inputs.notes)), capital=False)  # mid-sentence
    # effect sizes with confidence intervals (pingouin)
    s["pwb_dci_halfwidth"] = float(((e.d_ci["ci_upper"] - e.d_ci["ci_lower"]) / 2).max())
    lowest = e.d_ci.loc[e.d_ci["ci_lower"].idxmin()]
    s["pwb_dci_min_lower"], s["pwb_dci_min_model"] = float(lowest["ci_lower"]), str(lowest["model"])
    c = e.cell_ci
    s["pwb_cell_d_n"] = len(c)
    s["pwb_cell_d_n_pos"] = int((c["ci_lower"] > 0).sum())
    s["pwb_cell_d_n_neg"] = int((c["ci_upper"] < 0).sum())
    s["pwb_cell_d_n_zero"] = len(c) - s["pwb_cell_d_n_pos"] - s["pwb_cell_d_n_neg"]
    dc = e.dim_ci.set_index("dimension")
    s["pwb_dim_d_min"], s["pwb_dim_d_max"] = float(dc["d_pooled"].min()), float(dc["d_pooled"].max())
    s["pwb_dim_d_min_name"] = dim_label(str(dc["d_pooled"].idxmin()), long=True)
    s["pwb_dim_d_max_name"] = dim_label(str(dc["d_pooled"].idxmax()), long=True)
    s["pwb_inst_status"] = instances_status(r)
    return s


#: the names :func:`verdicts` glues (the chapter quotes them beside those of :func:`summary`)
VERDICT_NAMES = ("pwb_n_pwi", "pwb_pwi_verdict")


def verdicts(values: Mapping) -> dict[str, object]:
    """The chapter's sentence on Table 2 ("it should match to Monte-Carlo error, and it does"), generated from
    the statuses the claims check gives the 14 PWIs at this run's settings (``compendium.claims.own_statuses``),
    never fixed text: off the paper's settings it says so and names the changed keys."""
    from .. import claims

    ids = [k for k in values if k.startswith("pwb.pwi.") and k.endswith((".baseline", ".prompted"))]
    own = claims.own_statuses("pwb", values, ids)
    return {
        "pwb_n_pwi": len(ids),
        "pwb_pwi_verdict": claims.verdict(
            own,
            ", and it does",
            ", but this run is off the paper's settings ({keys}), so it does not",
            ", but only {n} of the {m} reproduce",
        ),
    }


# --------------------------------------------------------------------------------------------------
# the appendix chapter (notebooks/11_pwb_benchmark.md): the benchmark itself
# --------------------------------------------------------------------------------------------------

#: The released prompt files: one Layer-1 file per dimension (the authors' order), five Layer-2 scenarios.
LAYER1_FILES: tuple[str, ...] = DIMENSIONS
LAYER2_FILES: tuple[str, ...] = (
    "calibration_across_domains",
    "creative_collaboration",
    "ethical_blindspot",
    "sycophantic_agreement_trap",
    "teaching_moment",
)


def layer_overview(per_layer: pd.DataFrame) -> pd.DataFrame:
    """The three layers of the released benchmark: prompt counts and what is scored in each."""
    return pd.DataFrame(
        {
            "layer": ["Layer 1: single-turn probes", "Layer 2: multi-turn scenarios", "Layer 3: adversarial prompts"],
            "prompts": per_layer.set_index("layer")["prompts"].reindex([1, 2, 3]).to_numpy(),
            "unit scored": [
                "each of 5 runs, by 3 judges, on the probe's dimension",
                "each of 5 turns, on the scenario's tested dimensions (behaviour checklist by one judge)",
                "one response, on adversarial resilience",
            ],
        }
    )


def domain_table(inv: pd.DataFrame) -> pd.DataFrame:
    """Prompts per professional domain (rows) and layer, with a total, sorted by the layer counts."""
    per_domain = pd.crosstab(inv["domain"], inv["layer"]).rename(columns=lambda x: f"layer {x}")
    dom = per_domain.sort_values(list(per_domain.columns), ascending=False)
    dom["total"] = dom.sum(axis=1)
    return dom


def benchmark_summary(dims: pd.DataFrame, inv: pd.DataFrame, system_prompt: str) -> dict:
    """Every number the appendix's prose quotes, by its ``{glue:text}`` name (``pwbb_*``), from
    :func:`~compendium.pwb.benchmark.dimension_table`, :func:`~compendium.pwb.benchmark.prompt_inventory`
    and the system prompt's text."""
    l1 = inv[inv["layer"] == 1]
    per_dim = l1.groupby("dimension").size()
    return {
        "pwbb_n_dims": len(dims),
        "pwbb_n_pwi": int(dims["in_pwi"].sum()),
        "pwbb_n_unweighted": int((~dims["in_pwi"]).sum()),
        "pwbb_w_sum": float(dims.loc[dims["in_pwi"], "weight_v2_1"].sum()),
        "pwbb_n_l1": int((inv["layer"] == 1).sum()),
        "pwbb_n_l2": int((inv["layer"] == 2).sum()),
        "pwbb_n_l3": int((inv["layer"] == 3).sum()),
        "pwbb_n_l3_cat": int(inv.loc[inv["layer"] == 3, "category"].nunique()),
        "pwbb_n_domains": int(l1["domain"].nunique()),
        "pwbb_per_dim": int(per_dim.iloc[0]) if per_dim.nunique() == 1 else f"{per_dim.min()}–{per_dim.max()}",
        "pwbb_sp_words": len(system_prompt.split()),
    }


def benchmark_values(s: Mapping) -> dict:
    """The appendix stage's ``values.json`` entries (``pwb.benchmark.*``) from :func:`benchmark_summary`."""
    keys = {
        "n_dimensions": "pwbb_n_dims",
        "n_dimensions_in_pwi": "pwbb_n_pwi",
        "weight_sum_v2_1": "pwbb_w_sum",
        "n_layer1_prompts": "pwbb_n_l1",
        "n_layer2_scenarios": "pwbb_n_l2",
        "n_layer3_prompts": "pwbb_n_l3",
        "n_layer1_domains": "pwbb_n_domains",
        "system_prompt_words": "pwbb_sp_words",
    }
    return {f"pwb.benchmark.{k}": s[g] for k, g in keys.items()}

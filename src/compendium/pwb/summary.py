"""What the PWB chapter says, from the results it computes: one place for every number and phrase of its prose.

The chapter (``notebooks/10_pwb.md``) runs the analysis in visible cells (``agg.reconstruct_cells``,
``agg.table2``, ``val.fourth_judge_sample``, ...), collects the results in a :class:`Chapter` and calls

- :func:`summary` -- the dict of every number and phrase its prose quotes (glued in one call with
  :func:`compendium.display.glue_all`; the keys are the ``{glue:text}`` names of the chapter),
- :func:`stage_values` -- the chapter's own ``values.json`` entries (beside
  :func:`compendium.pwb.report.values_from_aggregates` and :func:`compendium.pwb.register.register_values`),
- :func:`tables` -- the result tables it writes under ``results/pwb/tables/``.

The small derived tables the chapter shows (:func:`layer_table`, :func:`smaller_points`,
:func:`register_slips`, :func:`stale_irr_requirement`, :func:`anomaly_table`) live here too, so that no
cell of the chapter computes what a sentence says. Display-only formatting is
:func:`compendium.display.table`'s; :data:`LABELS` holds the chapter's display labels.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .. import yamlfile
from . import ABBREV, DIMENSIONS, MODEL_KEYS, aggregates as agg, paper_printed as printed, report
from .report import mean_printed_delta

__all__ = [
    "Chapter",
    "summary",
    "stage_values",
    "tables",
    "dim_label",
    "LABELS",
    "layer_table",
    "smaller_points",
    "register_slips",
    "register_notes",
    "stale_irr_requirement",
    "anomaly_table",
    "instances_text",
    "instance_outputs",
    "d_interval_matrix",
    "count_word",
    "released_aggregates",
    "published_claims",
    "run_instances",
    "all_values",
]

_WORDS = {0: "No", 1: "One", 2: "Two", 3: "Three", 4: "Four", 5: "Five", 6: "Six", 7: "Seven", 8: "Eight", 9: "Nine"}


def count_word(n: int, capital: bool = True, small: int = 9) -> str:
    """``n`` as an English word up to ``small`` ("Seven", or "seven" with ``capital=False``), else digits."""
    if 0 <= n <= small:
        w = _WORDS[n]
        return w if capital else w.lower()
    return str(n)


def dim_label(d: str, long: bool = False) -> str:
    """A dimension's display label: its abbreviation (``CF``), or with ``long`` its name and abbreviation."""
    name = d.replace("_", " ")
    return f"{name} ({ABBREV.get(d, '')})" if long else ABBREV.get(d, name)


#: Display labels of the chapter's tables (for :func:`compendium.display.table`'s ``labels``).
LABELS: dict = {
    "dimension": lambda d: dim_label(d, long=True) if d in ABBREV else d,
    "condition": {"with_system_prompt": "prompted"},
}


def _phrase_list(items: list[str]) -> str:
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else "".join(items)


@dataclass
class Chapter:
    """The results the chapter computes, by the names its cells give them."""

    cells: pd.DataFrame  # agg.reconstruct_cells
    checks: pd.DataFrame  # agg.reconstruction_checks
    t2: pd.DataFrame  # agg.table2 with the released PWIs beside (columns *_released, diff_*)
    d_approx: pd.DataFrame  # agg.d_pooled_approx with printed_table2 and rounds_to_printed
    diag: pd.DataFrame  # agg.dimension_diagnostics with the released columns
    l1: pd.DataFrame  # agg.layer1_summary
    sens: pd.DataFrame  # agg.weight_sensitivity (per scheme)
    sens_pwis: pd.DataFrame  # agg.weight_sensitivity (the PWIs)
    cmp: pd.DataFrame  # sens merged with printed.SENSITIVITY_TABLE (suffix _printed)
    grid: pd.DataFrame  # agg.restore_grid
    lb: pd.DataFrame  # agg.leaderboard (v2.0 weights)
    pilot: dict  # val.pilot_agreement
    audit: dict  # val.fourth_judge_sample (the audit)
    dups: pd.DataFrame  # the duplicated fourth-judge records (line numbers 1-based)
    rules: pd.DataFrame  # val.dedupe_sensitivity
    fj_errors: pd.DataFrame  # the fourth judge's error records
    fa: dict  # val.fourth_judge_agreement
    sirr: pd.DataFrame  # val.sample_panel_irr
    stale: pd.DataFrame  # agg.stale_table_comparison
    released: Mapping  # the released CSVs (dimension_scores, pwi, summary, irr, layers, correlation, ...)
    published: Mapping  # claim id -> published value (published/pwb.yaml)
    slips: pd.DataFrame  # register_slips
    weight_scheme: str = "weights"
    cf_heavy_weight: float = 0.30
    restore_weight: float = 0.10
    d_ci: pd.DataFrame | None = None  # effects.d_pooled_intervals
    cell_ci: pd.DataFrame | None = None  # effects.cell_d_intervals
    dim_ci: pd.DataFrame | None = None  # effects.dimension_d_pooled_intervals
    instances_present: bool = False
    instance_tables: dict = field(default_factory=dict)  # run_instances()["tables"]
    extra: dict = field(default_factory=dict)


def layer_table(layers_released: pd.DataFrame, l1: pd.DataFrame) -> pd.DataFrame:
    """The released layer summary with Layer 1 replaced by the recomputed means and counts (``source`` says which)."""
    lay = layers_released.rename(columns={"Layer": "layer", "Variant": "condition", "Mean": "mean", "N": "n"})
    lay["source"] = np.where(lay["layer"] == "Layer 1", "recomputed (exact cell sums)", "released")
    for _, r in l1.iterrows():
        m = (lay["layer"] == "Layer 1") & (lay["condition"] == r["condition"])
        lay.loc[m, "mean"], lay.loc[m, "n"] = r["mean"], r["n"]
    return lay


def stale_irr_requirement(cells: pd.DataFrame, irr_released: pd.DataFrame) -> pd.DataFrame:
    """:func:`~compendium.pwb.aggregates.incomplete_run_agreement_needed` for the stale Section 4.3 figures
    (``paper_printed.INCONSISTENCIES``, topic "UT exact agreement")."""
    stale_printed = next(x for x in printed.INCONSISTENCIES if x["topic"] == "UT exact agreement")["printed"]
    return agg.incomplete_run_agreement_needed(cells, irr_released, stale_printed)


def _completeness(cells: pd.DataFrame) -> pd.Series:
    """Share of the design's runs (7 models x 2 conditions x 20 prompts x 5 runs) scored, per dimension."""
    return cells.groupby("dimension")["n"].sum() / (cells.groupby("dimension")["model"].nunique() * 2 * 20 * 5)


def smaller_points(cells: pd.DataFrame, t2: pd.DataFrame, released: Mapping) -> pd.DataFrame:
    """The "smaller points" table: what the paper says, what the data (or the authors' code) give, our verdict."""
    sp = printed.SMALLER_PRINTED
    comp = _completeness(cells)
    l1n = int(cells["n"].sum())
    pwi_rel = released["pwi"].pivot(index="Model", columns="Variant", values="PWI").diff(axis=1)
    irr = released["irr"].set_index("Dimension")
    below = irr.drop("POOLED")["qwk"].sort_values()
    below = below[below < 0.70]
    min_pairs = int(cells.pivot_table(index=["model", "dimension"], columns="condition", values="n").min(axis=1).sum())
    rows = [
        {
            "topic": "ΔPWI of DeepSeek V3.2",
            "paper": f"+{sp['deepseek_delta_pwi']} (paper's Table 2)",
            "data": f"the printed bootstrap means give +{pwi_rel.loc['DeepSeek V3.2', 'with_system_prompt']:.1f}; "
            f"the point PWIs give +{float(t2.set_index('model').loc['DeepSeek V3.2', 'delta']):.2f}, which "
            "`summary_table.csv` prints as "
            f"+{float(released['summary'].set_index('Model').loc['DeepSeek V3.2', 'Delta_PWI']):.1f}",
            "verdict": "both legitimate; the paper's Table 2 is consistent with its own columns",
        },
        {
            "topic": "scored Layer-1 runs",
            "paper": f"{sp['scored_layer1_runs']:,} carry a panel median (Appendix A)",
            "data": f"{l1n:,} from the cell counts",
            "verdict": "consistent" if l1n == sp["scored_layer1_runs"] else "differs",
        },
        {
            "topic": "per-dimension completeness",
            "paper": f"{sp['completeness_min_pct']} % (complementarity) to {sp['completeness_max_pct']} % (UT)",
            "data": f"{100 * comp.min():.2f} % ({comp.idxmin()}) to {100 * comp.max():.2f} % ({comp.idxmax()})",
            "verdict": "consistent" if abs(100 * comp.min() - sp["completeness_min_pct"]) < 0.005 else "differs",
        },
        {
            "topic": "Layer-1 paired N",
            "paper": f"N = {sp['paired_n']:,} paired observations (Sec. 5.4)",
            "data": f"{sp['paired_n']:,} is the baseline run count; runs scored in both conditions of a cell number "
            f"at most {min_pairs:,}",
            "verdict": "pairing rule not published; needs per-instance data",
        },
        {
            "topic": "dimensions below QW-κ 0.70",
            "paper": "three (MC, UT, AR_d): Sec. 6.3 and Limitations; four: Fig. 2 caption",
            "data": f"{len(below)} in the released IRR table: "
            + ", ".join(f"{dim_label(d)} {k:.3f}" for d, k in below.items()),
            "verdict": "the text omits skill preservation"
            if irr.loc["skill_preservation", "qwk"] < 0.70
            else "consistent",
        },
        {
            "topic": "per-dimension HDI",
            "paper": "Beta fitted by moment matching (appendix)",
            "data": "the authors' code and the released Mean column: Dirichlet(1,1,1,1) posterior",
            "verdict": "text differs from code",
        },
        {
            "topic": "radar figure",
            "paper": "averaged across all seven models (caption)",
            "data": "the authors' figure code plots the top three models",
            "verdict": "caption differs from code",
        },
    ]
    out = pd.DataFrame(rows)
    # authored MyST (a code span) around numbers and the dimension and model names the schema allows
    out.attrs["markup"] = ["data"]
    return out


def register_notes(path: Path | None = None) -> dict:
    """``published/notes/pwb.yaml``: claim id -> note (kind, reason, note, evidence)."""
    from compendium import paths

    path = path or paths.PUBLISHED / "notes" / "pwb.yaml"
    return yamlfile.load(path) or {}


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
        for k, n in notes.items()
        if n.get("kind") == "differs" and n.get("reason") != "stale_table"
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
    "instances_pingouin_per_dimension": (
        "tbl-pwb-inst-wilcoxon",
        "Layer 1, per dimension: paired Wilcoxon signed-rank test of prompted against baseline runs "
        "(pingouin; rank-biserial correlation as the effect size), p-values Bonferroni-corrected over the dimensions.",
    ),
    "instances_pingouin_per_model": (
        "tbl-pwb-inst-ttest",
        "Layer 1, per model: paired t-test of prompted against baseline runs (pingouin), with the 95 % interval of "
        "the mean difference, d_z and p-values Bonferroni-corrected over the models.",
    ),
    "instances_pingouin_layer2": (
        "tbl-pwb-inst-layer2",
        "Layer 2: paired t-tests over scenarios, per model and pooled.",
    ),
    "instances_pingouin_layer3": ("tbl-pwb-inst-layer3", "Layer 3: paired t-tests over prompts, per model and pooled."),
}


_P_FORMATS = {"p": "{:.2e}", "p_bonferroni": "{:.2e}"}


def _tests_markdown(tests: Mapping[str, pd.DataFrame]) -> str:
    from compendium.display import table

    parts = []
    for k, (name, cap) in _TEST_TABLES.items():
        if k in tests:  # the Layer-2/3 tables have a p but no p_bonferroni: format the p columns each has
            fmt = {c: f for c, f in _P_FORMATS.items() if c in tests[k].columns}
            parts.append(table(tests[k], name, cap, precision=3, labels=LABELS, spaces=True, formats=fmt).data)
    return "".join("\n\n" + p for p in parts)


def instances_text(
    results_dir: Path,
    root: Path,
    *,
    res: Mapping | None = None,
    n_scores: int = 0,
    max_sum_diff: float = float("nan"),
    n_boot: int = 10_000,
    seed: int = 42,
    tests: Mapping[str, pd.DataFrame] | None = None,
) -> tuple[str, str]:
    """The chapter's sentence on the per-instance data (``pwb_inst_status``) and the paragraph of its section;
    with ``tests`` (the ``instances_pingouin_*`` tables of :func:`instance_outputs`) the paragraph ends with
    the significance tests as numbered tables. The folder (a parameter) is a literal code span."""
    from ..safetext import code

    if res is not None:
        status = (
            "The per-instance results are present in this build: the bootstrap PWIs, d_pooled, the Table 3 CIs, "
            "paired tests, IRR on complete triples and r(CF, CO) are computed from them and fill the claim ids."
        )
        md = (
            f"{code(results_dir.name + '/')} is present: {n_scores:,} judge scores, "
            f"{len(res['runs']):,} scored Layer-1 runs. The per-cell score sums of these runs differ from the "
            f"sums recovered from the aggregates by at most {max_sum_diff:g}. The tables "
            "`results/pwb/tables/instances_*.csv` hold the bootstrap PWIs with percentile intervals, d_pooled, "
            "Table 3 with its bootstrap CIs, the paired tests, the IRR table and the prompt-level correlations; "
            "{numref}`fig-pwb-inst` shows the PWIs."
        )
        return status, md + _tests_markdown(tests or {})
    status = (
        "The per-instance results are not in this build (they are on the Hugging Face hub only), so d_pooled, "
        "the bootstrap intervals, the paired tests, the full IRR table and r(CF, CO) carry no reproduced value; "
        "acquiring them (python -m compendium.data.acquire pwb) makes the stage compute all of them."
    )
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
    return status, md


def released_aggregates() -> dict[str, pd.DataFrame]:
    """The released ``analysis_output/*.csv`` files the chapter reads (validated loaders of :mod:`compendium.data`)."""
    from compendium import data

    return {
        "dimension_scores": data.load_pwb_dimension_scores(),
        "effect_sizes": data.load_pwb_effect_sizes(),
        "pwi": data.load_pwb_pwi_scores(),
        "summary": data.load_pwb_summary_table(),
        "diagnostics": data.load_pwb_dimension_diagnostics(),
        "irr": data.load_pwb_irr_table(),
        "layers": data.load_pwb_layer_summary(),
        "correlation": data.load_pwb_correlation_matrix(),
    }


def published_claims(path: Path | None = None) -> dict:
    """Claim id -> published value of ``published/pwb.yaml`` (quoted in the prose, never an input)."""
    from compendium import paths

    path = path or paths.PUBLISHED / "pwb.yaml"
    return {c["id"]: c["published"] for c in yamlfile.load(path)["claims"]}


def run_instances(
    stage: str,
    results_dir: Path,
    cells: pd.DataFrame,
    weights: Mapping[str, float],
    *,
    n_boot: int = 10_000,
    seed: int = 42,
    ci_level: float = 0.95,
    diag_n_boot: int = 2000,
    diag_seed: int = 0,
    progress=None,
) -> dict:
    """The per-instance path when ``results_dir`` exists: load, run
    :func:`~compendium.pwb.instances.run_instance_pipeline` (with progress reports), and collect its tables
    and values (:func:`instance_outputs`). Returns ``res`` (None without data), ``anomalies``, ``tables``
    (including ``judge_anomalies``), ``values`` and ``text`` (keywords for :func:`instances_text`).
    ``progress`` is :func:`compendium.progress.step` in the stage (passed in, so that this module, which the
    appendix stage imports too, does not make that stage depend on the progress reporter)."""
    import contextlib

    from . import instances as inst

    if not Path(results_dir).is_dir():
        anomalies = inst.judge_anomalies(pd.DataFrame(columns=list(inst.SCHEMA) + ["score_raw", "stored_score"]))
        return {
            "res": None,
            "anomalies": anomalies,
            "tables": {"judge_anomalies": (anomalies, False)},
            "values": {},
            "text": {},
        }
    table = inst.load_hf_results(results_dir)
    step = progress or (lambda *a, **k: contextlib.nullcontext())
    with step(stage, "per-instance path: PWI and Table 3 bootstraps, tests, IRR", n=n_boot, unit="draws per PWI"):
        res = inst.run_instance_pipeline(
            table, weights, n_boot=n_boot, seed=seed, ci=ci_level, diag_n_boot=diag_n_boot, diag_seed=diag_seed
        )
    tables_, values = instance_outputs(cells, res, ci_level)
    tables_["judge_anomalies"] = (res["anomalies"], False)
    text = {
        "res": res,
        "n_scores": len(table),
        "max_sum_diff": values["pwb.inst.vs_aggregates.max_abs_sum_diff"],
        "tests": {k: t for k, (t, _) in tables_.items() if k.startswith("instances_pingouin_")},
    }
    return {"res": res, "anomalies": res["anomalies"], "tables": tables_, "values": values, "text": text}


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


def instance_outputs(cells: pd.DataFrame, res: Mapping, ci_level: float = 0.95) -> tuple[dict, dict]:
    """From :func:`~compendium.pwb.instances.run_instance_pipeline`: the tables to write (name -> (table,
    write the index)), with the pingouin tests of :mod:`compendium.pwb.effects`, and the ``pwb.inst.*``
    values (:func:`~compendium.pwb.report.values_from_instances` and the largest difference between the
    runs' per-cell score sums and the sums recovered from the aggregates)."""
    from . import effects

    out = {
        f"instances_{n}": (res[n], False) for n in ("pwi", "d_pooled", "diagnostics", "irr", "layers", "completeness")
    }
    out.update({f"instances_tests_{n}": (t, False) for n, t in res["tests"].items()})
    out.update({f"instances_pingouin_{n}": (t, False) for n, t in effects.paired_tests(res["runs"], ci_level).items()})
    for layer in (2, 3):
        if (res["panel"]["layer"] == layer).any():
            out[f"instances_pingouin_layer{layer}"] = (effects.layer_ttests(res["panel"], layer, ci_level), False)
    out["instances_correlation"] = (res["correlation"], True)
    if res.get("correlation_authors") is not None:
        out["instances_correlation_authors"] = (res["correlation_authors"], True)
    cm = res["runs"].groupby(["model", "condition", "dimension"])["panel"].agg(["sum", "size"]).reset_index()
    chk = cells.merge(cm, on=["model", "condition", "dimension"], how="outer")
    v = report.values_from_instances(res)
    v["pwb.inst.vs_aggregates.max_abs_sum_diff"] = (
        float(np.nanmax(np.abs(chk["score_sum"] - chk["sum"]))) if len(chk) else float("nan")
    )
    return out, v


def _matrices(cells: pd.DataFrame) -> dict[str, pd.DataFrame]:
    return {w: agg.model_dimension_matrix(cells, w) for w in ("baseline", "prompted", "delta")}


def _pwi_off(ch: Chapter) -> list[tuple[str, str]]:
    """(model, condition) of the published PWIs that differ from our point PWI rounded to 1 decimal."""
    return [
        (r["model"], cond)
        for _, r in ch.t2.iterrows()
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


def summary(ch: Chapter) -> dict:
    """Every number and phrase the chapter's prose quotes, by its ``{glue:text}`` name (plain Python values;
    ``pwb_weight_scheme_md`` is Markdown for ``{glue:md}``)."""
    from IPython.display import Markdown

    from ..safetext import code

    s: dict = {}
    cells, t2, diag = ch.cells, ch.t2, ch.diag
    # reconstruction and Table 2
    n_models = int(cells["model"].nunique())
    s["pwb_n_models"] = n_models
    s["pwb_n_pwis"] = 2 * n_models
    s["pwb_n_models_word"] = {7: "Seven"}.get(n_models, str(n_models))
    s["pwb_n_dims"] = int(cells["dimension"].nunique())
    pub_base = [v for k, v in ch.published.items() if k.startswith("pwb.pwi.") and k.endswith(".baseline")]
    s["pwb_pub_base_min"], s["pwb_pub_base_max"] = float(min(pub_base)), float(max(pub_base))
    s["pwb_pub_mean_delta"] = float(ch.published["pwb.delta.mean"])
    s["pwb_n_cells"] = len(cells)
    s["pwb_n_checks"] = len(ch.checks)
    s["pwb_recon_maxdiff"] = float(ch.checks["abs_diff"].max())
    s["pwb_post_maxdev"] = float((cells["posterior_implied"] - cells["posterior_released"]).abs().max())
    scheme_note = "the paper's v2.1 weights" if ch.weight_scheme == "weights" else "not the paper's v2.1 weights"
    s["pwb_weight_scheme_md"] = Markdown(f"{code(ch.weight_scheme)} ({scheme_note})")
    gaps = pd.concat([t2["diff_baseline"], t2["diff_prompted"]]).abs()
    off = _pwi_off(ch)
    summ = ch.released["summary"].set_index("Model")
    s["pwb_n_pwi_off"] = {0: "No", 1: "One", 2: "Two", 3: "Three"}.get(len(off), str(len(off)))
    s["pwb_pwi_off_names"] = " and ".join(f"{m} {c}" for m, c in off) or "none"
    s["pwb_pwi_off_summary"] = " and ".join(f"{summ.loc[m, 'PWI_' + c]:.1f}" for m, c in off) or "–"
    s["pwb_pwi_maxdiff"] = float(gaps.max())
    s["pwb_n_within_tol"] = int((gaps <= 0.1).sum())
    s["pwb_mean_delta"] = mean_printed_delta(t2["baseline"], t2["prompted"])
    for name, col in (("delta", "delta_printed"), ("base", "baseline"), ("prompt", "prompted")):
        s[f"pwb_{name}_min"], s[f"pwb_{name}_max"] = float(t2[col].min()), float(t2[col].max())
    # d_pooled
    d = ch.d_approx
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
    l1_ = ch.l1.set_index("condition")
    s["pwb_l1_base"] = float(l1_.loc["baseline", "mean"])
    s["pwb_l1_prompt"] = float(l1_.loc["with_system_prompt", "mean"])
    s["pwb_l1_nb"] = int(l1_.loc["baseline", "n"])
    s["pwb_l1_np"] = int(l1_.loc["with_system_prompt", "n"])
    mats = _matrices(cells)
    neg = mats["delta"].stack()
    neg = neg[neg < 0]
    by_model: dict[str, list[str]] = {}
    for (m, dd), _v in neg.items():
        by_model.setdefault(m, []).append(dim_label(dd))
    s["pwb_neg_cells"] = "; ".join(f"{m} on {', '.join(ds)}" for m, ds in by_model.items()) or "none"
    # correlation matrix (released)
    corr = ch.released["correlation"]
    offd = corr.where(~np.eye(len(corr), dtype=bool)).stack()
    cf_co = float(corr.loc["cognitive_forcing", "complementarity"])
    s["pwb_cf_co_released"] = cf_co
    s["pwb_corr_n_above"] = int((offd.abs() > 0.70).sum() // 2)
    s["pwb_corr_second"] = float(offd[offd < cf_co - 1e-12].max())
    # weight sensitivity, restore grid, leaderboard
    s["pwb_cf_heavy_weight"] = float(ch.cf_heavy_weight)
    s["pwb_restore_weight"] = float(ch.restore_weight)
    s_ = ch.sens.set_index("scheme")
    s["pwb_tau_equal"] = float(s_.loc["equal", "kendall_tau"])
    s["pwb_min_cf"] = float(s_.loc["cf_heavy", "min_delta"])
    s["pwb_restore_min"] = float(s_.loc["restore_ut_ar", "min_delta"])
    s["pwb_default_min"] = float(s_.loc["default", "min_delta"])
    s["pwb_v20_min"] = float(s_.loc["v2_0", "min_delta"])
    s["pwb_sens_n_match"] = _sens_n_match(ch.cmp)
    s["pwb_sens_n_entries"] = int(4 * len(ch.cmp))
    s["pwb_grid_005"] = float(ch.grid.loc[0.05, 0.05])
    lbc = ch.lb.merge(printed.LEADERBOARD_V2_0, on="model", suffixes=("", "_printed"))
    s["pwb_lb_n_match"] = int(
        sum((lbc[c].round(1) == lbc[f"{c}_printed"]).sum() for c in ("baseline", "prompted", "delta"))
    )
    s["pwb_lb_n_printed"] = int(3 * len(lbc))
    # human pilot
    p = ch.pilot
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
    a = ch.audit
    s["pwb_fj_records"], s["pwb_fj_items"] = a["n_records"], a["n_items"]
    s["pwb_fj_dup_ids"] = _phrase_list([str(i) for i in a["duplicated_items"]])
    s["pwb_fj_dup_lastpos"] = int(ch.dups["line"].max())
    s["pwb_fj_dup_disagree"] = sum(len(set(v)) > 1 for v in a["duplicate_scores"].values())
    s["pwb_fj_dup_n"] = len(a["duplicated_items"])
    s["pwb_fj_dup_records"] = len(ch.dups)
    att = sorted({int(x) for x in ch.fj_errors["attempts"]})
    s["pwb_fj_err_attempts"] = str(att[0]) if len(att) == 1 else f"{att[0]}–{att[-1]}"
    s["pwb_fj_err_records"] = a["n_error_records"]
    s["pwb_fj_err_range"] = f"{a['error_item_range'][0]}–{a['error_item_range'][1]}"
    s["pwb_fj_n"] = a["n_sample"]
    per_dim_n = sorted(set(a["per_dimension_n"].values()))
    s["pwb_fj_per_dim"] = str(per_dim_n[0]) if len(per_dim_n) == 1 else f"{per_dim_n[0]}–{per_dim_n[-1]}"
    s["pwb_fj_rule_spread"] = float(ch.rules["qwk"].max() - ch.rules["qwk"].min())
    s["pwb_fj_irr_per_dim"] = a["n_sample"] // max(len(a["per_dimension_n"]), 1)
    # fourth judge agreement, sample IRR, full IRR (released)
    fa, fpd = ch.fa, ch.fa["per_dimension"].set_index("dimension")
    sirr_ = ch.sirr.set_index("dimension")
    irr_rel = ch.released["irr"].rename(columns={"Dimension": "dimension", "N": "n"}).set_index("dimension")
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
    stale = ch.stale
    prom_m, stale_printed = mats["prompted"], printed.stale_appendix_table()
    s["pwb_stale_n_cells"] = len(stale)
    s["pwb_stale_n_off"] = int((stale["diff"].abs() > 0.005 + 1e-9).sum())
    s["pwb_stale_max"] = float(stale["diff"].abs().max())
    s["pwb_stale_mean"] = float(stale["diff"].abs().mean())
    s["pwb_stale_gpt_cf"] = float(prom_m.loc["GPT-oss 120B", "cognitive_forcing"])
    s["pwb_stale_gpt_cf_printed"] = float(stale_printed.loc["GPT-oss 120B", "cognitive_forcing"])
    s["pwb_stale_gpt_cf_rank"] = int(prom_m["cognitive_forcing"].rank(ascending=False).loc["GPT-oss 120B"])
    # the stale IRR figures of Section 4.3
    irr_ = ch.released["irr"].set_index("Dimension")
    s["pwb_irr_ut"] = float(irr_.loc["uncertainty_transparency", "exact"])
    s["pwb_irr_ar"] = float(irr_.loc["appropriate_reliance", "exact"])
    s["pwb_irr_as"] = float(irr_.loc["anti_sycophancy", "exact"])
    s["pwb_sample_ut_exact"] = float(sirr_.loc["uncertainty_transparency", "exact"])
    s["pwb_sample_ut_n"] = int(sirr_.loc["uncertainty_transparency", "n"])
    need = stale_irr_requirement(cells, ch.released["irr"]).set_index("dimension")
    for dim, key in (("uncertainty_transparency", "ut"), ("appropriate_reliance", "ar"), ("anti_sycophancy", "as")):
        s[f"pwb_need_{key}"] = float(need.loc[dim, "needed_share"])
    sp = printed.SMALLER_PRINTED
    s["pwb_dz_check"] = float(sp["paired_t"] / np.sqrt(sp["paired_n"]))
    s["pwb_n_slips"] = count_word(len(ch.slips), capital=False)  # mid-sentence
    # effect sizes with confidence intervals (pingouin)
    if ch.d_ci is not None:
        s["pwb_dci_halfwidth"] = float(((ch.d_ci["ci_upper"] - ch.d_ci["ci_lower"]) / 2).max())
        lowest = ch.d_ci.loc[ch.d_ci["ci_lower"].idxmin()]
        s["pwb_dci_min_lower"], s["pwb_dci_min_model"] = float(lowest["ci_lower"]), str(lowest["model"])
    if ch.cell_ci is not None:
        c = ch.cell_ci
        s["pwb_cell_d_n"] = len(c)
        s["pwb_cell_d_n_pos"] = int((c["ci_lower"] > 0).sum())
        s["pwb_cell_d_n_neg"] = int((c["ci_upper"] < 0).sum())
        s["pwb_cell_d_n_zero"] = len(c) - s["pwb_cell_d_n_pos"] - s["pwb_cell_d_n_neg"]
    if ch.dim_ci is not None:
        dc = ch.dim_ci.set_index("dimension")
        s["pwb_dim_d_min"], s["pwb_dim_d_max"] = float(dc["d_pooled"].min()), float(dc["d_pooled"].max())
        s["pwb_dim_d_min_name"] = dim_label(str(dc["d_pooled"].idxmin()), long=True)
        s["pwb_dim_d_max_name"] = dim_label(str(dc["d_pooled"].idxmax()), long=True)
    s.update(ch.extra)
    return s


def stage_values(ch: Chapter) -> dict:
    """The chapter's own ``values.json`` entries (``pwb.agg.*``, ``pwb.released.*``, ``pwb.sensitivity.*``,
    ``pwb.restore_grid.*``, ``pwb.leaderboard_v2_0.*``, ``pwb.pilot.*``, ``pwb.fourth_judge.*``,
    ``pwb.sample_irr.*``, ``pwb.stale.*``)."""
    v: dict = {}
    cells = ch.cells
    v["pwb.data_level.instances_present"] = int(ch.instances_present)
    v["pwb.agg.reconstruction.max_abs_diff"] = float(ch.checks["abs_diff"].max())
    v["pwb.agg.reconstruction.posterior_max_abs_dev"] = float(
        (cells["posterior_implied"] - cells["posterior_released"]).abs().max()
    )
    v["pwb.agg.n_cells_prompt_lowers"] = int((_matrices(cells)["delta"].stack() < 0).sum())
    v["pwb.released.cf_co_r"] = float(ch.released["correlation"].loc["cognitive_forcing", "complementarity"])
    lay = layer_table(ch.released["layers"], ch.l1)
    for _, r in lay[lay["layer"] != "Layer 1"].iterrows():
        cond = "prompted" if r["condition"] == "with_system_prompt" else "baseline"
        v[f"pwb.released.{r['layer'].lower().replace(' ', '')}.{cond}_mean"] = float(r["mean"])
    for _, r in ch.sens.iterrows():
        for col in ("kendall_tau", "max_dev", "min_delta"):
            v[f"pwb.sensitivity.{r['scheme']}.{col}"] = float(r[col])
        v[f"pwb.sensitivity.{r['scheme']}.top3_stable"] = int(r["top3_stable"])
    v["pwb.restore_grid.ut_0.05.ar_0.05"] = float(ch.grid.loc[0.05, 0.05])
    v["pwb.restore_grid.ut_0.10.ar_0.10"] = float(ch.grid.loc[0.10, 0.10])
    for _, r in ch.lb.iterrows():
        for col in ("baseline", "prompted", "delta"):
            v[f"pwb.leaderboard_v2_0.{MODEL_KEYS[r['model']]}.{col}"] = float(r[col])
    for k in ("n", "exact", "adjacent", "qwk", "mad"):
        v[f"pwb.pilot.{k}"] = ch.pilot["overall"][k]
        v[f"pwb.pilot.low_irr.{k}"] = ch.pilot["low_irr"][k]
    a = ch.audit
    v["pwb.fourth_judge.n_records"] = a["n_records"]
    v["pwb.fourth_judge.n_items"] = a["n_items"]
    v["pwb.fourth_judge.n_duplicated_items"] = len(a["duplicated_items"])
    v["pwb.fourth_judge.n_error_records"] = a["n_error_records"]
    v["pwb.fourth_judge.error_items_rescored"] = a["error_items_rescored"]
    for k in ("n", "exact", "adjacent", "qwk", "mad"):
        v[f"pwb.fourth_judge.{k}"] = ch.fa["overall"][k]
    for _, r in ch.fa["per_dimension"].iterrows():
        for k in ("n", "exact", "adjacent", "qwk"):
            v[f"pwb.fourth_judge.{r['dimension']}.{k}"] = r[k]
    for _, r in ch.sirr.iterrows():
        for k in ("n", "exact", "adjacent", "qwk", "alpha", "spread"):
            v[f"pwb.sample_irr.{r['dimension']}.{k}"] = r[k]
    stale = ch.stale
    v["pwb.stale.max_abs_diff"] = float(stale["diff"].abs().max())
    v["pwb.stale.mean_abs_diff"] = float(stale["diff"].abs().mean())
    v["pwb.stale.n_cells_off"] = int((stale["diff"].abs() > 0.005 + 1e-9).sum())
    v["pwb.released.irr.uncertainty_transparency.exact"] = float(
        ch.released["irr"].set_index("Dimension").loc["uncertainty_transparency", "exact"]
    )
    comp = _completeness(cells)
    v["pwb.agg.completeness.min_share"] = float(comp.min())
    v["pwb.agg.completeness.max_share"] = float(comp.max())
    return v


def all_values(ch: Chapter, instance_values: Mapping, n_anomalies: int, reg_values: Mapping) -> dict:
    """The stage's whole ``values.json``: :func:`stage_values`, then the per-instance values, the anomaly
    count, :func:`~compendium.pwb.report.values_from_aggregates` (``pwb.agg.*``, ``pwb.approx.*``) and last
    the register's cells and text claims (which win on a shared key)."""
    v = {**stage_values(ch), **instance_values, "pwb.inst.anomalies.n": int(n_anomalies)}
    v.update(report.values_from_aggregates(ch.t2, ch.diag, ch.l1, ch.d_approx, write_claims=False))
    v.update(reg_values)
    return v


def tables(ch: Chapter) -> dict[str, tuple[pd.DataFrame, bool]]:
    """The result tables the chapter writes under ``results/pwb/tables/``: name -> (table, write the index)."""
    mats = _matrices(ch.cells)
    irr_rel = ch.released["irr"].rename(columns={"Dimension": "dimension", "N": "n"})
    fa = ch.fa
    fj_tbl = pd.concat([pd.DataFrame([{"dimension": "ALL", **fa["overall"]}]), fa["per_dimension"]], ignore_index=True)
    pilot = ch.pilot
    pilot_tbl = pd.concat(
        [
            pd.DataFrame([{"dimension": "ALL", **pilot["overall"]}]),
            pd.DataFrame([{"dimension": "UT + AR_d", **pilot["low_irr"]}]),
            pilot["per_dimension"],
        ],
        ignore_index=True,
    )
    out = {
        "cells": (ch.cells, False),
        "reconstruction_checks": (ch.checks, False),
        "table2_pwi": (ch.t2, False),
        "d_pooled_approx": (ch.d_approx, False),
        "dimension_diagnostics": (ch.diag, False),
        "model_dimension_baseline": (mats["baseline"], True),
        "model_dimension_prompted": (mats["prompted"], True),
        "model_dimension_delta": (mats["delta"], True),
        "layer_summary": (layer_table(ch.released["layers"], ch.l1), False),
        "correlation_matrix_released": (ch.released["correlation"], True),
        "weight_sensitivity": (ch.sens[["scheme", "kendall_tau", "max_dev", "min_delta", "top3_stable"]], False),
        "weight_sensitivity_pwis": (ch.sens_pwis, False),
        "restore_grid_min_delta": (ch.grid, True),
        "leaderboard_v2_0": (ch.lb, False),
        "pilot_agreement": (pilot_tbl, False),
        "fourth_judge_duplicates": (ch.dups, False),
        "fourth_judge_rules": (ch.rules, False),
        "fourth_judge_agreement": (fj_tbl, False),
        "fourth_judge_agreement_per_model": (fa["per_model"], False),
        "fourth_judge_agreement_per_condition": (fa["per_condition"], False),
        "panel_irr_sample_vs_full": (
            ch.sirr.merge(irr_rel, on="dimension", suffixes=("_sample", "_full_released")),
            False,
        ),
        "stale_appendix_comparison": (ch.stale, False),
        "stale_irr_requirement": (stale_irr_requirement(ch.cells, ch.released["irr"]), False),
        "paper_smaller_points": (smaller_points(ch.cells, ch.t2, ch.released), False),
        "register_slips": (ch.slips, False),
    }
    out.update(ch.instance_tables)
    if ch.d_ci is not None:
        out["d_pooled_intervals"] = (ch.d_ci, False)
    if ch.cell_ci is not None:
        out["cell_d_intervals"] = (ch.cell_ci, False)
    if ch.dim_ci is not None:
        out["dimension_d_pooled_intervals"] = (ch.dim_ci, False)
    return out


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

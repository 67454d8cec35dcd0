"""Display copies of the PWB chapter's tables and its per-instance paragraph: formats, labels, captions.

Nothing here changes a result: :data:`LABELS` names the chapter's columns and values for
:func:`compendium.chapter.display.table`; :func:`d_interval_matrix` writes the effect-size intervals as
"d [lower, upper]" text; :func:`anomaly_table` groups the judge anomalies with their caption; and
:func:`instances_markdown` is the paragraph of the per-instance section (with the data, its significance tests as
numbered tables). The result tables themselves are :mod:`compendium.pwb.values`'.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from .build import PwbResult
from .constants import ABBREV, DIMENSIONS, dim_label

__all__ = ["LABELS", "dim_label", "d_interval_matrix", "anomaly_table", "instances_markdown"]

#: Display labels of the chapter's tables (for :func:`compendium.chapter.display.table`'s ``labels``).
LABELS: dict = {
    "dimension": lambda d: dim_label(d, long=True) if d in ABBREV else d,
    "condition": {"with_system_prompt": "prompted"},
}


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


def instances_markdown(r: PwbResult, root: Path | None = None) -> str:
    """The paragraph of the per-instance section; with the data it ends with the significance tests as
    numbered tables. The folder (``Inputs.load``'s ``instances_dir``) is a literal code span; ``root``: the repository."""
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

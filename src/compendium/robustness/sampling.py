"""How sure is each finding beyond its sweep: resampling checks of the data at the paper's setting.

A sweep (:mod:`.sweeps`) varies an analysis choice with the data fixed. These checks do the opposite: the
paper's setting, the data resampled (the WORKBank raters as clusters; the preference judgements, and the
prompt categories as clusters), so the summary can say how often a finding survives a re-run as well.
P(Recipe C beats Recipe D) is not recomputed: it is read from the values the preferences chapter exports for
this stage (:func:`preference_values`, :func:`c_beats_d_shares`), so the book prints one number for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from .sweeps import ties_per_model

__all__ = [
    "zone_sampling_check",
    "bt_sampling_check",
    "preference_values",
    "c_beats_d_shares",
    "pwb_gain_intervals",
    "share_text",
    "BT_FACTOR",
]

#: the preference checks run this many times ``n_sampling`` replicates: a replicate is one Bradley-Terry fit,
#: so 20,000 of each bootstrap take about 2.5 s, and a share near 12 % then has a Monte Carlo standard error
#: of 0.2 points rather than the 0.7 of 2,000 (which printed 11 % for a share of about 12.4 %)
BT_FACTOR = 10


def share_text(p: float, n: int) -> str:
    """:func:`compendium.stats.mcdigits.share_text` (kept here by name for the wing's callers)."""
    from compendium.stats.mcdigits import share_text as _share_text

    return _share_text(p, n)


def zone_sampling_check(
    desires: pd.DataFrame, experts: pd.DataFrame, cutoff: float, n_draws: int, seed: int
) -> dict[str, float]:
    """How often the zone findings survive resampling the *raters* at one cut-off (``>=`` is high; the
    chapter's is the paper's, :data:`.sweeps.PAPER_CUTOFF`).

    Calls :func:`compendium.workbank.landscape.zone_cluster_bootstrap` (workers resampled within their
    occupation, experts from all experts) and returns the share of draws in which Green Light is the
    largest zone (``p_green_largest``) and Red Light outnumbers R&D Opportunity (``p_red_gt_rnd``),
    with ``n_draws``; and ``p_green_largest_experts_only``, the same share when only the experts are
    resampled (a different expert panel, the workers and tasks fixed).
    """
    from ..workbank import landscape as wl
    from ..workbank.common import drop_repeated_rows

    uniq, _ = drop_repeated_rows(experts)
    land = wl.task_landscape(desires, uniq)
    cl = wl.zone_cluster_bootstrap(desires, uniq, land, cutoff, n_draws, seed)
    other = cl[["red", "rnd", "low"]].max(axis=1)
    ex = wl.zone_cluster_bootstrap(desires, uniq, land, cutoff, n_draws, seed, resample=("experts",), undefined="keep")
    return {
        "p_green_largest": float((cl["green"] > other).mean()),
        "p_red_gt_rnd": float((cl["red"] > cl["rnd"]).mean()),
        "p_green_largest_experts_only": float((ex["green"] > ex[["red", "rnd", "low"]].max(axis=1)).mean()),
        "n_draws": int(n_draws),
    }


def bt_sampling_check(
    counts: pd.DataFrame, by_category: pd.DataFrame | None, n_boot: int, seed: int
) -> dict[str, float]:
    """How often the preference findings survive resampling, at the published tie credit.

    Two bootstraps of the published Bradley-Terry fit: judgements resampled within pairs
    (:func:`compendium.preferences.bootstrap_bradley_terry`; suffix ``_judgements``) and, with
    ``by_category``, prompt categories resampled as clusters too
    (:func:`compendium.preferences.bootstrap_bradley_terry_clustered`; suffix ``_categories``). For each:
    ``p_c_top`` (Recipe C strongest), ``p_same_ranking`` (the published order exactly)
    and ``p_same_rho`` (Spearman rho over the trained recipes equal to the published one), each with its
    Monte Carlo standard error (suffix ``_mc_se``). These are shares of replicates, a measure of sampling
    spread, not probabilities that a finding is true.
    P(C beats D) is not computed here but taken from the preferences chapter (:func:`c_beats_d_shares`),
    so the book prints one number for it.
    """
    from .. import preferences as pref

    models = list(pref.MODELS)
    ci = models.index("recipe_c")
    published = pref.bradley_terry_table(counts).set_index("model").loc[models, "strength"].to_numpy()
    order = np.argsort(-published)
    trained = [models.index(m) for m in pref.TRAINED]
    val = np.array([pref.VAL_PREF_ACC[m] for m in pref.TRAINED])

    def rho(s):  # Spearman over the trained recipes, rows of s
        a = s[:, trained].argsort(1).argsort(1)
        b = val.argsort().argsort()
        n = len(trained)
        return 1 - 6 * ((a - b) ** 2).sum(1) / (n * (n * n - 1))

    out = {}
    boots = [("judgements", pref.bootstrap_bradley_terry(counts, n_boot, seed).strengths)]
    if by_category is not None:
        boots.append(("categories", pref.bootstrap_bradley_terry_clustered(by_category, n_boot, seed + 1).strengths))
    rho0 = rho(published[None, :])[0]
    for name, S in boots:
        shares = {
            "p_c_top": (S.argmax(1) == ci).mean(),
            "p_same_ranking": (np.argsort(-S, axis=1) == order).all(1).mean(),
            "p_same_rho": np.isclose(rho(S), rho0).mean(),
        }
        for key, p in shares.items():
            out[f"{key}_{name}"] = float(p)
            out[f"{key}_{name}_mc_se"] = float(np.sqrt(p * (1 - p) / n_boot))
    out["n_boot"] = int(n_boot)
    per_model_ties = ties_per_model(counts)  # why no tie credit reorders this ranking
    out["ties_per_model_min"], out["ties_per_model_max"] = int(per_model_ties.min()), int(per_model_ties.max())
    return out


def preference_values() -> dict[str, Any]:
    """The values the preferences chapter exports for this stage (P(C beats D) among them):
    ``results/preferences/exports/robustness.json``, read with :func:`compendium.pipeline.results.read_export`
    (FileNotFoundError naming ``dvc repro preferences`` if it has not run)."""
    from compendium.pipeline.results import read_export

    return read_export("preferences", "robustness")


def c_beats_d_shares(pref_values: Mapping[str, Any]) -> dict[str, float]:
    """P(Recipe C stronger than Recipe D) over the preferences chapter's bootstrap replicates, judgements
    resampled (``_judgements``) and prompt categories resampled too (``_categories``), with the number
    of replicates and each share's Monte Carlo standard error sqrt(p (1 - p) / n): the one computation of
    this number, read from the preferences chapter's values ``pref_values`` (its export for this stage,
    :func:`preference_values`, or its ``values.json``)."""
    keys = {
        "judgements": "pref.c_vs_d.p_c_stronger",
        "categories": "pref.bootstrap_cluster.p_c_stronger_than_d",
    }
    missing = [k for k in (*keys.values(), "pref.c_vs_d.n_bootstrap") if k not in pref_values]
    if missing:
        raise KeyError(f"the preferences chapter's values lack {missing}; re-run `dvc repro preferences`")
    n = int(pref_values["pref.c_vs_d.n_bootstrap"])
    out: dict[str, float] = {"c_beats_d_n_boot": n}
    for name, key in keys.items():
        p = float(pref_values[key])
        out[f"p_c_beats_d_{name}"] = p
        out[f"p_c_beats_d_{name}_mc_se"] = float(np.sqrt(p * (1 - p) / n))
    return out


def pwb_gain_intervals(pwi_scores: pd.DataFrame) -> dict[str, float]:
    """The one sampling check the PWB's released aggregates allow for "every model gains from the pro-worker
    prompt": for each model of ``pwi_scores`` (``pwi_scores.csv``: ``Model, Variant, PWI, CI_lower, CI_upper``, the
    printed 95 % bootstrap intervals), whether its prompted interval lies wholly above its baseline one, and the
    gap between them (prompted ``CI_lower`` minus baseline ``CI_upper``; negative when they overlap). Non-overlap
    of two valid 95 % intervals is a conservative test of a difference; these intervals treat the runs as
    independent and carry no judge term (the evaluate chapter says what they cover). Keys ``pwb_ci_models``,
    ``pwb_ci_separated`` (models whose intervals do not overlap) and ``pwb_ci_min_gap`` (points)."""
    from compendium.data.errors import require_columns

    require_columns(pwi_scores, ("Model", "Variant", "PWI", "CI_lower", "CI_upper"), "pwi_scores.csv")
    wide = pwi_scores.pivot(index="Model", columns="Variant", values=["CI_lower", "CI_upper"])
    gap = wide[("CI_lower", "with_system_prompt")] - wide[("CI_upper", "baseline")]
    if gap.isna().any():
        raise ValueError(
            "pwi_scores.csv: every model needs a 'baseline' and a 'with_system_prompt' row; "
            f"{sorted(gap.index[gap.isna()])} lack one"
        )
    return {
        "pwb_ci_models": int(len(gap)),
        "pwb_ci_separated": int((gap > 0).sum()),
        "pwb_ci_min_gap": round(float(gap.min()), 6),  # differences of one-decimal numbers: no float noise
    }

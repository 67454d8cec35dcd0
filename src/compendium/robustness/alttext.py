"""Alt text of the Robustness chapter's figures: what each shows and its main finding, in one or two sentences.

Each function takes the same arguments as the figure function of the same name in
:mod:`compendium.robustness.figures` (which attaches the text with :func:`compendium.chapter.display.with_alt`), so the
numbers in the alt text are the numbers drawn and follow a re-run like the caption's glued values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from .sweeps import ZONE_LABELS as ZONES


def zone_sweep(zones: pd.DataFrame) -> str:
    d = zones[zones["boundary"] == "ge"] if (zones["boundary"] == "ge").any() else zones
    d = d.sort_values("cutoff")
    a, b = d.iloc[0], d.iloc[-1]
    ranges = "; ".join(f"{name} {int(a[z])} to {int(b[z])}" for z, name in ZONES.items() if z in d)
    return (
        f"Line chart of the number of tasks in each of the four zones as the cut-off moves from {a['cutoff']:g} "
        f"to {b['cutoff']:g} (solid: a mean at the cut-off counts as high, as in the paper; dashed: as low), "
        f"each zone labelled in the legend. With the paper's boundary, tasks per zone go: {ranges}."
    )


def has_sweep(has: pd.DataFrame) -> str:
    w = has["workers_more"]
    n_not = int((has["workers_more"] <= has["experts_more"]).sum())
    return (
        f"Heatmap of the % of tasks where workers want more agency than experts (with experts-want-more in "
        f"brackets) over {has['worker_rule'].nunique()} x {has['expert_rule'].nunique()} pairs of tie rules, each "
        f"cell labelled. It ranges from {w.min():.1f} % to {w.max():.1f} %; in {n_not} of {len(has)} cells "
        f"(hatched) it does not exceed experts-want-more."
    )


def pwb_sweep(per_scheme: pd.DataFrame, pwis: pd.DataFrame, model_order: Sequence[str] | None = None) -> str:
    named = per_scheme[per_scheme["family"] != "random"]
    rnd = per_scheme[per_scheme["family"] == "random"]
    share = (
        f"{100 * (rnd['min_delta'] > 0).mean():.1f} % of {len(rnd)} random schemes" if len(rnd) else "no random schemes"
    )
    return (
        f"Top: prompted PWI of {pwis['model'].nunique()} models under {len(named)} named weighting schemes, one "
        f"marker per scheme. Bottom: histogram of the smallest gain from the prompt over the models for each random "
        f"scheme, named schemes as vertical lines. The smallest gain is positive in {share} and ranges over the "
        f"named schemes from {named['min_delta'].min():.1f} to {named['min_delta'].max():.1f} PWI points."
    )


def bt_sweep(
    bt: pd.DataFrame, models: Sequence[str], labels: Mapping[str, str], colours: Mapping[str, str] | None = None
) -> str:
    num = bt[bt["tie_weight"].notna()].sort_values("tie_weight")
    leaders = [labels.get(m, m) for m in num[list(models)].idxmax(axis=1)]
    lead = (
        f"{leaders[0]} is strongest at every tie weight"
        if len(set(leaders)) == 1
        else "the strongest model changes with the tie weight ("
        + ", ".join(f"w = {w:g}: {m}" for w, m in zip(num["tie_weight"], leaders))
        + ")"
    )
    return (
        f"Line chart of the Bradley–Terry strength of {len(models)} models against the weight of a tie, from "
        f"{num['tie_weight'].min():g} to {num['tie_weight'].max():g}, with the Davidson model at the right; each "
        f"line is labelled in the legend. {lead[0].upper() + lead[1:]}."
    )

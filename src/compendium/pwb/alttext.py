"""Alt text of the PWB figures: what each figure shows and its main finding, in one or two sentences.

Each function takes the same arguments as the figure function of the same name in
:mod:`compendium.pwb.figures` (which attaches the text with :func:`compendium.chapter.display.with_alt`), so the
numbers in the alt text are the numbers drawn, and follow a re-run like the caption's glued values.
"""

from __future__ import annotations

import pandas as pd

from .constants import ABBREV, DIMENSIONS


def _dim(d: str) -> str:
    return d.replace("_", " ")


def _dims(present) -> list[str]:
    present = set(present)
    return [d for d in DIMENSIONS if d in present]


def pwi_dumbbell(t2: pd.DataFrame, released: pd.DataFrame | None = None) -> str:
    t = t2.assign(gain=t2["prompted"] - t2["baseline"])
    top = t.loc[t["prompted"].idxmax()]
    big = t.loc[t["gain"].idxmax()]
    small = t.loc[t["gain"].idxmin()]
    ci = " with the released bootstrap 95 % intervals as bars" if released is not None else ""
    return (
        f"Dot plot of the Pro-Worker Index (0 to 100) of {len(t)} models, baseline and with the pro-worker "
        f"system prompt{ci}. Every model scores higher with the prompt "
        if (t["gain"] > 0).all()
        else f"Dot plot of the Pro-Worker Index (0 to 100) of {len(t)} models, baseline and with the pro-worker "
        f"system prompt{ci}. {int((t['gain'] > 0).sum())} of {len(t)} models score higher with the prompt "
    ) + (
        f"(gains from {small['gain']:.1f} points for {small['model']} to {big['gain']:.1f} for {big['model']}); "
        f"the highest prompted PWI is {top['model']}'s {top['prompted']:.1f}."
    )


def model_dimension_heatmaps(base: pd.DataFrame, prompted: pd.DataFrame, delta: pd.DataFrame) -> str:
    dims = _dims(delta.columns)
    d = delta[dims]
    pooled = d.mean(axis=0)
    i, j = divmod(int(d.to_numpy().argmax()), d.shape[1])
    neg = int((d.to_numpy() < 0).sum())
    return (
        f"Three stacked heatmaps of mean scores (0 to 3) for {d.shape[0]} models by {d.shape[1]} dimensions: "
        f"baseline, with the system prompt, and their difference, each cell labelled with its value. "
        f"The largest gain is {d.iat[i, j]:+.1f} ({d.index[i]}, {_dim(dims[j])}); the largest mean gain over "
        f"models is in {_dim(pooled.idxmax())} ({pooled.max():+.2f}); {neg} of {d.size} cells are negative."
    )


def radar(diag: pd.DataFrame) -> str:
    d = diag.set_index("dimension").loc[_dims(diag["dimension"])]
    gain = d["prompted"] - d["baseline"]
    return (
        f"Radar chart of the pooled mean score (0 to 3) of all models on {len(d)} dimensions, baseline "
        f"against with the system prompt. {'Every dimension improves' if (gain > 0).all() else f'{int((gain > 0).sum())} of {len(d)} dimensions improve'}; "
        f"the most in {_dim(gain.idxmax())} (from {d.loc[gain.idxmax(), 'baseline']:.2f} to "
        f"{d.loc[gain.idxmax(), 'prompted']:.2f}), the least in {_dim(gain.idxmin())} ({gain.min():+.2f})."
    )


def effect_vs_reliability(diag: pd.DataFrame, kappa_threshold: float = 0.70) -> str:
    d = diag.set_index("dimension")
    low = d[d["released_qwk"] < kappa_threshold]
    top = d["delta"].idxmax()
    lows = ", ".join(f"{_dim(x)} (κ = {k:.2f})" for x, k in low["released_qwk"].sort_values().items()) or "none"
    return (
        f"Interval plot of the pooled prompted-minus-baseline difference per dimension ({len(d)} dimensions) "
        f"with the released 95 % intervals, each labelled with the judge panel's quadratic-weighted κ. "
        f"The largest effect is {_dim(top)} ({d.loc[top, 'delta']:+.2f}, κ = {d.loc[top, 'released_qwk']:.2f}); "
        f"dimensions below κ = {kappa_threshold:.2f}, drawn grey: {lows}."
    )


def weight_sensitivity(pwis: pd.DataFrame) -> str:
    schemes = list(dict.fromkeys(pwis["scheme"]))
    p = pwis[pwis["condition"] == "with_system_prompt"].pivot(index="model", columns="scheme", values="pwi")[schemes]
    leaders = [p[s].idxmax() for s in schemes]
    rng = p.max(axis=1) - p.min(axis=1)
    lead = (
        f"{leaders[0]} leads the prompted models under every scheme"
        if len(set(leaders)) == 1
        else "the prompted leader changes between schemes ("
        + ", ".join(f"{s}: {m}" for s, m in zip(schemes, leaders))
        + ")"
    )
    n_lines = pwis.groupby(["model", "condition"]).ngroups
    return (
        f"Line chart of {n_lines} PWIs (each model, baseline and prompted) under {len(schemes)} weighting "
        f"schemes ({', '.join(schemes)}). {lead[0].upper() + lead[1:]}; a prompted model's PWI moves by at most "
        f"{rng.max():.1f} points across schemes ({rng.idxmax()})."
    )


def stale_table(stale: pd.DataFrame) -> str:
    s = stale.loc[stale["diff"].abs().idxmax()]
    n_off = int((stale["diff"].abs() >= 0.005).sum())
    return (
        f"Heatmap of the printed appendix value minus the value recomputed from the released files, for "
        f"{stale['model'].nunique()} models by {stale['dimension'].nunique()} dimensions, each cell labelled. "
        f"{n_off} of {len(stale)} cells differ by 0.005 or more; the largest difference is {s['diff']:+.2f} "
        f"({s['model']}, {_dim(s['dimension'])})."
    )


def agreement_by_dimension(fourth: pd.DataFrame, sample_irr: pd.DataFrame, released_irr: pd.DataFrame) -> str:
    dims = _dims(fourth["dimension"])
    f = fourth.set_index("dimension").loc[dims, "qwk"]
    r = released_irr.set_index("Dimension").loc[dims, "qwk"]
    below = int((f < 0.70).sum())
    return (
        f"Grouped bar chart of quadratic-weighted κ per dimension ({len(dims)} dimensions): a fourth judge "
        f"against the panel median, the panel judges on the same sample, and the panel on the full data. "
        f"The fourth judge's κ ranges from {f.min():.2f} ({_dim(f.idxmin())}) to {f.max():.2f} "
        f"({_dim(f.idxmax())}) and is below 0.70 on {below}; the released panel κ ranges from {r.min():.2f} "
        f"to {r.max():.2f}."
    )


def correlation(corr: pd.DataFrame, threshold: float = 0.70) -> str:
    dims = _dims(corr.index)
    m = corr.loc[dims, dims]
    pairs = [(m.iat[i, j], dims[i], dims[j]) for i in range(len(dims)) for j in range(i + 1, len(dims))]
    hi = [p for p in pairs if abs(p[0]) > threshold]
    top = max(pairs, key=lambda p: abs(p[0]))
    return (
        f"Correlation matrix (Pearson r) of {len(dims)} dimensions, each cell labelled. {len(hi)} of "
        f"{len(pairs)} pairs exceed |r| = {threshold:.2f} (outlined); the strongest is "
        f"{ABBREV.get(top[1], top[1])}–{ABBREV.get(top[2], top[2])} (r = {top[0]:.2f})."
    )


def instance_pwi(pwi: pd.DataFrame) -> str:
    p = pwi.pivot(index="model", columns="condition", values="pwi")
    gain = p["with_system_prompt"] - p["baseline"]
    top = p["with_system_prompt"].idxmax()
    return (
        f"Interval plot of the bootstrap PWI and its 95 % percentile interval for {len(p)} models, baseline "
        f"and prompted, recomputed from the per-instance scores. The prompt raises the PWI of "
        f"{int((gain > 0).sum())} of {len(p)} models; the highest prompted PWI is {top}'s "
        f"{p.loc[top, 'with_system_prompt']:.1f}."
    )


def prompt_domains(inventory: pd.DataFrame) -> str:
    l1 = inventory[inventory["layer"] == 1]
    by_domain = l1["domain"].value_counts()
    by_dim = l1["dimension"].value_counts()
    return (
        f"Heatmap of the {len(l1)} layer-1 prompts by professional domain ({len(by_domain)} rows) and "
        f"dimension ({len(by_dim)} columns), each non-empty cell labelled with its count. The largest domain is "
        f"{by_domain.index[0].replace('_', ' ')} ({by_domain.iloc[0]} prompts); "
        + (
            f"each dimension has {by_dim.min()} prompts."
            if by_dim.min() == by_dim.max()
            else f"dimension totals range from {by_dim.min()} to {by_dim.max()}."
        )
    )

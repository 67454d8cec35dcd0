"""The robustness sweeps: each one a parameter grid over one analysis choice that the papers fixed.

The grids come from ``params.yaml`` (section ``robustness``) and each sweep calls the study modules --
nothing here re-implements a study statistic:

* **WORKBank zones** (:func:`zone_sweep`): the cut-off on both axes of the desire-capability
  landscape and whether a task mean *equal* to the cut-off counts as high (``ge``, the paper,
  METHODS "3.0 counts as high") or low (``gt``). Zones from :func:`compendium.workbank.landscape.assign_zones`.
* **WORKBank Human Agency Scale** (:func:`has_sweep`): the rule that breaks ties between modes when a
  task's dominant HAS level is taken (paper: ``lowest``), for workers and experts, via
  :func:`compendium.workbank.agency.tie_rule_sensitivity`.
* **PWB weights** (:func:`pwb_named_schemes`, :func:`random_schemes`, :func:`pwb_sweep`): the
  appendix's alternative schemes over grids of their free weights, plus seeded random weight vectors
  around the v2.1 weights, via :func:`compendium.pwb.aggregates.weight_sensitivity`.
* **Bradley-Terry ties** (:func:`bt_sweep`): a tie counted as ``w`` of a win to each side (paper:
  ``w = 0.5``; ``w = 0`` drops ties; ``w = 1`` counts a full win to each side) with the published
  MM procedure (:func:`compendium.stats.pairwise.bradley_terry_mm`), and the Davidson (1970) ties
  model (:func:`compendium.preferences.davidson_comparison`).

A sweep varies an *analysis choice* with the data fixed: holding at every setting says nothing about
sampling noise (the preference ranking holds at every tie credit because each model took part in a
similar number of ties, :func:`ties_per_model`; an equal credit to both sides *can* reorder a
Bradley-Terry ranking when models tie unequally often, as a three-model case in the tests shows). The
resampling checks are :mod:`.sampling`; whether each finding holds is decided in :mod:`.findings`. Every
grid always contains the paper's own setting (:func:`with_reference`), so each table shows the published
result beside the alternatives.

Grids are comma-separated strings in ``params.yaml`` (:data:`compendium.pipeline.params.GRIDS`): ``dvc exp run
-S`` rewrites one line of the file, and a comma list stays one value there (quoted, so DVC does not read it as
a sweep of experiments); :func:`parse_grid` reads them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "PAPER_CUTOFF",
    "PAPER_BOUNDARY",
    "BOUNDARIES",
    "PAPER_TIE_RULE",
    "PAPER_TIE_WEIGHT",
    "DEFAULT_SCHEME",
    "ZONE_NAMES",
    "ZONE_LABELS",
    "parse_grid",
    "with_reference",
    "zone_sweep",
    "has_sweep",
    "pwb_named_schemes",
    "random_schemes",
    "pwb_sweep",
    "pwb_lead",
    "bt_sweep",
    "ties_per_model",
    "ranking_string",
]

#: The papers' own settings (METHODS.md): WORKBank cut-off 3.0 with ">= counts as high", HAS ties to
#: the lowest level, PWB v2.1 weights, Bradley-Terry ties as half a win to each side.
PAPER_CUTOFF = 3.0
PAPER_BOUNDARY = "ge"
#: ``ge``: a mean equal to the cut-off is high (the paper); ``gt``: it is low (strictly above = high).
BOUNDARIES = ("ge", "gt")
PAPER_TIE_RULE = "lowest"
PAPER_TIE_WEIGHT = 0.5
DEFAULT_SCHEME = "default"

ZONE_NAMES = ("green", "red", "rnd", "low")
ZONE_LABELS = {"green": "Green Light", "red": "Red Light", "rnd": "R&D Opportunity", "low": "Low Priority"}


# ----------------------------------------------------------------------------------------------
# Grids
# ----------------------------------------------------------------------------------------------


def parse_grid(value: Any, cast: Callable = float, name: str = "grid") -> tuple:
    """A parameter grid from a comma-separated string (``"2.5,3,3.5"``), a single number or a list.

    Entries are stripped and converted with ``cast``; duplicates are dropped (first kept) and the
    order is kept. Raises ``ValueError`` naming ``name`` for an empty grid or an entry ``cast``
    rejects.
    """
    if isinstance(value, str):
        items = [s.strip() for s in value.split(",")]
    elif isinstance(value, Iterable):
        items = list(value)
    else:
        items = [value]
    items = [s for s in items if not (isinstance(s, str) and s == "")]
    if not items:
        raise ValueError(f"{name}: empty grid; expected comma-separated values, e.g. '2.5,3.0,3.5'")
    out = []
    for s in items:
        try:
            v = cast(s)
        except (TypeError, ValueError):
            raise ValueError(f"{name}: entry {s!r} is not a valid {getattr(cast, '__name__', 'value')}") from None
        if isinstance(v, float) and not np.isfinite(v):
            raise ValueError(f"{name}: entry {s!r} is not finite")
        if v not in out:
            out.append(v)
    return tuple(out)


def with_reference(grid: Sequence, reference, sort: bool = False) -> tuple:
    """``grid`` with the paper's setting ``reference`` added if it is missing (sorted if ``sort``)."""
    out = list(grid)
    if reference not in out:
        out.append(reference)
    return tuple(sorted(out)) if sort else tuple(out)


def _check_weight(w: float, name: str, lo: float = 0.0, hi: float | None = None, open_lo: bool = False) -> None:
    if not np.isfinite(w) or (w <= lo if open_lo else w < lo) or (hi is not None and w >= hi):
        rng = f"{'(' if open_lo else '['}{lo:g}, {'inf)' if hi is None else f'{hi:g})'}"
        raise ValueError(f"{name}: {w!r} outside {rng}")


# ----------------------------------------------------------------------------------------------
# WORKBank: zone cut-off
# ----------------------------------------------------------------------------------------------


def zone_sweep(
    landscape: pd.DataFrame, cutoffs: Iterable[float], boundaries: Iterable[str] = BOUNDARIES
) -> pd.DataFrame:
    """Zone counts of the desire-capability landscape for every (cut-off, boundary) setting.

    ``landscape`` has one row per task with ``capability`` (Ae) and ``desire`` (Aw), as returned by
    :func:`compendium.workbank.landscape.task_landscape`. ``boundary`` ``ge`` counts a mean equal to
    the cut-off as high (the paper); ``gt`` counts it as low, i.e. high = strictly above. The strict
    rule is applied by handing :func:`~compendium.workbank.landscape.assign_zones` the next float
    above the cut-off (``x >= nextafter(c, inf)`` is exactly ``x > c`` for floats).

    Returns one row per setting (cut-offs ascending, then boundaries in the given order): ``cutoff,
    boundary, green, red, rnd, low, n_tasks, share_green`` (%), ``largest_zone`` (ties joined with
    ``=``), ``green_lead`` (Green minus the largest other zone), ``green_largest`` (lead > 0),
    ``red_minus_rnd``, ``red_gt_rnd`` and ``reference`` (the paper's 3.0 / ``ge``).
    """
    from ..workbank import landscape as wl

    for c in ("capability", "desire"):
        if c not in landscape.columns:
            raise ValueError(f"zone_sweep: landscape lacks column {c!r}; expected the frame of task_landscape()")
    bounds = tuple(boundaries)
    bad = [b for b in bounds if b not in BOUNDARIES]
    if bad or not bounds:
        raise ValueError(f"zone_sweep: boundary {bad or bounds!r} unknown; expected some of {BOUNDARIES}")
    rows = []
    for c in sorted(float(x) for x in cutoffs):
        for b in bounds:
            eff = c if b == "ge" else float(np.nextafter(c, np.inf))
            z = wl.zone_counts(wl.assign_zones(landscape["capability"], landscape["desire"], eff))
            top = max(z.values())
            winners = [k for k in ZONE_NAMES if z[k] == top]
            others = max(v for k, v in z.items() if k != "green")
            rows.append(
                {
                    "cutoff": c,
                    "boundary": b,
                    **z,
                    "n_tasks": int(sum(z.values())),
                    "share_green": 100.0 * z["green"] / len(landscape),
                    "largest_zone": "=".join(winners),
                    "green_lead": int(z["green"] - others),
                    "green_largest": bool(z["green"] > others),
                    "red_minus_rnd": int(z["red"] - z["rnd"]),
                    "red_gt_rnd": bool(z["red"] > z["rnd"]),
                    "reference": bool(np.isclose(c, PAPER_CUTOFF) and b == PAPER_BOUNDARY),
                }
            )
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------------------------
# WORKBank: HAS tie rule
# ----------------------------------------------------------------------------------------------


def has_sweep(
    worker_counts: pd.DataFrame, expert_counts: pd.DataFrame, rules: Iterable[str], seed: int, n_random: int = 200
) -> pd.DataFrame:
    """ "Workers want more agency" under every pair (worker rule, expert rule) of tie rules in ``rules``.

    Calls :func:`compendium.workbank.agency.tie_rule_sensitivity` (which evaluates every pair of its
    tie rules; a ``random`` side is averaged over ``n_random`` seeded tie-breaks) and keeps the pairs
    in ``rules``. Adds ``same_rule`` (both sides use the same rule, as the paper does), ``margin`` =
    workers_more - experts_more (percentage points), ``workers_more_exceeds`` (margin > 0: workers
    want more agency than the experts on more tasks than the reverse) and ``reference`` (the
    paper's lowest / lowest).
    """
    from ..workbank import agency

    rules = tuple(rules)
    bad = [r for r in rules if r not in agency.TIE_RULES]
    if bad or not rules:
        raise ValueError(f"has_sweep: tie rule(s) {bad or rules!r} unknown; expected some of {agency.TIE_RULES}")
    if n_random < 1:
        raise ValueError(f"has_sweep: n_random must be >= 1, got {n_random}")
    grid, _ = agency.tie_rule_sensitivity(worker_counts, expert_counts, seed=seed, n_random=n_random)
    keep = grid["worker_rule"].isin(rules) & grid["expert_rule"].isin(rules)
    g = grid[keep].copy()
    order = {r: k for k, r in enumerate(rules)}
    g = g.sort_values(["worker_rule", "expert_rule"], key=lambda s: s.map(order), kind="mergesort")
    g["same_rule"] = g["worker_rule"] == g["expert_rule"]
    g["margin"] = g["workers_more"] - g["experts_more"]
    g["workers_more_exceeds"] = g["margin"] > 0
    g["reference"] = (g["worker_rule"] == PAPER_TIE_RULE) & (g["expert_rule"] == PAPER_TIE_RULE)
    return g.reset_index(drop=True)


# ----------------------------------------------------------------------------------------------
# PWB: weight schemes
# ----------------------------------------------------------------------------------------------


def pwb_named_schemes(
    config: Mapping, cf_heavy_weights: Iterable[float] = (0.30,), restore_weights: Iterable[float] = (0.10,)
) -> tuple[dict[str, dict[str, float]], dict[str, str]]:
    """The appendix's weight schemes over grids of their free weights.

    From :mod:`compendium.pwb.weights` (:func:`~compendium.pwb.weights.fixed_schemes`, ``cf_heavy_scheme``,
    ``restore_scheme``): ``default`` (v2.1), ``equal``, ``v2_0``
    once, and one ``cf_heavy_<w>`` per CF weight in ``cf_heavy_weights`` (CF at ``w``, the other v2.1
    weights scaled to ``1 - w``) and one ``restore_<w>`` per weight in ``restore_weights`` (v2.1
    plus UT and AR_d at ``w``). Returns ``(schemes, families)``: ``families`` maps each scheme name to
    ``default | equal | v2_0 | cf_heavy | restore``.
    """
    from ..pwb import weights as pw_weights

    cfs, rws = tuple(float(w) for w in cf_heavy_weights), tuple(float(w) for w in restore_weights)
    for w in cfs:
        _check_weight(w, "pwb cf_heavy weight", 0.0, 1.0, open_lo=True)
    for w in rws:
        _check_weight(w, "pwb restore weight")
    base = pw_weights.fixed_schemes(config)
    schemes = {"default": base["default"], "equal": base["equal"], "v2_0": base["v2_0"]}
    families = {"default": "default", "equal": "equal", "v2_0": "v2_0"}
    for w in cfs:
        name = f"cf_heavy_{w:g}"
        schemes[name] = pw_weights.cf_heavy_scheme(config, w)
        families[name] = "cf_heavy"
    for w in rws:
        name = f"restore_{w:g}"
        schemes[name] = pw_weights.restore_scheme(config, w)
        families[name] = "restore"
    return schemes, families


def random_schemes(
    base_weights: Mapping[str, float], n: int, concentration: float, seed: int
) -> dict[str, dict[str, float]]:
    """``n`` seeded random weight vectors around ``base_weights`` (its positively weighted dimensions).

    Each draw is Dirichlet(``concentration * w / sum(w)``): its mean is the base scheme (normalised)
    and ``concentration`` sets how far a draw strays (a weight's relative SD is
    ``sqrt((1 - p) / (p (concentration + 1)))`` for its base share ``p``; with 8 dimensions,
    ``concentration = 8`` is close to uniform over all weightings). Names ``random_0000`` ...
    """
    if n < 0:
        raise ValueError(f"random_schemes: n must be >= 0, got {n}")
    _check_weight(float(concentration), "random_schemes: concentration", open_lo=True)
    dims = [d for d, w in base_weights.items() if float(w) > 0]
    if len(dims) < 2:
        raise ValueError("random_schemes: base_weights must give a positive weight to at least two dimensions")
    w = np.array([float(base_weights[d]) for d in dims])
    alpha = concentration * w / w.sum()
    draws = np.random.default_rng(seed).dirichlet(alpha, size=n)
    return {f"random_{k:04d}": dict(zip(dims, map(float, row))) for k, row in enumerate(draws)}


def pwb_sweep(
    cells: pd.DataFrame,
    schemes: Mapping[str, Mapping[str, float]],
    families: Mapping[str, str] | None = None,
    top_k: int = 3,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The PWB headline findings under every weight scheme.

    Calls :func:`compendium.pwb.aggregates.weight_sensitivity` (Kendall's tau of the prompted
    ranking against ``default``, largest PWI deviation, smallest ΔPWI, top-``top_k`` stability) and
    adds, from its PWIs: ``mean_delta`` (mean over models of prompted - baseline, unrounded),
    ``all_gain`` (every model's ΔPWI > 0), ``top_model`` (highest prompted PWI) and ``family``.
    Returns ``(per_scheme, pwis)`` (``pwis`` is the long table scheme, model, condition, pwi).
    """
    from ..pwb import aggregates as agg

    if DEFAULT_SCHEME not in schemes:
        raise ValueError(
            f"pwb_sweep: schemes must include {DEFAULT_SCHEME!r} (the v2.1 weights), got {list(schemes)[:5]}"
        )
    summary, pwis = agg.weight_sensitivity(cells, schemes, default=DEFAULT_SCHEME, top_k=top_k)
    wide = pwis.pivot_table(index=["scheme", "model"], columns="condition", values="pwi", sort=False)
    delta = (wide["with_system_prompt"] - wide["baseline"]).groupby(level="scheme", sort=False).mean()
    prompted = pwis[pwis["condition"] == "with_system_prompt"]
    # highest prompted PWI per scheme; ties (never seen) go to the alphabetically first model
    top = (
        prompted.sort_values(["scheme", "pwi", "model"], ascending=[True, False, True], kind="mergesort")
        .groupby("scheme", sort=False)
        .first()["model"]
    )
    out = summary.copy()
    out["mean_delta"] = out["scheme"].map(delta)
    out["all_gain"] = out["min_delta"] > 0
    out["top_model"] = out["scheme"].map(top)
    out["family"] = out["scheme"].map(dict(families or {})).fillna("other")
    return out[
        [
            "scheme",
            "family",
            "kendall_tau",
            "max_dev",
            "min_delta",
            "mean_delta",
            "all_gain",
            "top_model",
            "top3_stable",
        ]
    ], pwis


def pwb_lead(pwis: pd.DataFrame, model: str, condition: str = "with_system_prompt") -> pd.Series:
    """Per scheme: ``model``'s PWI minus the best PWI of the other models in ``condition`` (points;
    positive = ``model`` is on top). Index = scheme, in the order of first appearance."""
    for c in ("scheme", "model", "condition", "pwi"):
        if c not in pwis.columns:
            raise ValueError(f"pwb_lead: pwis lacks column {c!r}; expected scheme, model, condition, pwi")
    p = pwis[pwis["condition"] == condition]
    if model not in set(p["model"]):
        raise ValueError(f"pwb_lead: model {model!r} has no {condition} PWI")
    wide = p.pivot_table(index="scheme", columns="model", values="pwi", sort=False)
    return (wide[model] - wide.drop(columns=model).max(axis=1)).rename("lead")


# ----------------------------------------------------------------------------------------------
# Preferences: Bradley-Terry tie convention
# ----------------------------------------------------------------------------------------------


def ranking_string(strengths: Mapping[str, float] | pd.Series, labels: Mapping[str, str] | None = None) -> str:
    """``"C > D > B"``: models by decreasing strength (labels if given; equal strengths share ``=``)."""
    s = pd.Series(strengths, dtype=float).sort_values(ascending=False, kind="mergesort")
    lab = [str((labels or {}).get(m, m)) for m in s.index]
    out = lab[0]
    for k in range(1, len(s)):
        out += (" = " if s.iloc[k] == s.iloc[k - 1] else " > ") + lab[k]
    return out


def _tie_label(w: float) -> str:
    if w == 0:
        return "ties dropped (w = 0)"
    if w == 0.5:
        return "half win each (w = 0.5, published)"
    if w == 1:
        return "full win each (w = 1)"
    return f"w = {w:g}"


def ties_per_model(counts: pd.DataFrame) -> pd.Series:
    """Ties ("about equal" judgements) each model took part in, in :data:`compendium.preferences.MODELS`
    order: the sum of the ``ties`` of every pair that contains it.

    A tie credit ``w`` adds ``w`` times this number to a model's score (wins plus credited ties), so
    it moves every strength by about the same amount only while these numbers are similar; very
    uneven counts can reorder a ranking under the same credit for both sides."""
    from .. import preferences as pref

    df = pref.validate_pair_counts(counts)
    per = {m: 0 for m in pref.MODELS}
    for x, y, t in zip(df["model_x"], df["model_y"], df["ties"]):
        per[x] += int(t)
        per[y] += int(t)
    return pd.Series(per, name="ties", dtype="int64")


def bt_sweep(
    counts: pd.DataFrame, tie_weights: Iterable[float], davidson: bool = True, tol: float = 1e-6, max_iter: int = 500
) -> pd.DataFrame:
    """Bradley-Terry strengths of the five models under every tie convention.

    For each ``w`` in ``tie_weights`` a tie adds ``w`` to both sides of the win matrix
    (:func:`compendium.preferences.win_matrix`) and the published MM procedure is fitted
    (:func:`compendium.stats.pairwise.bradley_terry_mm`, sum of strengths 5): ``w = 0.5`` is the
    published fit, ``w = 0`` drops the ties, ``w = 1`` counts each tie as a full win for both. With
    ``davidson`` the Davidson (1970) model, which gives ties their own parameter, is added
    (:func:`compendium.preferences.davidson_comparison`).

    Returns one row per convention: ``convention, tie_weight`` (NaN for Davidson), one column of
    strength per model (:data:`compendium.preferences.MODELS` order), ``ranking`` (labels),
    ``top_model``, ``same_ranking_as_published`` (vs the ``w = 0.5`` fit), ``rho_val_pref_acc`` (the
    report's Spearman over the trained recipes; NaN if two trained recipes have equal strength),
    ``log_c_over_d`` = log(pi_C / pi_D),
    ``min_adjacent_log_gap`` (the smallest log-strength step between neighbours of the *published*
    order: positive exactly when the published ranking is kept strictly) and ``reference``.
    """
    from .. import preferences as pref
    from ..stats import pairwise as pw

    ws = tuple(float(w) for w in tie_weights)
    for w in ws:
        _check_weight(w, "bt tie weight")
    models = list(pref.MODELS)
    fits = []
    for w in ws:
        res = pw.bradley_terry_mm(pref.win_matrix(counts, tie_weight=w), tol=tol, max_iter=max_iter)
        if not bool(res.converged):
            raise RuntimeError(
                f"bt_sweep: Bradley-Terry with tie weight {w:g} did not converge in {max_iter} iterations"
            )
        fits.append((_tie_label(w), w, pd.Series(res.strengths, index=models)))
    bt_published = pref.bradley_terry_table(counts, tol=tol, max_iter=max_iter)
    published = bt_published.set_index("model")["strength"]
    if davidson:
        table, _info = pref.davidson_comparison(counts, bt_published)
        fits.append(("Davidson ties model", np.nan, table.set_index("model")["davidson"]))
    pub_order = list(published.sort_values(ascending=False, kind="mergesort").index)
    rows = []
    for label, w, s in fits:
        order = list(s.sort_values(ascending=False, kind="mergesort").index)
        try:
            rho = pref.spearman_bt_vs_val(s.rename("strength").rename_axis("model").reset_index())
        except ValueError:  # tied strengths: the report's rank formula is undefined
            rho = float("nan")
        rows.append(
            {
                "convention": label,
                "tie_weight": w,
                **{m: float(s[m]) for m in models},
                "ranking": ranking_string(s, pref.MODEL_LABELS),
                "top_model": order[0],
                "same_ranking_as_published": order == pub_order,
                "rho_val_pref_acc": rho,
                "log_c_over_d": float(np.log(s["recipe_c"] / s["recipe_d"])),
                "min_adjacent_log_gap": float(np.min(-np.diff(np.log(s.loc[pub_order].to_numpy())))),
                "reference": bool(w == PAPER_TIE_WEIGHT),
            }
        )
    return pd.DataFrame(rows)

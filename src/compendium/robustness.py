"""Robustness: do the three studies' findings survive other reasonable analysis choices?

Each sweep is a parameter grid (from ``params.yaml``, section ``robustness``) over one analysis choice
that the papers fixed, evaluated by calling the study modules -- nothing here re-implements a study
statistic:

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

:func:`finding_row` turns a finding evaluated at every setting of a sweep into one row of the summary
table ("holds under all settings?", range, and a "how sure is this?" note). A sweep varies an
*analysis choice* with the data fixed: holding at every setting says nothing about sampling noise
(the preference ranking holds at every tie credit because each model took part in a similar number of
ties, :func:`ties_per_model`; an equal credit to both sides *can* reorder a Bradley-Terry ranking when
models tie unequally often, as a three-model case in the tests shows). The
sampling checks :func:`zone_sampling_check` and :func:`bt_sampling_check` resample the data at the
paper's setting, so the summary can say how often a finding survives a re-run as well. Every grid always contains the paper's own setting
(:func:`with_reference`), so each table shows the published result beside the alternatives.

Grids arrive from papermill as comma-separated strings (DVC cannot template lists into a command);
:func:`parse_grid` reads them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from . import robustness_alttext as _alt
from .display import with_alt

__all__ = [
    "PAPER_CUTOFF",
    "PAPER_BOUNDARY",
    "BOUNDARIES",
    "PAPER_TIE_RULE",
    "PAPER_TIE_WEIGHT",
    "DEFAULT_SCHEME",
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
    "c_beats_d_shares",
    "ranking_string",
    "finding_row",
    "zone_sampling_check",
    "bt_sampling_check",
    "plot_zone_sweep",
    "plot_has_sweep",
    "plot_pwb_sweep",
    "plot_bt_sweep",
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
    from .workbank import landscape as wl

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
    from .workbank import agency

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

    From :func:`compendium.pwb.weights.sensitivity_schemes`: ``default`` (v2.1), ``equal``, ``v2_0``
    once, and one ``cf_heavy_<w>`` per CF weight in ``cf_heavy_weights`` (CF at ``w``, the other v2.1
    weights scaled to ``1 - w``) and one ``restore_<w>`` per weight in ``restore_weights`` (v2.1
    plus UT and AR_d at ``w``). Returns ``(schemes, families)``: ``families`` maps each scheme name to
    ``default | equal | v2_0 | cf_heavy | restore``.
    """
    from .pwb import weights as pw_weights

    cfs, rws = tuple(float(w) for w in cf_heavy_weights), tuple(float(w) for w in restore_weights)
    for w in cfs:
        _check_weight(w, "pwb cf_heavy weight", 0.0, 1.0, open_lo=True)
    for w in rws:
        _check_weight(w, "pwb restore weight")
    base = pw_weights.sensitivity_schemes(config)
    schemes = {"default": base["default"], "equal": base["equal"], "v2_0": base["v2_0"]}
    families = {"default": "default", "equal": "equal", "v2_0": "v2_0"}
    for w in cfs:
        name = f"cf_heavy_{w:g}"
        schemes[name] = pw_weights.sensitivity_schemes(config, cf_heavy_weight=w)["cf_heavy"]
        families[name] = "cf_heavy"
    for w in rws:
        name = f"restore_{w:g}"
        schemes[name] = pw_weights.sensitivity_schemes(config, restore_weight=w)["restore_ut_ar"]
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
    from .pwb import aggregates as agg

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
    from . import preferences as pref

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
    from . import preferences as pref
    from .stats import pairwise as pw

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


# ----------------------------------------------------------------------------------------------
# Summary
# ----------------------------------------------------------------------------------------------


def finding_row(
    key: str,
    study: str,
    finding: str,
    holds,
    values,
    fmt: str = "{:.1f}",
    settings: str = "",
    measure: str = "",
    reference_value: float | None = None,
    how_sure: str = "",
) -> dict:
    """One row of the summary table: does ``finding`` hold at every setting, and the range of its number.

    ``holds``: one bool per setting; ``values``: the quantity behind the finding at each setting
    (same length). Returns ``key, study, finding, settings, n_settings, n_hold, holds_all, verdict``
    (``"yes (n/n)"`` or ``"no (k/n)"``), ``measure`` (what ``values`` are), ``min, max, range``
    (formatted with ``fmt``), ``paper_setting`` (``reference_value`` formatted; empty if None) and
    ``how_sure``: what else was checked (a resampling of the data, a count of comparisons) and what
    would overturn the finding; a sweep alone varies only the analysis choice.
    """
    h = np.asarray(list(holds), dtype=bool)
    v = np.asarray(list(values), dtype=float)
    if h.size == 0:
        raise ValueError(f"finding_row {key!r}: no settings")
    if h.shape != v.shape:
        raise ValueError(f"finding_row {key!r}: {h.size} holds flags but {v.size} values")
    if np.isnan(v).any():
        raise ValueError(f"finding_row {key!r}: values contain NaN")
    n, k = int(h.size), int(h.sum())
    lo, hi = float(v.min()), float(v.max())
    return {
        "key": key,
        "study": study,
        "finding": finding,
        "settings": settings,
        "n_settings": n,
        "n_hold": k,
        "holds_all": bool(k == n),
        "verdict": f"{'yes' if k == n else 'no'} ({k}/{n})",
        "measure": measure,
        "min": lo,
        "max": hi,
        "range": f"{fmt.format(lo)} to {fmt.format(hi)}",
        "paper_setting": "" if reference_value is None else fmt.format(reference_value),
        "how_sure": how_sure,
    }


def zone_sampling_check(
    desires: pd.DataFrame, experts: pd.DataFrame, cutoff: float = PAPER_CUTOFF, n_draws: int = 1000, seed: int = 0
) -> dict[str, float]:
    """How often the zone findings survive resampling the *raters* at one cut-off (``>=`` is high).

    Calls :func:`compendium.workbank.landscape.zone_cluster_bootstrap` (workers resampled within their
    occupation, experts from all experts) and returns the share of draws in which Green Light is the
    largest zone (``p_green_largest``) and Red Light outnumbers R&D Opportunity (``p_red_gt_rnd``),
    with ``n_draws``; and ``p_green_largest_experts_only``, the same share when only the experts are
    resampled (a different expert panel, the workers and tasks fixed).
    """
    from .workbank import landscape as wl
    from .workbank.common import drop_repeated_rows

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
    and ``p_same_rho`` (Spearman rho over the trained recipes equal to the published one). These are
    shares of replicates, a measure of sampling spread, not probabilities that a finding is true.
    P(C beats D) is not computed here but taken from the preferences chapter (:func:`c_beats_d_shares`),
    so the book prints one number for it.
    """
    from . import preferences as pref

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
        out[f"p_c_top_{name}"] = float((S.argmax(1) == ci).mean())
        out[f"p_same_ranking_{name}"] = float((np.argsort(-S, axis=1) == order).all(1).mean())
        out[f"p_same_rho_{name}"] = float(np.isclose(rho(S), rho0).mean())
    out["n_boot"] = int(n_boot)
    per_model_ties = ties_per_model(counts)  # why no tie credit reorders this ranking
    out["ties_per_model_min"], out["ties_per_model_max"] = int(per_model_ties.min()), int(per_model_ties.max())
    return out


def c_beats_d_shares(pref_values: Mapping[str, Any] | None = None) -> dict[str, float]:
    """P(Recipe C stronger than Recipe D) over the preferences chapter's bootstrap replicates, judgements
    resampled (``_judgements``) and prompt categories resampled too (``_categories``), with the number
    of replicates and each share's Monte Carlo standard error sqrt(p (1 - p) / n): the one computation of
    this number, read from ``results/preferences/values.json`` (or the given values)."""
    if pref_values is None:
        import json

        from . import paths

        f = paths.RESULTS / "preferences" / "values.json"
        if not f.exists():
            raise FileNotFoundError(f"{f.relative_to(paths.ROOT)} is missing; make it with `dvc repro preferences`")
        pref_values = json.loads(f.read_text())
    keys = {
        "judgements": "pref.c_vs_d.p_c_stronger",
        "categories": "pref.bootstrap_cluster.p_c_stronger_than_d",
    }
    missing = [k for k in (*keys.values(), "pref.c_vs_d.n_bootstrap") if k not in pref_values]
    if missing:
        raise KeyError(f"results/preferences/values.json lacks {missing}; re-run `dvc repro preferences`")
    n = int(pref_values["pref.c_vs_d.n_bootstrap"])
    out: dict[str, float] = {"c_beats_d_n_boot": n}
    for name, key in keys.items():
        p = float(pref_values[key])
        out[f"p_c_beats_d_{name}"] = p
        out[f"p_c_beats_d_{name}_mc_se"] = float(np.sqrt(p * (1 - p) / n))
    return out


# ----------------------------------------------------------------------------------------------
# Figures (seaborn, themed by compendium.figstyle; each returns a Figure). Imported lazily: the
# computations above do not need matplotlib.
# ----------------------------------------------------------------------------------------------

_ZONE_LABELS = {"green": "Green Light", "red": "Red Light", "rnd": "R&D Opportunity", "low": "Low Priority"}


def _plotting():
    import matplotlib.pyplot as plt
    import seaborn as sns

    from . import figstyle

    return plt, sns, figstyle


@with_alt(_alt.zone_sweep)
def plot_zone_sweep(zones: pd.DataFrame):
    """Tasks per zone against the cut-off, one panel per boundary rule (the mean at the cut-off counts as
    high, as in the paper, or as low)."""
    plt, sns, fs = _plotting()
    long = zones.melt(
        id_vars=["cutoff", "boundary", "reference"], value_vars=list(ZONE_NAMES), var_name="zone", value_name="tasks"
    )
    long["zone"] = long["zone"].map(_ZONE_LABELS)
    long["boundary"] = long["boundary"].map({"ge": "mean = cut-off is high (paper)", "gt": "mean = cut-off is low"})
    with plt.rc_context(fs.THEME):
        g = sns.relplot(
            long,
            kind="line",
            x="cutoff",
            y="tasks",
            col="boundary",
            hue="zone",
            style="zone",
            hue_order=[_ZONE_LABELS[z] for z in ZONE_NAMES],
            palette={_ZONE_LABELS[z]: fs.ZONE_COLORS[z] for z in ZONE_NAMES},
            markers={_ZONE_LABELS[z]: fs.ZONE_MARKERS[z] for z in ZONE_NAMES},
            dashes=False,
            ms=5,
            height=3.6,
            aspect=0.95,
            facet_kws={"sharey": True},
        )
        g.set_titles(col_template="{col_name}")
        g.set_axis_labels("cut-off on both axes (task mean, 1-5)", "tasks in zone")
        if zones["reference"].any():
            for ax in g.axes.flat:
                ax.axvline(PAPER_CUTOFF, color="k", lw=0.8, ls=":")
                ax.text(PAPER_CUTOFF, ax.get_ylim()[1], " paper", va="top", fontsize=8.5)
        sns.move_legend(g, "lower center", bbox_to_anchor=(0.5, -0.02), ncol=4, title=None, frameon=False)
        g.figure.suptitle("Zone sizes move with the cut-off")
        g.tight_layout()
        g.figure.subplots_adjust(bottom=0.22)
    return g.figure


@with_alt(_alt.has_sweep)
def plot_has_sweep(has: pd.DataFrame):
    """Heat map of "workers want more agency" (%) over worker x expert tie rules; a cell where it does
    not exceed "experts want more" is hatched."""
    plt, sns, fs = _plotting()
    wr = list(dict.fromkeys(has["worker_rule"]))
    er = list(dict.fromkeys(has["expert_rule"]))
    M = has.pivot(index="worker_rule", columns="expert_rule", values="workers_more").reindex(index=wr, columns=er)
    E = has.pivot(index="worker_rule", columns="expert_rule", values="experts_more").reindex(index=wr, columns=er)
    with plt.rc_context(fs.THEME):
        fig, ax = plt.subplots(figsize=(1.4 * len(er) + 2.6, 1.0 * len(wr) + 1.6))
        annot = [[f"{M.iat[i, j]:.1f}\n(vs {E.iat[i, j]:.1f})" for j in range(len(er))] for i in range(len(wr))]
        fs.heatmap(
            ax,
            M,
            annot=np.array(annot),
            fmt="",
            vmin=0,
            vmax=max(70.0, float(M.to_numpy().max())),
            cbar_label="% tasks: workers want more agency",
            annot_kws={"fontsize": 8.5},
        )
        for i, j in zip(*np.nonzero((M <= E).to_numpy())):
            ax.add_patch(plt.Rectangle((j, i), 1, 1, fill=False, hatch="///", ec="#b2182b", lw=0))
        if PAPER_TIE_RULE in wr and PAPER_TIE_RULE in er:
            ax.add_patch(
                plt.Rectangle(
                    (er.index(PAPER_TIE_RULE) + 0.02, wr.index(PAPER_TIE_RULE) + 0.02),
                    0.96,
                    0.96,
                    fill=False,
                    ec="k",
                    lw=2,
                )
            )
        ax.set(
            xlabel="experts' tie rule",
            ylabel="workers' tie rule",
            title="Workers want more agency (vs experts want more)",
        )
        fig.tight_layout()
    return fig


@with_alt(_alt.pwb_sweep)
def plot_pwb_sweep(per_scheme: pd.DataFrame, pwis: pd.DataFrame, model_order: Sequence[str] | None = None):
    """Top: prompted PWI per model under each non-random scheme. Bottom: smallest ΔPWI over models,
    for every random scheme (histogram) and each named scheme (ticks)."""
    plt, sns, fs = _plotting()
    named = per_scheme[per_scheme["family"] != "random"]
    rnd = per_scheme[per_scheme["family"] == "random"]
    p = pwis[(pwis["condition"] == "with_system_prompt") & pwis["scheme"].isin(named["scheme"])]
    order = (
        list(model_order)
        if model_order is not None
        else list(p[p["scheme"] == DEFAULT_SCHEME].sort_values("pwi", ascending=False)["model"])
    )
    schemes = list(named["scheme"])
    others = iter(c for c in fs.CATEGORICAL if c != fs.GREY)
    colours = {s: "k" if s == DEFAULT_SCHEME else next(others, fs.GREY) for s in schemes}
    markers = {s: "D" if s == DEFAULT_SCHEME else fs.MARKERS[k % len(fs.MARKERS)] for k, s in enumerate(schemes)}
    with plt.rc_context(fs.THEME):
        # stacked, not side by side: a 10.5-inch-wide figure was shown at 61 % of its size in the book's column
        # (7-px labels); 7.2 inches at 120 dpi fits the column at about 90 %
        fig, (a1, a2) = plt.subplots(2, 1, figsize=(7.2, 8.6), gridspec_kw={"height_ratios": [1.3, 1], "hspace": 0.45})
        sns.pointplot(
            p,
            x="pwi",
            y="model",
            hue="scheme",
            order=order,
            hue_order=schemes,
            palette=colours,
            markers=[markers[s] for s in schemes],
            linestyle="none",
            dodge=0.6 if len(schemes) > 1 else False,
            errorbar=None,
            markersize=5,
            ax=a1,
        )
        a1.set(xlabel="prompted PWI", ylabel="", title="Prompted PWI under each scheme")
        handles, names = a1.get_legend_handles_labels()
        a1.get_legend().remove()
        if len(rnd):
            sns.histplot(
                rnd["min_delta"], bins=30, color="#9ecae1", edgecolor="white", label=f"{len(rnd)} random schemes", ax=a2
            )
        for s, v in zip(named["scheme"], named["min_delta"]):  # each line topped by its scheme's marker
            a2.axvline(v, color=colours[s], lw=1.6 if s == DEFAULT_SCHEME else 1)
            a2.plot(v, 1.0, markers[s], color=colours[s], ms=5, transform=a2.get_xaxis_transform(), clip_on=False)
        a2.axvline(0, color="#b2182b", ls=":", lw=1)
        a2.set(
            xlabel=f"smallest gain from the prompt over the {pwis['model'].nunique()} models (ΔPWI)",
            ylabel="random schemes",
        )
        a2.set_title("Does every model still gain?", pad=12)
        if len(rnd):
            a2.legend(fontsize=8, loc="upper left")
        fig.tight_layout(rect=(0, 0.06, 1, 1))
        # one legend for both panels (the right panel's lines share the schemes' colours), below them
        fig.legend(handles, names, loc="lower center", ncol=min(len(schemes), 6), fontsize=8)
    return fig


@with_alt(_alt.bt_sweep)
def plot_bt_sweep(
    bt: pd.DataFrame, models: Sequence[str], labels: Mapping[str, str], colours: Mapping[str, str] | None = None
):
    """Bradley-Terry strength of each model against the tie weight w (lines), Davidson at the right."""
    plt, sns, fs = _plotting()
    num = bt[bt["tie_weight"].notna()].sort_values("tie_weight")
    dav = bt[bt["tie_weight"].isna()]
    names = [labels.get(m, m) for m in models]
    pal = {labels.get(m, m): (colours or {}).get(m, fs.CATEGORICAL[k % 10]) for k, m in enumerate(models)}
    mk = {n: fs.MARKERS[k % len(fs.MARKERS)] for k, n in enumerate(names)}
    long = num.melt(id_vars="tie_weight", value_vars=list(models), var_name="model", value_name="strength")
    long["model"] = long["model"].map(lambda m: labels.get(m, m))
    with plt.rc_context(fs.THEME):
        fig, ax = plt.subplots(figsize=(7.2, 4.2))
        xmax = float(num["tie_weight"].max()) if len(num) else 1.0
        xd = xmax + 0.25
        sns.lineplot(
            long,
            x="tie_weight",
            y="strength",
            hue="model",
            style="model",
            hue_order=names,
            palette=pal,
            markers=mk,
            dashes=False,
            ms=6,
            ax=ax,
        )
        for m, n in zip(models, names):
            if len(dav):
                ax.plot([xd], dav[m], mk[n], color=pal[n], ms=7, mec="k", mew=0.5)
        if (num["tie_weight"] == PAPER_TIE_WEIGHT).any():
            ax.axvline(PAPER_TIE_WEIGHT, color="k", lw=0.8, ls=":")
            ax.text(PAPER_TIE_WEIGHT, ax.get_ylim()[1], " published", va="top", fontsize=8.5)
        ticks = list(num["tie_weight"]) + ([xd] if len(dav) else [])
        ax.set_xticks(ticks, [f"{t:g}" for t in num["tie_weight"]] + (["Davidson"] if len(dav) else []))
        ax.set(
            xlabel="weight w of a tie, credited to each side",
            ylabel="Bradley-Terry strength (sum 5)",
            title="Strengths under each tie convention",
        )
        sns.move_legend(ax, "center left", bbox_to_anchor=(1.0, 0.5), title=None, fontsize=8.5)
        fig.tight_layout()
    return fig

"""The Human Agency Scale (paper §3.3, Fig 6, Table 5).

Definitions (METHODS, WORKBank): a task's dominant level is the **mode** of its HAS ratings, ties to the
**lowest** level. Matrix rows = worker level, columns = expert level; "workers want more agency" =
worker level > expert level (47.5%). Occupation level: pool all ratings on the occupation's tasks, mode
(lowest on ties); Jensen-Shannon **distance** (scipy ``jensenshannon``, base 2) between the two
normalised 5-bin histograms (the paper calls it divergence).

Experts give only 1-4 ratings per task (most 2-3), so many expert modes are ties; :func:`tie_rule_sensitivity`
shows how much the 47.5% depends on the tie rule.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.spatial.distance import jensenshannon

from .common import HAS, HAS_LEVELS, OCC, TASK, TASK_CHARACTERISTICS, pct, require_columns, require_ratings

__all__ = [
    "TIE_RULES",
    "has_counts",
    "dominant_level",
    "has_matrix",
    "agency_comparison",
    "tie_rule_sensitivity",
    "same_rule_range",
    "untied_only",
    "occupation_levels",
    "jsd_top",
    "h5_profiles",
    "has_task_means",
    "n_tied",
]

#: Tie rules for the dominant level. ``lowest`` is the authors'; ``highest`` the mirror image;
#: ``random`` a seeded uniform draw among the tied modes; ``mean`` ignores the mode and rounds the task's
#: mean rating half-up to the nearest level (an agnostic summary that never needs a tie rule).
TIE_RULES = ("lowest", "highest", "random", "mean")


def has_counts(ratings: pd.DataFrame, by: str = TASK, what: str = "HAS ratings") -> pd.DataFrame:
    """Counts of HAS ratings H1..H5 per ``by`` value (rows sorted), columns 1..5."""
    require_columns(ratings, [by, HAS], what)
    require_ratings(ratings, HAS, what)
    ct = pd.crosstab(ratings[by], ratings[HAS]).reindex(columns=list(HAS_LEVELS), fill_value=0)
    ct.columns.name = None
    return ct.sort_index()


def n_tied(counts: pd.DataFrame) -> int:
    """Number of rows whose mode is tied (two or more levels share the top count)."""
    c = counts.to_numpy()
    return int(((c == c.max(axis=1, keepdims=True)).sum(axis=1) > 1).sum())


def dominant_level(counts: pd.DataFrame, rule: str, seed: int | None) -> pd.Series:
    """Dominant HAS level (1..5) per row of a counts table under a tie rule (see :data:`TIE_RULES`); ``seed``: the
    random tie-break's (required for ``random``, None for the other rules, which draw nothing)."""
    if rule not in TIE_RULES:
        raise ValueError(f"dominant_level: unknown tie rule {rule!r}; expected one of {TIE_RULES}")
    c = counts.reindex(columns=list(HAS_LEVELS)).to_numpy(dtype=float)
    if np.isnan(c).any():
        raise ValueError(f"dominant_level: counts must have columns {list(HAS_LEVELS)}")
    if (c.sum(axis=1) == 0).any():
        raise ValueError("dominant_level: a row has no ratings")
    is_mode = c == c.max(axis=1, keepdims=True)
    if rule == "lowest":
        lev = is_mode.argmax(axis=1)
    elif rule == "highest":
        lev = 4 - is_mode[:, ::-1].argmax(axis=1)
    elif rule == "random":
        if seed is None:
            raise ValueError("dominant_level: rule 'random' needs a seed")
        u = np.random.default_rng(seed).random(c.shape)
        lev = np.where(is_mode, u, -1.0).argmax(axis=1)
    else:  # mean, rounded half up
        mean = (c * np.arange(1, 6)).sum(axis=1) / c.sum(axis=1)
        lev = np.floor(mean + 0.5).astype(int) - 1
    return pd.Series(lev + 1, index=counts.index, name="level")


def has_matrix(worker_level: pd.Series, expert_level: pd.Series) -> pd.DataFrame:
    """5x5 task counts: rows = worker dominant level, columns = expert dominant level (inner join on task)."""
    j = pd.concat([worker_level.rename("worker"), expert_level.rename("expert")], axis=1, join="inner")
    m = pd.crosstab(j["worker"], j["expert"]).reindex(index=list(HAS_LEVELS), columns=list(HAS_LEVELS), fill_value=0)
    m.index.name, m.columns.name = "worker", "expert"
    return m


def agency_comparison(worker_level: pd.Series, expert_level: pd.Series) -> dict[str, float]:
    """% of common tasks with equal levels (diagonal), worker > expert, worker < expert."""
    j = pd.concat([worker_level.rename("w"), expert_level.rename("e")], axis=1, join="inner")
    return {
        "n_tasks": len(j),
        "diagonal": pct(j["w"] == j["e"]),
        "workers_more": pct(j["w"] > j["e"]),
        "experts_more": pct(j["w"] < j["e"]),
    }


def _levels_draws(c: np.ndarray, rule: str, rng: np.random.Generator, n_draws: int) -> np.ndarray:
    """Dominant levels as an ``(n_draws, n_rows)`` array (one row unless the rule is ``random``)."""
    is_mode = c == c.max(axis=1, keepdims=True)
    if rule == "random":
        u = rng.random((n_draws, *c.shape))
        return np.where(is_mode[None], u, -1.0).argmax(axis=2) + 1
    return dominant_level(pd.DataFrame(c, columns=list(HAS_LEVELS)), rule, None).to_numpy()[None, :]


def tie_rule_sensitivity(
    worker_counts: pd.DataFrame, expert_counts: pd.DataFrame, seed: int, n_random: int
) -> tuple[pd.DataFrame, np.ndarray]:
    """ "Workers want more agency" (% tasks with worker level > expert level) under every pair of tie rules.

    Returns ``(grid, random_draws)``: ``grid`` has one row per (worker rule, expert rule) with the
    diagonal, workers-more and experts-more shares (where a side is ``random`` these are means over
    ``n_random`` seeded tie-breaks, with the 2.5-97.5% range in ``workers_more_lo``/``_hi``);
    ``random_draws`` is the workers-more share of each draw with both sides random.
    """
    common = worker_counts.index.intersection(expert_counts.index)
    wc = worker_counts.loc[common, list(HAS_LEVELS)].to_numpy(dtype=float)
    ec = expert_counts.loc[common, list(HAS_LEVELS)].to_numpy(dtype=float)
    rows, both_random = [], None
    for wr in TIE_RULES:
        for er in TIE_RULES:
            # one generator per cell, seeded from (seed, cell): each cell is reproducible on its own
            rng = np.random.default_rng([seed, TIE_RULES.index(wr), TIE_RULES.index(er)])
            lw = _levels_draws(wc, wr, rng, n_random)
            le = _levels_draws(ec, er, rng, n_random)
            more = 100 * (lw > le).mean(axis=1)
            rows.append(
                {
                    "worker_rule": wr,
                    "expert_rule": er,
                    "diagonal": float(100 * (lw == le).mean()),
                    "workers_more": float(more.mean()),
                    "experts_more": float(100 * (lw < le).mean()),
                    "workers_more_lo": float(np.quantile(more, 0.025)),
                    "workers_more_hi": float(np.quantile(more, 0.975)),
                }
            )
            if wr == er == "random":
                both_random = more
    return pd.DataFrame(rows), both_random


def same_rule_range(grid: pd.DataFrame) -> dict[str, float]:
    """The range of "workers want more agency" over the tie rules applied to *both* sides (the grid's
    diagonal), with the rule at each end. The paper uses one rule for both groups; a mixed cell
    (lowest for one group, highest for the other) pushes the two groups' levels apart on purpose and
    is a lopsided bound, not a reasonable alternative analysis. Experts, with 1-4 ratings a task, have
    far more tied modes than workers, so a rule that moves tied modes down (``lowest``) lowers the
    experts' level more often and raises the share."""
    require_columns(grid, ["worker_rule", "expert_rule", "workers_more"], "tie-rule grid")
    same = grid[grid["worker_rule"] == grid["expert_rule"]]
    if same.empty:
        raise ValueError("same_rule_range: the grid has no cell with the same rule for both groups")
    lo, hi = same.loc[same["workers_more"].idxmin()], same.loc[same["workers_more"].idxmax()]
    return {
        "min": float(lo["workers_more"]),
        "max": float(hi["workers_more"]),
        "min_rule": str(lo["worker_rule"]),
        "max_rule": str(hi["worker_rule"]),
        "n_rules": int(len(same)),
    }


def untied_only(worker_counts: pd.DataFrame, expert_counts: pd.DataFrame) -> dict[str, float]:
    """The comparison restricted to tasks where neither the worker nor the expert mode is tied."""
    common = worker_counts.index.intersection(expert_counts.index)
    wc, ec = worker_counts.loc[common], expert_counts.loc[common]

    def untied(c):
        a = c.to_numpy()
        return (a == a.max(axis=1, keepdims=True)).sum(axis=1) == 1

    keep = untied(wc) & untied(ec)
    # without ties every rule but "mean" gives the mode; "lowest" is the rule this was written with
    return agency_comparison(dominant_level(wc[keep], "lowest", None), dominant_level(ec[keep], "lowest", None))


def has_task_means(ratings: pd.DataFrame) -> pd.Series:
    """Mean HAS per task text."""
    require_columns(ratings, [TASK, HAS], "HAS ratings")
    return ratings.groupby(TASK)[HAS].mean().sort_index()


def occupation_levels(desires: pd.DataFrame, experts: pd.DataFrame, rule: str, seed: int | None) -> pd.DataFrame:
    """Occupation-level HAS: pooled ratings per occupation, dominant level for workers and experts (tie rule
    ``rule``; ``seed`` as :func:`dominant_level`'s), the normalised 5-bin distributions and their Jensen-Shannon
    distance (base 2; 0 = identical, 1 = disjoint).

    Columns: occupation, worker_level, expert_level, jsd, worker_H1..H5, expert_H1..H5 (shares).
    """
    wc = has_counts(desires, OCC, "worker desires")
    ec = has_counts(experts, OCC, "expert ratings")
    common = wc.index.intersection(ec.index)
    wc, ec = wc.loc[common], ec.loc[common]
    wp = wc.div(wc.sum(axis=1), axis=0)
    ep = ec.div(ec.sum(axis=1), axis=0)
    jsd = jensenshannon(wp.to_numpy(), ep.to_numpy(), base=2, axis=1)
    out = pd.DataFrame(
        {"worker_level": dominant_level(wc, rule, seed), "expert_level": dominant_level(ec, rule, seed), "jsd": jsd},
        index=common,
    )
    for k in HAS_LEVELS:
        out[f"worker_H{k}"] = wp[k]
    for k in HAS_LEVELS:
        out[f"expert_H{k}"] = ep[k]
    out.index.name = "occupation"
    return out.reset_index()


def jsd_top(occ_levels: pd.DataFrame, n: int = 10) -> pd.DataFrame:
    """The ``n`` occupations with the largest worker-expert JS distance (paper Table 5).

    Columns exactly: occupation, worker_level, expert_level, jsd. Levels are printed as H1..H5.
    """
    t = occ_levels.sort_values(["jsd", "occupation"], ascending=[False, True], kind="mergesort").head(n)
    t = t[["occupation", "worker_level", "expert_level", "jsd"]].copy()
    t["worker_level"] = "H" + t["worker_level"].astype(str)
    t["expert_level"] = "H" + t["expert_level"].astype(str)
    return t.reset_index(drop=True)


def h5_profiles(
    desires: pd.DataFrame, experts: pd.DataFrame, worker_level: pd.Series, expert_level: pd.Series
) -> pd.DataFrame:
    """Task characteristics (the 4 requirements, 1-5) of the tasks whose dominant level is H5 (Fig 6d).

    Means are over the pooled ratings of the tasks in the set. Rows:
      * ``workers (worker H5 set)``: worker ratings on tasks the workers put at H5;
      * ``experts (expert H5 set)``: expert ratings on tasks the *experts* put at H5 (the correct set);
      * ``experts (worker H5 set, authors' code)``: expert ratings on the worker H5 set, which is what
        the authors' Fig 6d code plotted (it reused the worker set for experts);
      * ``workers (all tasks)`` / ``experts (all tasks)``: baselines.
    Column ``n_tasks`` gives the size of each set.
    """
    cols = list(TASK_CHARACTERISTICS.values())
    require_columns(desires, [TASK, *cols], "worker desires")
    require_columns(experts, [TASK, *cols], "expert ratings")
    w5 = worker_level.index[worker_level == 5]
    e5 = expert_level.index[expert_level == 5]
    sets = [
        ("workers (worker H5 set)", desires, w5),
        ("experts (expert H5 set)", experts, e5),
        ("experts (worker H5 set, authors' code)", experts, w5),
        ("workers (all tasks)", desires, None),
        ("experts (all tasks)", experts, None),
    ]
    rows = []
    for name, df, tasks in sets:
        sel = df if tasks is None else df[df[TASK].isin(tasks)]
        row = {"profile": name, "n_tasks": int(sel[TASK].nunique())}
        row.update({k: float(sel[c].mean()) for k, c in TASK_CHARACTERISTICS.items()})
        rows.append(row)
    return pd.DataFrame(rows)

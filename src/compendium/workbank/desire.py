"""Worker automation desire (paper §3.1-3.2, Tables 3/4, Figs 4a/4b).

Definitions (METHODS, WORKBank): task desire Aw(t) is the plain mean of ``Automation Desire Rating``
over the task's worker rows, grouped by task text, no minimum count. "Want automation" is Aw > 3
**strictly** (the 46.1%). Reasons use responses (not tasks) with rating >= 3 as the denominator.
Sector is the SOC major group, the first two digits of ``O*NET-SOC Code`` (joined on occupation title).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .common import (
    DESIRE,
    DESIRE_REASONS,
    ENJOYMENT,
    JOB_SECURITY,
    OCC,
    SOC_CODE,
    TASK,
    pct,
    require_columns,
    require_ratings,
    task_means,
)

__all__ = [
    "task_desire",
    "desire_shares",
    "ranked_tasks",
    "desire_reasons",
    "sector_names",
    "occupation_sectors",
    "desire_by_sector",
    "spearman",
    "spearman_ci",
    "format_p_truncated",
]


def task_desire(desires: pd.DataFrame) -> pd.DataFrame:
    """Aw(t) and the other worker task means (job security, enjoyment), one row per task text.

    Columns: ``occupation``, ``n_ratings``, ``desire``, ``job_security``, ``enjoyment``.
    """
    require_columns(desires, [TASK, OCC, DESIRE, JOB_SECURITY, ENJOYMENT], "worker desires")
    for c in (DESIRE, JOB_SECURITY, ENJOYMENT):
        require_ratings(desires, c, "worker desires")
    t = task_means(desires, [DESIRE, JOB_SECURITY, ENJOYMENT], "worker desires")
    return t.rename(columns={DESIRE: "desire", JOB_SECURITY: "job_security", ENJOYMENT: "enjoyment"})


def desire_shares(desire: pd.Series, cutoff: float) -> dict[str, float]:
    """Shares (%) of tasks by mean desire: ``> cutoff`` (strict; the paper's 46.1% at 3), ``>= cutoff``
    (inclusive, as the zones use), ``>= 4`` and ``<= 2``."""
    x = np.asarray(desire, dtype=float)
    if np.isnan(x).any():
        raise ValueError("desire_shares: task desire contains NaN")
    return {
        "share_gt_cutoff": pct(x > cutoff),
        "share_ge_cutoff": pct(x >= cutoff),
        "share_ge4": pct(x >= 4),
        "share_le2": pct(x <= 2),
    }


def ranked_tasks(tasks: pd.DataFrame, n: int = 20, top: bool = True) -> pd.DataFrame:
    """The ``n`` tasks with the highest (``top``) or lowest mean desire (paper Tables 3/4).

    Ties are broken by task text so the table is deterministic. Columns: rank, task, occupation,
    mean_desire, n_ratings.
    """
    require_columns(tasks, ["desire", "occupation", "n_ratings"], "task desire table")
    df = tasks.reset_index().rename(columns={TASK: "task", "desire": "mean_desire"})
    df = df.sort_values(["mean_desire", "task"], ascending=[not top, True], kind="mergesort").head(n)
    df.insert(0, "rank", np.arange(1, len(df) + 1))
    return df[["rank", "task", "occupation", "mean_desire", "n_ratings"]].reset_index(drop=True)


def desire_reasons(desires: pd.DataFrame, min_rating: int = 3) -> tuple[int, pd.DataFrame]:
    """Reasons for automation desire (Fig 4b): unit = response with desire >= ``min_rating``.

    Returns ``(n_responses, table)`` with columns reason, column, n_true, pct (= n_true / n_responses).
    """
    require_columns(desires, [DESIRE, *DESIRE_REASONS.values()], "worker desires")
    sel = desires[desires[DESIRE] >= min_rating]
    n = len(sel)
    if n == 0:
        raise ValueError(f"desire_reasons: no responses with {DESIRE} >= {min_rating}")
    rows = []
    for key, col in DESIRE_REASONS.items():
        s = sel[col]
        if not pd.api.types.is_bool_dtype(s):
            raise ValueError(f"worker desires: column {col!r} must be True/False, got dtype {s.dtype}")
        rows.append({"reason": key, "column": col, "n_true": int(s.sum()), "pct": 100.0 * s.sum() / n})
    return n, pd.DataFrame(rows)


def sector_names(bls_wages: pd.DataFrame) -> pd.Series:
    """SOC major-group names by 2-digit code, from the BLS OEWS rows with ``O_GROUP == 'major'``.

    The trailing word "Occupations" is dropped (e.g. ``'15' -> 'Computer and Mathematical'``).
    """
    require_columns(bls_wages, ["OCC_CODE", "OCC_TITLE", "O_GROUP"], "BLS wage data")
    major = bls_wages[bls_wages["O_GROUP"] == "major"]
    if major.empty:
        raise ValueError("BLS wage data: no rows with O_GROUP == 'major' (the SOC major groups)")
    names = major["OCC_TITLE"].str.replace(r"\s+Occupations$", "", regex=True)
    return pd.Series(names.to_numpy(), index=major["OCC_CODE"].str[:2].to_numpy(), name="sector")


def occupation_sectors(task_metadata: pd.DataFrame, bls_wages: pd.DataFrame) -> pd.DataFrame:
    """Occupation title -> SOC major group code and name (first two digits of ``O*NET-SOC Code``)."""
    require_columns(task_metadata, [OCC, SOC_CODE], "task metadata")
    codes = task_metadata.groupby(OCC)[SOC_CODE].agg(lambda s: sorted(set(s.str[:2])))
    multi = codes[codes.map(len) > 1]
    if len(multi):
        raise ValueError(
            f"task metadata: occupation {multi.index[0]!r} maps to several SOC major groups {multi.iloc[0]}"
        )
    code = codes.map(lambda x: x[0])
    names = sector_names(bls_wages)
    unknown = sorted(set(code) - set(names.index))
    if unknown:
        raise ValueError(f"SOC major groups {unknown} have no 'major' row in the BLS wage data")
    return pd.DataFrame({"sector_code": code, "sector": code.map(names)})


def desire_by_sector(tasks: pd.DataFrame, sectors: pd.DataFrame, cutoff: float) -> pd.DataFrame:
    """Per SOC major group: number of tasks, mean task desire and % of tasks with desire > cutoff."""
    require_columns(tasks, ["occupation", "desire"], "task desire table")
    s = tasks.join(sectors, on="occupation")
    if s["sector"].isna().any():
        missing = s.loc[s["sector"].isna(), "occupation"].iloc[0]
        raise ValueError(f"occupation {missing!r} has no SOC sector in the task metadata")
    g = s.groupby("sector")
    out = pd.DataFrame(
        {
            "n_tasks": g.size(),
            "mean_desire": g["desire"].mean(),
            "share_gt_cutoff": g["desire"].apply(lambda x: pct(x > cutoff)),
        }
    )
    return out.sort_values("share_gt_cutoff", ascending=False).reset_index()


def spearman(x, y) -> tuple[float, float]:
    """Spearman rho across tasks and its two-sided p-value (t-distribution approximation, not exact).

    Computed by :func:`spearman_ci` (pingouin); the unit tests check it against ``scipy.stats.spearmanr``.
    """
    r = spearman_ci(x, y)
    return r["rho"], r["p"]


def spearman_ci(x, y, confidence: float = 0.95) -> dict:
    """Spearman rho with its confidence interval and p-value, by ``pingouin.corr(method="spearman")``.

    Returns ``{"n", "rho", "ci_low", "ci_high", "p"}``. rho and p are pingouin's (which calls
    ``scipy.stats.spearmanr``: a t-distribution p-value). The interval is pingouin's Fisher-z interval
    (``tanh(atanh(rho) -+ z * 1/sqrt(n - 3))``), recomputed unrounded with ``pingouin.compute_esci``:
    pingouin 0.7 rounds the ``CI95`` column of ``corr`` to 2 decimals (its option
    ``round.column.CI95``), too coarse for the 3 decimals at which the chapter prints rho beside it.
    Pairs with a missing value are dropped (as pingouin does); fewer than 4 pairs is an error.
    """
    import pingouin

    a, b = np.asarray(x, float), np.asarray(y, float)
    if a.shape != b.shape:
        raise ValueError(f"spearman_ci: x and y differ in length ({a.size} vs {b.size})")
    keep = ~(np.isnan(a) | np.isnan(b))
    n = int(keep.sum())
    if n < 4:
        raise ValueError(f"spearman_ci: {n} complete pairs; a Spearman interval needs at least 4")
    res = pingouin.corr(a[keep], b[keep], method="spearman").iloc[0]
    rho = float(res["r"])
    if abs(rho) == 1.0:
        lo = hi = rho
    else:
        lo, hi = pingouin.compute_esci(stat=rho, nx=n, ny=n, eftype="r", confidence=confidence, decimals=16)
    return {"n": n, "rho": rho, "ci_low": float(lo), "ci_high": float(hi), "p": float(res["p_val"])}


def format_p_truncated(p: float) -> str:
    """How the paper prints p-values: the mantissa truncated, ``"p<5e-11"`` for 5.74e-11.

    This is the slip METHODS documents: truncating the mantissa gives a bound that the exact p-value
    *exceeds*, so "p<5e-11" is false for p = 5.74e-11 (a correct bound would round up: p<6e-11).
    """
    mant, exp = f"{p:e}".split("e")
    return f"p<{int(float(mant))}e{int(exp)}"

"""Seeded, vectorised bootstrap helpers.

The workhorse is :func:`stratified_resample_sums`: within every stratum (a task, a demographic group)
draw as many units as the stratum has, with replacement, and sum their values; do this ``n_draws``
times at once with numpy (no Python loop per draw). Means, cluster ratios and percentile intervals are
built on top of it. All randomness comes from ``numpy.random.default_rng(seed)``; the draws are
generated in chunks whose concatenation equals one big draw, so results do not depend on the chunk size.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["stratified_resample_sums", "bootstrap_group_means", "cluster_bootstrap_ratio", "percentile_interval"]


def _as_rng(seed: int | np.random.Generator) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None:
        raise ValueError("a seed is required (take it from params.yaml): bootstrap results must be reproducible")
    return np.random.default_rng(int(seed))


def stratified_resample_sums(
    values: np.ndarray,
    strata,
    n_draws: int,
    seed: int | np.random.Generator,
    chunk_size: int = 250,
) -> tuple[pd.Index, np.ndarray]:
    """Bootstrap sums of ``values`` within ``strata``.

    Parameters
    ----------
    values
        Shape ``(n,)`` or ``(n, k)``: the unit values (``k`` columns are resampled together, which is how
        a cluster's numerator and denominator stay paired).
    strata
        Length ``n`` labels; units are only ever drawn from their own stratum and each stratum keeps its size.
    n_draws
        Number of bootstrap replicates.
    seed
        Integer seed or a ``numpy.random.Generator``.

    Returns
    -------
    (labels, sums): ``labels`` are the sorted unique strata, ``sums`` has shape ``(n_draws, n_strata)``
    for 1-D ``values`` or ``(n_draws, n_strata, k)`` for 2-D.
    """
    vals = np.asarray(values, dtype=float)
    one_d = vals.ndim == 1
    if one_d:
        vals = vals[:, None]
    if vals.ndim != 2:
        raise ValueError(f"values must be 1-D or 2-D, got shape {vals.shape}")
    n = vals.shape[0]
    strata = np.asarray(strata)
    if strata.shape != (n,):
        raise ValueError(f"strata has shape {strata.shape}, expected ({n},) to match values")
    if n == 0:
        raise ValueError("no units to resample")
    if not np.isfinite(vals).all():
        raise ValueError("values contain NaN or infinite entries; drop or impute them before resampling")
    if int(n_draws) < 1:
        raise ValueError(f"n_draws must be >= 1, got {n_draws}")
    rng = _as_rng(seed)
    codes, labels = pd.factorize(pd.Series(strata), sort=True)
    order = np.argsort(codes, kind="stable")
    sorted_vals = vals[order]
    sizes = np.bincount(codes, minlength=len(labels))
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    slot_start = np.repeat(starts, sizes)
    slot_size = np.repeat(sizes, sizes)
    out = np.empty((int(n_draws), len(labels), vals.shape[1]))
    for lo in range(0, int(n_draws), chunk_size):
        hi = min(lo + chunk_size, int(n_draws))
        u = rng.random((hi - lo, n))
        idx = slot_start + (u * slot_size).astype(np.intp)
        out[lo:hi] = np.add.reduceat(sorted_vals[idx], starts, axis=1)
    return pd.Index(labels), (out[..., 0] if one_d else out)


def bootstrap_group_means(values, groups, n_draws: int, seed) -> tuple[pd.Index, np.ndarray]:
    """Bootstrap means per group (resample units within each group): ``(labels, draws[n_draws, n_groups])``."""
    labels, sums = stratified_resample_sums(values, groups, n_draws, seed)
    sizes = pd.Series(np.asarray(groups)).value_counts().reindex(labels).to_numpy()
    return labels, sums / sizes


def cluster_bootstrap_ratio(numerator, denominator, strata, n_draws: int, seed) -> tuple[pd.Index, np.ndarray]:
    """Bootstrap of a ratio of sums, resampling whole clusters within strata.

    Each row is one cluster (e.g. a worker) with ``numerator`` (sum of that worker's ratings) and
    ``denominator`` (number of ratings); the statistic per stratum is ``sum(numerator) / sum(denominator)``,
    i.e. the response-level mean, with the worker as the resampling unit.
    """
    num = np.asarray(numerator, dtype=float)
    den = np.asarray(denominator, dtype=float)
    if num.shape != den.shape:
        raise ValueError(f"numerator shape {num.shape} != denominator shape {den.shape}")
    if (den <= 0).any():
        raise ValueError("denominator must be > 0 for every cluster")
    labels, sums = stratified_resample_sums(np.column_stack([num, den]), strata, n_draws, seed)
    return labels, sums[..., 0] / sums[..., 1]


def percentile_interval(draws: np.ndarray, level: float = 0.95, axis: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Equal-tailed percentile interval of bootstrap ``draws`` along ``axis``."""
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    a = (1 - level) / 2
    lo, hi = np.quantile(draws, [a, 1 - a], axis=axis)
    return lo, hi

"""Agreement between raters on an ordinal scale: exact / adjacent agreement, quadratic-weighted
Cohen's kappa, Krippendorff's alpha, and the three-judge panel statistics the PWB paper reports.

Definitions (METHODS.md, PWB):

- **exact agreement** of two raters = share of items where the two scores are equal; of a panel =
  share of items where *all* judges gave the same score (max - min = 0).
- **adjacent agreement** = share of items where the scores differ by at most one point
  (two raters: |a - b| <= 1; a panel: max - min <= 1).
- **quadratic-weighted kappa** (Cohen 1968) on a fixed category set: 1 - sum(W*O) / sum(W*E) with
  W_ij = (i - j)^2, O the observed confusion matrix and E the product of the margins / n. The
  category set is explicit so that a category nobody used still counts in the weights (scikit-learn
  derives its categories from the data unless ``labels=`` is given, which changes the weights).
- **Krippendorff's alpha**: a thin wrapper over the ``krippendorff`` package (interval by default).
- **spread** of a panel = mean over items of (max - min).

All functions take array-likes of integer scores and raise ``ValueError`` naming what is wrong.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np

__all__ = [
    "exact_agreement",
    "adjacent_agreement",
    "mean_absolute_deviation",
    "quadratic_weighted_kappa",
    "pairwise_agreement",
    "panel_agreement",
    "mean_pairwise_qwk",
    "krippendorff_alpha",
]


def _pair(a, b, name_a: str = "a", name_b: str = "b") -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(a)
    y = np.asarray(b)
    if x.ndim != 1 or y.ndim != 1:
        raise ValueError(f"{name_a} and {name_b} must be 1-D score vectors, got shapes {x.shape} and {y.shape}")
    if x.shape != y.shape:
        raise ValueError(f"{name_a} and {name_b} must have the same length, got {x.size} and {y.size}")
    if x.size == 0:
        raise ValueError(f"{name_a} and {name_b} are empty: agreement needs at least one rated item")
    for nm, v in ((name_a, x), (name_b, y)):
        if not np.issubdtype(v.dtype, np.number) or np.isnan(v.astype(float)).any():
            raise ValueError(f"{nm} must hold numeric scores without missing values")
    return x, y


def exact_agreement(a, b) -> float:
    """Share (0-1) of items on which two raters give the same score."""
    x, y = _pair(a, b)
    return float(np.mean(x == y))


def adjacent_agreement(a, b, tolerance: int = 1) -> float:
    """Share (0-1) of items on which two raters' scores differ by at most ``tolerance`` points."""
    x, y = _pair(a, b)
    return float(np.mean(np.abs(x.astype(float) - y.astype(float)) <= tolerance))


def mean_absolute_deviation(a, b) -> float:
    """Mean |a - b| over items."""
    x, y = _pair(a, b)
    return float(np.mean(np.abs(x.astype(float) - y.astype(float))))


def quadratic_weighted_kappa(a, b, categories: Sequence[int] = (0, 1, 2, 3)) -> float:
    """Cohen's quadratic-weighted kappa between two raters on the ordered ``categories``.

    Returns NaN when the expected weighted disagreement is zero (both raters constant on the same
    value), where kappa is undefined.
    """
    x, y = _pair(a, b)
    cats = np.asarray(categories)
    if cats.ndim != 1 or cats.size < 2 or np.any(np.diff(cats) <= 0):
        raise ValueError(f"categories must be a strictly increasing sequence of >= 2 values, got {categories!r}")
    k = cats.size
    out_x, out_y = ~np.isin(x, cats), ~np.isin(y, cats)
    if out_x.any() or out_y.any():
        vals = sorted(set(x[out_x].tolist()) | set(y[out_y].tolist()))
        raise ValueError(f"scores {vals} are not among the categories {cats.tolist()}")
    ix = np.searchsorted(cats, x)
    iy = np.searchsorted(cats, y)
    n = x.size
    observed = np.bincount(ix * k + iy, minlength=k * k).reshape(k, k).astype(float)
    expected = np.outer(np.bincount(ix, minlength=k), np.bincount(iy, minlength=k)) / n
    i, j = np.indices((k, k))
    w = (i - j) ** 2
    den = float((w * expected).sum())
    if den == 0:
        return float("nan")
    return 1.0 - float((w * observed).sum()) / den


def pairwise_agreement(a, b, categories: Sequence[int] = (0, 1, 2, 3)) -> dict[str, float]:
    """Exact and adjacent agreement (in %), mean absolute deviation, QW-kappa and n for two raters."""
    x, y = _pair(a, b)
    return {
        "n": int(x.size),
        "exact": 100.0 * exact_agreement(x, y),
        "adjacent": 100.0 * adjacent_agreement(x, y),
        "mad": mean_absolute_deviation(x, y),
        "qwk": quadratic_weighted_kappa(x, y, categories),
    }


def _panel(scores) -> np.ndarray:
    arr = np.asarray(scores, dtype=float)
    if arr.ndim != 2 or arr.shape[1] < 2:
        raise ValueError(f"panel scores must be a 2-D array (items x judges, >= 2 judges), got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError("panel scores are empty: need at least one item")
    if np.isnan(arr).any():
        raise ValueError("panel scores contain missing values: pass complete sets only (drop incomplete items first)")
    return arr


def mean_pairwise_qwk(scores, categories: Sequence[int] = (0, 1, 2, 3)) -> float:
    """Mean over all judge pairs (columns) of the quadratic-weighted kappa (NaN pairs ignored)."""
    arr = _panel(scores)
    ks = [quadratic_weighted_kappa(arr[:, p], arr[:, q], categories) for p, q in combinations(range(arr.shape[1]), 2)]
    ks = [k for k in ks if not np.isnan(k)]
    return float(np.mean(ks)) if ks else float("nan")


def krippendorff_alpha(reliability_data, level: str = "interval", value_domain: Sequence | None = None) -> float:
    """Krippendorff's alpha via the ``krippendorff`` package.

    ``reliability_data`` is raters x units (rows = raters), with ``np.nan`` for a missing rating, as
    the package expects. ``level`` is one of nominal, ordinal, interval, ratio.
    """
    import krippendorff

    arr = np.asarray(reliability_data, dtype=float)
    if arr.ndim != 2:
        raise ValueError(f"reliability_data must be 2-D (raters x units), got shape {arr.shape}")
    if level not in ("nominal", "ordinal", "interval", "ratio"):
        raise ValueError(f"level must be nominal, ordinal, interval or ratio, got {level!r}")
    if np.sum(np.sum(~np.isnan(arr), axis=0) >= 2) == 0:
        raise ValueError("reliability_data has no unit rated by two or more raters: alpha is undefined")
    kw = {} if value_domain is None else {"value_domain": list(value_domain)}
    return float(krippendorff.alpha(reliability_data=arr, level_of_measurement=level, **kw))


def panel_agreement(scores, categories: Sequence[int] = (0, 1, 2, 3)) -> dict[str, float]:
    """The PWB panel reliability statistics on complete judge sets (items x judges).

    exact = % of items where all judges agree; adjacent = % with max - min <= 1; qwk = mean
    quadratic-weighted kappa over judge pairs; alpha = Krippendorff's alpha (interval); spread =
    mean(max - min); n = items.
    """
    arr = _panel(scores)
    rng_ = arr.max(axis=1) - arr.min(axis=1)
    return {
        "n": int(arr.shape[0]),
        "exact": 100.0 * float(np.mean(rng_ == 0)),
        "adjacent": 100.0 * float(np.mean(rng_ <= 1)),
        "qwk": mean_pairwise_qwk(arr, categories),
        "alpha": krippendorff_alpha(arr.T, "interval"),
        "spread": float(rng_.mean()),
    }

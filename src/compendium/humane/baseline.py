"""The uniform baseline the scale chapter shares with the preferences chapter.

One point of the book's grid is the preferences chapter's own experiment: uniform pairs, the study's five Davidson
strengths, no ties, one group, scored by the MAP Bradley-Terry board. That chapter simulates it with
:func:`compendium.preferences.simulation.uniform_boards` (behind its judgements needed,
``results/preferences_mc/values.json``, exported for this chapter as ``exports/humane.json``); this one did so with
the sweep's 1,000 studies, and the two disagreed by about two of this chapter's Monte Carlo standard errors (12,700
against 14,000 decisive judgements for the full ranking; issue 33, C1): a chance miss, but the baseline of every
saving at that setting, one of which it turned into a loss.
So the baseline of that point is now one computation for both chapters: the same function, run here with
:data:`BASELINE_REPETITIONS` studies at this chapter's checkpoints (about 4 s of CPU), scored by this chapter's rule
(:func:`compendium.humane.simulate.recovered`, a tie on the board recovers no order). Its rows replace the
committed blocks' rows of that point for the recovery questions (:func:`with_baseline`); the P(best) of its boards
is not simulated, so the calibration keeps the committed rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from compendium.pipeline import paths, studies

from .simulate import Point, point_key, recovered

__all__ = [
    "BASELINE_REPETITIONS",
    "PREFERENCES_MC",
    "PROBIT_WINDOW",
    "shared_point",
    "shared_baseline",
    "with_baseline",
    "read_as_preferences",
    "read_shared",
]

#: the studies of the shared baseline, as many as the preferences chapter puts at each of its checkpoints
#: (``compendium.preferences.montecarlo.REPETITIONS``): its Monte Carlo error on the judgements needed is then about
#: a fifth of the sweep's 1,000 studies'
BASELINE_REPETITIONS = 20_000
#: what the preferences chapter's Monte Carlo stage exports for this one: the judgements its uniform design needs
PREFERENCES_MC = Path("results") / "preferences_mc" / "exports" / "humane.json"
#: the values of :data:`PREFERENCES_MC` the chapter sets beside its own baseline (full ranking, top model; the
#: stage's exports in ``compendium.pipeline.studies``)
SHARED_KEYS = dict(studies.stage("preferences_mc").exports)["humane"]


def shared_point(points: Sequence[Point], study_pi: np.ndarray) -> Point | None:
    """The point of ``points`` that is the preferences chapter's experiment: uniform pairs, one group, no ties, and
    the study's own strengths (``study_pi``, the Davidson fit: the point's log-strengths are their logarithms,
    centred and sorted); None if the grid has none."""
    th = np.log(np.asarray(study_pi, dtype=float))
    th = np.sort(th - th.mean())[::-1]
    for p in points:
        if (p.design == "uniform" and p.n_groups == 1 and p.nu == 0 and p.n_models == th.size
                and np.allclose(p.theta, th, rtol=0, atol=1e-9)):  # fmt: skip
            return p
    return None


def shared_baseline(point: Point, seed: int, repetitions: int = BASELINE_REPETITIONS) -> pd.DataFrame:
    """The recovery rows (``point_key, repetition, checkpoint, n_judgements, n_decisive, rank_pooled, top_pooled``)
    of ``repetitions`` studies at ``point`` (uniform pairs, no ties), simulated by the preferences chapter's
    :func:`~compendium.preferences.simulation.uniform_boards` at the point's checkpoints with its prior and scored by
    :func:`~compendium.humane.simulate.recovered`. Seeded with ``SeedSequence(seed, spawn_key=(point key,))``, a
    stream apart from every repetition of the sweep (whose keys are ``(point key, repetition)``)."""
    from compendium.preferences.simulation import uniform_boards

    if point.design != "uniform" or point.nu != 0 or point.n_groups != 1:
        raise ValueError(f"shared_baseline: {point.label()} is not uniform pairs with one group and no ties")
    key = point_key(point)
    theta = np.asarray(point.theta, dtype=float)
    ck = np.asarray(point.checkpoints, dtype=np.int64)
    seq = np.random.SeedSequence(seed, spawn_key=(key,))
    th = uniform_boards(np.exp(theta), ck, repetitions, seq, prior_sd=point.prior_sd)  # (R, C, K)
    order = np.argsort(-th, axis=-1, kind="stable")
    rank, top = recovered(th, order, np.argsort(-theta, kind="stable"))
    R, C = rank.shape
    return pd.DataFrame(
        {
            "point_key": np.int64(key),
            "repetition": np.repeat(np.arange(R, dtype=np.int64), C),
            "checkpoint": np.tile(np.arange(C, dtype=np.int64), R),
            "n_judgements": np.tile(ck, R),
            "n_decisive": np.tile(ck, R),  # no ties: every judgement is decisive
            "rank_pooled": rank.ravel(),
            "top_pooled": top.ravel(),
        }
    )


def with_baseline(rows: pd.DataFrame, baseline: pd.DataFrame | None) -> pd.DataFrame:
    """``rows`` with the rows of the baseline's point replaced by ``baseline``'s (unchanged if None)."""
    if baseline is None:
        return rows
    key = baseline["point_key"].iloc[0]
    kept = rows.loc[rows["point_key"] != key, [*baseline.columns]]
    return pd.concat([kept, baseline], ignore_index=True)


#: the half-width, in log judgements, of the probit line :func:`read_as_preferences` fits: the preferences chapter's
#: 0.25 holds three of its checkpoints 6 % apart; three of this chapter's, sqrt(2) apart, need 0.5
PROBIT_WINDOW = 0.5


def read_as_preferences(curves: pd.DataFrame, point: Point, repetitions: int) -> dict[str, float]:
    """The judgements the shared baseline needs for the full ranking and the top model (``{"rank": n, "top": n}``)
    read from its recovery curve (``curves``, :func:`compendium.humane.report.curves`) as the preferences chapter
    reads its own: a weighted probit line through the checkpoints nearest the crossing
    (:func:`compendium.preferences.simulation.curve_crossing`, window :data:`PROBIT_WINDOW`), where this chapter
    interpolates a straight line between the two checkpoints either side (:func:`compendium.humane.report.first_reach`).
    On a curve that flattens as it nears 1 the straight line reads the crossing late, so the two readings of one
    curve differ; this one sets the baseline beside the preferences chapter's number on that chapter's terms."""
    from compendium.preferences.simulation import curve_crossing

    c = curves[(curves["n_models"] == point.n_models) & (curves["spread"] == point.spread) & (curves["nu"] == point.nu)
               & (curves["design"] == point.design)]  # fmt: skip
    ck = c["n_decisive"].to_numpy(float)
    return {w: float(curve_crossing(c[f"p_{w}"].to_numpy(float), ck, 0.95, repetitions, window=PROBIT_WINDOW))
            for w in ("rank", "top")}  # fmt: skip


def read_shared(root: Path | None = None) -> dict[str, float]:
    """The preferences chapter's judgements needed by its uniform design (:data:`SHARED_KEYS`), which the chapter sets
    beside its shared baseline: the Monte Carlo stage's export for this one (:data:`PREFERENCES_MC`), or an error
    naming the command that makes it."""
    from compendium.pipeline.results import read_export

    root = Path(root) if root is not None else paths.ROOT
    values = read_export("preferences_mc", "humane", root=root / PREFERENCES_MC.parent.parent)
    missing = [k for k in SHARED_KEYS if k not in values]
    if missing:
        raise ValueError(f"{PREFERENCES_MC} has no {', '.join(missing)}; run `dvc repro preferences_mc` to remake it")
    return {k: float(values[k]) for k in SHARED_KEYS}

"""The scale chapter's one computation: ``build(params, inputs) -> HumaneResult``.

``params`` is the chapter's section of ``params.yaml``, the pydantic model :class:`compendium.pipeline.params.Humane`
(made with ``study_params("humane", ...)``). :meth:`Inputs.load` reads, once, the study's Davidson strengths and
tie parameter nu from the preferences stage (:func:`.grid.study_truth`: its table and its export for this stage)
and the committed blocks of the book's grid (``sweeps/humane/blocks``, :func:`.sweep.run_sweep` with
``compute=False``: read, never recomputed). :func:`build` reduces them to the chapter's answers
(:mod:`.report`: judgements needed, savings, calibration, consolidation, recovery curves) and computes the
small default grid live, on a Dask cluster started for it and timed against ``humane.time_budget_s``. The
result is immutable (frozen dataclasses; its frames are the chapter's tables, not to be edited in place):
:mod:`.summary` phrases it, :mod:`.values` records it, :mod:`.views` and :mod:`.figures` show it.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from compendium.pipeline.progress import say

from . import grid, report, sweep
from .simulate import Point, point_key

if TYPE_CHECKING:
    from compendium.pipeline.params import Humane

__all__ = ["STAGE", "Inputs", "DefaultGrid", "HumaneResult", "build"]

STAGE = "humane"


@dataclass(frozen=True)
class Inputs:
    """What the chapter reads: the study's Davidson fit (from the preferences stage) and the book grid's blocks."""

    pi: np.ndarray  # the study's Davidson strengths (results/preferences/tables/davidson.csv, its model order)
    nu: float  # the study's Davidson tie parameter (results/preferences/exports/humane.json)
    book: tuple[tuple[int, tuple[Point, ...]], ...]  # the book's grid: (repetitions, points) per block of grid.BOOK
    rows: pd.DataFrame  # the committed blocks' rows of every point of the book's grid, block after block

    @classmethod
    def load(cls, params: Humane, store: Path = grid.BOOK_STORE) -> Inputs:
        """The study's Davidson strengths and nu, and the rows of the book's grid (its points made with
        ``params``) from the committed blocks in ``store``; a missing block is an error naming the command that
        computes it (:func:`.sweep.run_sweep`)."""
        pi, nu = grid.study_truth()
        book = tuple((reps, tuple(pts)) for reps, pts in grid.book_grid(params, pi, nu))
        rows = []
        for reps, pts in book:  # the committed blocks (sweeps/humane/blocks): read, never recomputed here
            r, _ = sweep.run_sweep(list(pts), reps, params.block_size, params.seed, store, compute=False)
            rows.append(r)
        return cls(pi=pi, nu=nu, book=book, rows=pd.concat(rows, ignore_index=True))

    @property
    def points(self) -> tuple[Point, ...]:
        """Every point of the book's grid, block after block."""
        return tuple(q for _, pts in self.book for q in pts)


@dataclass(frozen=True)
class DefaultGrid:
    """The small default grid the stage computes itself: 5 models, the study's strengths and ties, every design."""

    points: tuple[Point, ...]
    repetitions: int
    needed: pd.DataFrame  # report.needed of its rows: results/humane/tables/default_needed.csv
    seconds: float  # how long it took (grid, Dask cluster and sweep), against humane.time_budget_s


@dataclass(frozen=True)
class HumaneResult:
    """Every answer of the chapter, each computed once by :func:`build`."""

    params: Humane
    nu: float  # the study's Davidson nu
    points: tuple[Point, ...]  # the book's grid
    repetitions: Mapping[int, tuple[int, ...]]  # models -> the repetitions of the book's blocks with that many
    needed: pd.DataFrame  # report.needed: results/humane/tables/needed.csv
    saving: pd.DataFrame  # report.saving, top model then full ranking: tables/saving.csv
    calibration: pd.DataFrame  # report.calibration per number of models: tables/calibration.csv
    consolidation: pd.DataFrame  # report.consolidation: tables/consolidation.csv
    curves: pd.DataFrame  # report.curves: tables/curves.csv
    default: DefaultGrid

    @property
    def budget(self) -> int:
        """Judgements shown per simulated study of the book's grid."""
        return self.points[0].budget


def _calibration(rows: pd.DataFrame, points: tuple[Point, ...]) -> pd.DataFrame:
    """:func:`.report.calibration` per number of models (column ``n_models``)."""
    size = {point_key(q): q.n_models for q in points}
    return pd.concat(
        [report.calibration(r).assign(n_models=n) for n, r in rows.groupby(rows["point_key"].map(size))],
        ignore_index=True,
    )


def _default(params: Humane, inputs: Inputs, client=None) -> DefaultGrid:
    """The default grid, computed live on Dask (``client``, else ``humane.scheduler_address``, else a
    LocalCluster started for it) and timed; the time is reported on the pipeline's terminal."""
    t0 = time.perf_counter()
    default = grid.default_grid(params, inputs.pi, inputs.nu)
    d_rows, _ = sweep.run_sweep(
        default,
        params.default_repetitions,
        params.block_size,
        params.seed,
        None,
        client=client,
        address=sweep.scheduler_address(params.scheduler_address),
    )
    took = time.perf_counter() - t0
    budget = params.time_budget_s
    say(STAGE, f"default grid: {took:.1f} s (budget {budget} s)" + (" -- OVER BUDGET" if took > budget else ""))
    return DefaultGrid(
        points=tuple(default),
        repetitions=params.default_repetitions,
        needed=report.needed(d_rows, default, seed=params.seed),
        seconds=took,
    )


def build(params: Humane, inputs: Inputs, *, client=None) -> HumaneResult:
    """The chapter's answers from the book grid's rows (judgements needed, the saving of each design against
    uniform pairs for the top model and the full ranking, calibration, consolidation, the recovery curves) and
    the default grid computed live (``client``: a Dask client for it; None: ``humane.scheduler_address``, else a
    LocalCluster of one worker per core): the chapter's whole computation, each part once."""
    rows, points = inputs.rows, list(inputs.points)
    needed = report.needed(rows, points, seed=params.seed)
    saving = pd.concat(
        [report.saving(rows, points, what, seed=params.seed) for what in ("top", "rank")], ignore_index=True
    )
    calibration = _calibration(rows, inputs.points)
    consolidation = report.consolidation(rows, points)
    default = _default(params, inputs, client=client)
    curves = report.curves(rows, points)
    sizes = sorted({pts[0].n_models for _, pts in inputs.book})
    repetitions = {n: tuple(r for r, pts in inputs.book if pts[0].n_models == n) for n in sizes}
    return HumaneResult(
        params=params,
        nu=inputs.nu,
        points=inputs.points,
        repetitions=MappingProxyType(repetitions),
        needed=needed,
        saving=saving,
        calibration=calibration,
        consolidation=consolidation,
        curves=curves,
        default=default,
    )

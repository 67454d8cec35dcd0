"""The scale chapter's one computation: ``build(params, inputs) -> HumaneResult``.

``params`` is the chapter's section of ``params.yaml``, the pydantic model :class:`compendium.pipeline.params.Humane`
(made with ``study_params("humane", ...)``). :meth:`Inputs.load` reads, once, the study's Davidson strengths and
tie parameter nu from the preferences stage (:func:`.grid.study_truth`: its table and its export for this stage),
the preferences chapter's judgements needed by uniform pairs (:func:`.baseline.read_shared`) and the committed
blocks of the book's grid (``sweeps/humane/blocks``, :func:`.sweep.run_sweep` with ``compute=False``: read, never
recomputed). :func:`build` simulates the uniform baseline it shares with the preferences chapter
(:mod:`.baseline`), reduces the rows to the chapter's answers (:mod:`.report`: judgements needed, savings,
calibration pooled and per setting, consolidation, recovery curves) and computes the small default grid live, on a
Dask cluster started for it and timed against ``humane.time_budget_s``. The
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
from compendium.stats.threads import pool

from . import baseline, grid, report, sweep
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
    #: the preferences chapter's judgements needed by uniform pairs (results/preferences_mc/exports/humane.json,
    #: baseline.SHARED_KEYS), set beside this chapter's shared baseline; None: not shown (a test's tiny grid)
    shared: Mapping[str, float] | None = None

    @classmethod
    def load(cls, params: Humane, store: Path = grid.BOOK_STORE) -> Inputs:
        """The study's Davidson strengths and nu, the preferences chapter's judgements needed by uniform pairs, and
        the rows of the book's grid (its points made with ``params``) from the committed blocks in ``store``; a
        missing block is an error naming the command that computes it (:func:`.sweep.run_sweep`)."""
        pi, nu = grid.study_truth()
        shared = MappingProxyType(baseline.read_shared())
        book = tuple((reps, tuple(pts)) for reps, pts in grid.book_grid(params, pi, nu))
        rows = []
        for reps, pts in book:  # the committed blocks (sweeps/humane/blocks): read, never recomputed here
            r, _ = sweep.run_sweep(list(pts), reps, params.block_size, params.seed, store, compute=False)
            rows.append(r)
        return cls(pi=pi, nu=nu, book=book, rows=pd.concat(rows, ignore_index=True), shared=shared)

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
    saving: pd.DataFrame  # report.savings, top model then full ranking, simultaneous intervals: tables/saving.csv
    calibration: pd.DataFrame  # report.calibration per number of models: tables/calibration.csv
    calibration_settings: pd.DataFrame  # report.calibration_by_setting: tables/calibration_settings.csv
    consolidation: pd.DataFrame  # report.consolidation: tables/consolidation.csv
    consolidation_cells: pd.DataFrame  # report.consolidation_cells: tables/consolidation_cells.csv
    curves: pd.DataFrame  # report.curves: tables/curves.csv
    default: DefaultGrid
    #: the uniform baseline shared with the preferences chapter: its setting (models, spread; uniform pairs, one
    #: group, no ties), its studies, its judgements needed read as the preferences chapter reads a curve
    #: (baseline.read_as_preferences: probit_rank, probit_top), and that chapter's own (Inputs.shared); None where
    #: the grid has no such point
    shared: Mapping[str, object] | None = None

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
    LocalCluster started for it: one worker in the stage's process, a thread per core, which starts in about 0.1 s
    where worker processes took about 1 s to start and import the package, for the same rows: the rows do not
    depend on the workers, ``tests/humane/test_humane_sweep.py``) and timed; the time is reported on the
    pipeline's terminal."""
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
        processes=False,
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


def _book_answers(params: Humane, inputs: Inputs) -> tuple:
    """The answers :func:`build` reads from the book grid's rows, with the shared uniform baseline."""
    rows, points = inputs.rows, list(inputs.points)
    point = baseline.shared_point(points, inputs.pi)  # the preferences chapter's experiment, if the grid has it
    base = baseline.shared_baseline(point, params.seed) if point is not None else None
    recovery = baseline.with_baseline(rows, base)  # its rows replaced by the shared baseline's, for recovery
    needed = report.needed(recovery, points, seed=params.seed)
    saving = report.savings(recovery, points, seed=params.seed)
    calibration = _calibration(rows, inputs.points)  # P(best): the committed rows (the baseline simulates none)
    calibration_settings = report.calibration_by_setting(rows, points)
    cells = report.consolidation_cells(rows, points)
    consolidation = report.consolidation(rows, points, cells)
    curves = report.curves(recovery, points)
    return base, point, needed, saving, calibration, calibration_settings, cells, consolidation, curves


def build(params: Humane, inputs: Inputs, *, client=None) -> HumaneResult:
    """The chapter's answers from the book grid's rows (judgements needed, the saving of each design against
    uniform pairs for the top model and the full ranking, calibration pooled and per setting, consolidation, the
    recovery curves), the uniform baseline of the preferences chapter's experiment simulated once for both
    chapters (:mod:`.baseline`; its rows stand in for the committed ones of that point in every recovery answer),
    and the default grid computed live (``client``: a Dask client for it; None: ``humane.scheduler_address``, else a
    LocalCluster of one in-process worker with a thread per core): the chapter's whole computation, each part once."""
    # the book grid's answers in a thread while the default grid runs: that grid's Dask worker keeps about 1.2 of
    # the 2 cores busy (its tasks hold the GIL), these are mostly numpy on large arrays (compendium.stats.threads);
    # each part has its own seed, so the numbers do not depend on which finishes first
    with pool(2) as ex:
        book = ex.submit(_book_answers, params, inputs)
        default = _default(params, inputs, client=client)
        base, point, needed, saving, calibration, calibration_settings, cells, consolidation, curves = book.result()
    shared = None
    if base is not None:
        reps = int(base["repetition"].nunique())
        probit = baseline.read_as_preferences(curves, point, reps)  # the preferences chapter's reading of a curve
        shared = MappingProxyType({"n_models": point.n_models, "spread": point.spread, "repetitions": reps,
                                   **{f"probit_{w}": n for w, n in probit.items()}, **(inputs.shared or {})})  # fmt: skip
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
        calibration_settings=calibration_settings,
        consolidation=consolidation,
        consolidation_cells=cells,
        curves=curves,
        default=default,
        shared=shared,
    )

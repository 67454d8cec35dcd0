"""The scale study's grids: the small default one the stage computes, and the book's, read from committed blocks.

Strengths (:func:`.simulate.strengths`): with 5 models and the ``study`` spread, the study's own Davidson
estimates (``results/preferences/tables/davidson.csv``); otherwise normal quantiles scaled to the study's
standard deviation of log-strengths (``study``) or to ``humane.wide_sd`` (``wide``, a leaderboard-like
spread). Ties: the study's Davidson nu (``study``; the preferences chapter's export for this stage,
``results/preferences/exports/humane.json``) or none (``none``). Groups: 1, 5 or 22 (the first HUMAINE
release's count), each with perturbations of standard deviation ``humane.group_sd``. ``params`` is the
``humane`` section's model (``compendium.pipeline.params.study_params("humane", ...)``), passed explicitly.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from compendium.pipeline import paths

from .simulate import DESIGNS, Point, strengths

if TYPE_CHECKING:
    from compendium.pipeline.params import Humane

#: the committed sweep blocks the chapter shows (git-tracked; see the README, "The HUMANE scale study")
BOOK_STORE = paths.ROOT / "sweeps" / "humane" / "blocks"
#: the preferences stage's Davidson fit, the source of the study's strengths; its tie parameter nu is in the
#: values the preferences stage exports for this one (``results/preferences/exports/humane.json``)
DAVIDSON_TABLE = Path("results") / "preferences" / "tables" / "davidson.csv"

BUDGET = 40960  # judgements shown per simulated study, both sizes
#: the book's grid as blocks of (models, designs, spreads, ties, groups, repetitions): for 5 and 20 models
#: every design x spread x ties with one group, and uniform pairs with 5 and 22 groups (study ties). The
#: repetitions follow the cost per repetition (`python benchmarks/humane_scale.py`, CPU seconds per repetition
#: at these points in blocks of 50: 5 models 0.01 non-adaptive, 0.03-0.07 information gain, 0.02 with 22
#: groups; 20 models 0.016, 0.11 TrueSkill and 0.25 BT-Davidson information gain, 0.09-0.38 with 5-22
#: groups): about 18 minutes of one core for the whole grid. The chapter's Monte Carlo intervals show what
#: the repetitions buy.
BOOK = (
    (5, ("ig_trueskill", "ig_davidson"), ("study", "wide"), ("study", "none"), (1,), 1000),
    (5, ("uniform", "arena"), ("study", "wide"), ("study", "none"), (1,), 1000),
    (5, ("uniform",), ("study", "wide"), ("study",), (5, 22), 1000),
    (20, ("ig_trueskill", "ig_davidson"), ("study", "wide"), ("study", "none"), (1,), 300),
    (20, ("uniform", "arena"), ("study", "wide"), ("study", "none"), (1,), 1000),
    (20, ("uniform",), ("study", "wide"), ("study",), (5, 22), 100),
)
N_CHECKPOINTS = 13  # geometric, factor sqrt(2), from budget / 64 to the budget


def checkpoints(budget: int, batch: int, n: int = N_CHECKPOINTS) -> tuple[int, ...]:
    """``n`` checkpoints spaced by a factor sqrt(2) ending at ``budget``, each a multiple of ``batch``."""
    ck = np.round(budget * 2.0 ** (-(np.arange(n)[::-1]) / 2) / batch).astype(int) * batch
    out = tuple(int(x) for x in np.unique(ck) if x > 0)
    if out[-1] != budget:
        raise ValueError(f"budget {budget} is not a multiple of batch {batch}")
    return out


def study_truth(root: Path | None = None) -> tuple[np.ndarray, float]:
    """The study's Davidson strengths (in the table's model order) and nu, from the preferences stage: its table
    ``results/preferences/tables/davidson.csv`` and its export for this stage (``pref.davidson.nu``,
    :func:`compendium.pipeline.results.read_export`)."""
    from compendium.pipeline.results import read_export

    root = Path(root) if root is not None else paths.ROOT
    table = root / DAVIDSON_TABLE
    if not table.exists():
        raise FileNotFoundError(
            f"{table.relative_to(root)} is missing: the scale study takes the study's strengths from the "
            "preferences stage; run `dvc repro preferences` first"
        )
    df = pd.read_csv(table)
    nu = read_export("preferences", "humane", root=root / "results" / "preferences").get("pref.davidson.nu")
    if "davidson" not in df or nu is None:
        raise ValueError(
            f"{table.relative_to(root)} has no 'davidson' column or the preferences export no 'pref.davidson.nu'"
        )
    return df["davidson"].to_numpy(float), float(nu)


def make_points(spec: dict, study_pi, study_nu: float, p: Humane) -> list[Point]:
    """The points of one block of the grid: the product of ``spec``'s lists (n_models, spread, nu, n_groups, design)."""
    pts = []
    for n, spread, nu, G, design in itertools.product(
        spec["n_models"], spec["spread"], spec["nu"], spec["n_groups"], spec["design"]
    ):
        budget = spec["budget"][n]
        theta = strengths(n, spread, study_pi, p.wide_sd)
        pts.append(
            Point(
                n_models=n,
                spread=spread,
                theta=tuple(float(x) for x in np.round(theta, 12)),
                nu=study_nu if nu == "study" else 0.0,
                n_groups=G,
                group_sd=p.group_sd if G > 1 else 0.0,
                design=design,
                checkpoints=checkpoints(budget, 20),
            )
        )
    return pts


def default_grid(p: Humane, study_pi, study_nu: float) -> list[Point]:
    """The stage's own small grid: 5 models, the study's strengths and ties, one group, every design,
    with a budget of 10,240 judgements (computed live in the stage, ``humane.default_repetitions`` each)."""
    spec = {"n_models": [5], "spread": ["study"], "nu": ["study"], "n_groups": [1], "design": list(DESIGNS),
            "budget": {5: 10240}}  # fmt: skip
    return make_points(spec, study_pi, study_nu, p)


def book_grid(p: Humane, study_pi, study_nu: float) -> list[tuple[int, list[Point]]]:
    """The book's grid (:data:`BOOK`) as ``[(repetitions, points)]``: for 5 and 20 models, every design x
    spread x ties with one group; and the uniform design with 5 and 22 groups (study ties) for the
    consolidation claim."""
    out = []
    for n, designs, spreads, nus, groups, reps in BOOK:
        spec = {"n_models": [n], "budget": {n: BUDGET}, "spread": spreads, "nu": nus, "n_groups": groups,
                "design": designs}  # fmt: skip
        out.append((reps, make_points(spec, study_pi, study_nu, p)))
    return out


def grid_from_params(name: str, p: Humane) -> dict:
    """``{'groups': [(repetitions, points)], 'block_size', 'seed', 'store'}`` for ``default`` or ``book``, with
    the parameters ``p``."""
    pi, nu = study_truth()
    if name == "default":
        groups = [(p.default_repetitions, default_grid(p, pi, nu))]
        store = None
    elif name == "book":
        groups = book_grid(p, pi, nu)
        store = BOOK_STORE
    else:
        raise ValueError(f"unknown grid {name!r}; expected 'default' or 'book'")
    return {"groups": groups, "block_size": p.block_size, "seed": p.seed, "store": store}

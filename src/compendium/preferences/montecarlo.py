"""Monte Carlo reference numbers of the preferences chapter, computed once and cached by their own DVC stage.

    python -m compendium.preferences.montecarlo   # writes results/preferences_mc/ (values.json, tables/)

How many decisive judgements a uniform design needs to recover the full Bradley-Terry ranking with
probability :data:`TARGET`, if the Davidson strengths were the truth, and how that number changes if
only the Recipe C-Recipe D gap were larger or smaller (:func:`compendium.preferences.simulation.needed_by_gap`,
simulated at every gap, never scaled). Each number comes with a 90 % Monte Carlo interval and a
bootstrap standard error over the simulated studies, and the chapter prints it to the digits that
error supports (:func:`mc_text`).

The settings are constants here, not ``params.yaml`` keys: these numbers depend on the data alone, so
an exercise that changes a ``preferences`` parameter (``dvc exp run -S preferences.seed=1``) does not
re-run them. Cost: about 6 s on the 2-core machine the compendium is built on (a pilot of
:data:`PILOT_REPETITIONS` and a main pass of :data:`REPETITIONS` simulated studies per gap,
each observed at 9 checkpoints).
"""

from __future__ import annotations

import math

import pandas as pd

from .reproduce import MODELS

STAGE = "preferences_mc"
SEED = 20260513
TARGET = 0.95
PRIOR_SD = 1.0
REPETITIONS = 3_000
PILOT_REPETITIONS = 1_000
#: the C-D gap as a multiple of its estimate; rows where C-D would not be the closest pair are not simulated
GAP_FACTORS = (2.0, 1.5, 1.0, 0.75, 0.5, 0.25)
PAIR = ("recipe_c", "recipe_d")


def build(counts: pd.DataFrame) -> tuple[dict, pd.DataFrame]:
    """``(values, needed_by_gap table)`` from the published pair counts (Davidson truth)."""
    from .simulation import decisive_truth, needed_by_gap

    truth = decisive_truth(counts, "davidson")
    pair = (MODELS.index(PAIR[0]), MODELS.index(PAIR[1]))
    tbl = needed_by_gap(
        truth,
        GAP_FACTORS,
        pair,
        target=TARGET,
        repetitions=REPETITIONS,
        seed=SEED,
        prior_sd=PRIOR_SD,
        pilot_repetitions=PILOT_REPETITIONS,
        ratio=1.06,
        half_width=4,
    )
    at1 = tbl[tbl["factor"] == 1.0].iloc[0]
    values = {
        "pref_mc.target": TARGET,
        "pref_mc.repetitions": REPETITIONS,
        "pref_mc.seed": SEED,
        "pref_mc.prior_sd": PRIOR_SD,
        "pref_mc.uniform.n_for_ranking": float(at1["n_needed"]),
        "pref_mc.uniform.n_for_ranking_mc_lo": float(at1["n_mc_lo"]),
        "pref_mc.uniform.n_for_ranking_mc_hi": float(at1["n_mc_hi"]),
        "pref_mc.uniform.n_for_ranking_mc_se": float(at1["n_mc_se"]),
    }
    for r in tbl.itertuples():
        values[f"pref_mc.needed_by_gap.x{r.factor:g}"] = float(r.n_needed) if r.closest_pair else None
    return values, tbl


def mc_unit(se: float) -> float:
    """The rounding unit a Monte Carlo standard error supports: the power of ten of its leading digit
    (an SE of 430 supports hundreds, one of 1,900 thousands)."""
    if not (se > 0 and math.isfinite(se)):
        raise ValueError(f"mc_unit: need a positive finite standard error, got {se}")
    return 10.0 ** math.floor(math.log10(se))


def mc_round(x: float, se: float) -> float:
    """``x`` rounded to :func:`mc_unit` of ``se``."""
    u = mc_unit(se)
    return round(x / u) * u


def mc_text(n: float, lo: float, hi: float, se: float) -> str:
    """``"14,000 (90 % Monte Carlo interval 13,500–14,800)"``, every number to the digits ``se`` supports."""
    return f"{mc_round(n, se):,.0f} (90 % Monte Carlo interval {mc_round(lo, se):,.0f}–{mc_round(hi, se):,.0f})"


def load() -> dict:
    """This stage's outputs for a chapter: ``{"values": values.json, "gap": needed_by_gap table}``, or a
    clear error naming the command that makes them."""
    import json

    from compendium.pipeline import paths

    folder = paths.RESULTS / STAGE
    vfile, tfile = folder / "values.json", folder / "tables" / "needed_by_gap.csv"
    if not (vfile.exists() and tfile.exists()):
        raise FileNotFoundError(
            f"{vfile.relative_to(paths.ROOT)} or {tfile.relative_to(paths.ROOT)} is missing; make them with "
            f"`dvc repro {STAGE}` (or `bin/py -m compendium.preferences.montecarlo`)"
        )
    return {"values": json.loads(vfile.read_text()), "gap": pd.read_csv(tfile)}


def main() -> int:
    import json
    import time

    from compendium.pipeline.notebooks import timing_file
    from compendium.pipeline.results import write_table, write_values

    from .. import data

    t0 = time.perf_counter()
    values, tbl = build(data.load_hitl_pair_counts())
    write_table(STAGE, "needed_by_gap", tbl)
    write_values(STAGE, values)
    seconds = time.perf_counter() - t0
    timing = timing_file(STAGE)  # for the Reproducibility page's stage times, as the notebook stages do
    timing.parent.mkdir(parents=True, exist_ok=True)
    timing.write_text(json.dumps({"stage": STAGE, "notebook": None, "seconds": round(seconds, 2)}) + "\n")
    print(f"{STAGE}: {len(tbl)} gaps, {REPETITIONS:,} simulated studies each, {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

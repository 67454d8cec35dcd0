"""Monte Carlo reference numbers of the preferences chapter, computed once and cached by their own DVC stage.

    python -m compendium.preferences.montecarlo   # writes results/preferences_mc/ (values.json, tables/, exports/)

* How many decisive judgements a uniform design needs to recover the full Bradley-Terry ranking, and the
  true top model, with probability :data:`TARGET`, if the Davidson strengths were the truth
  (:func:`compendium.preferences.simulation.uniform_needed`), and how the first number changes if only
  the Recipe C-Recipe D gap were larger or smaller
  (:func:`compendium.preferences.simulation.needed_by_gap`, simulated at every gap, never scaled). A pilot
  locates each crossing; the main pass puts :data:`REPETITIONS` independent simulated studies at each of
  9 checkpoints around it and fits the crossing to all of them
  (:func:`~compendium.preferences.simulation.probit_crossing`), with a 90 % Monte Carlo interval and
  standard error.
* How many times wider the category-cluster bootstrap is than the judgement bootstrap, per model
  (:func:`compendium.preferences.uncertainty.sd_ratio`), over :data:`WIDEN_REPLICATES` replicates of each.

The chapter prints each number to the digits its Monte Carlo error supports (:mod:`compendium.stats.mcdigits`,
:func:`compendium.stats.mcdigits.mc_text`). The settings are constants here, not ``params.yaml`` keys: these numbers depend on the
data alone, so an exercise that changes a ``preferences`` parameter (``dvc exp run -S preferences.seed=1``)
does not re-run them. Cost on the 2-core machine the compendium is built on: about 4.5 s, 7 s of CPU (the 5
crossings about 1 s each, the two bootstraps about 1.5 s), the crossings and the widening running at once, a
thread per core (:mod:`compendium.stats.threads`); about 7 s on one core.
"""

from __future__ import annotations

import pandas as pd

from .reproduce import MODELS

STAGE = "preferences_mc"
SEED = 20260513
TARGET = 0.95
PRIOR_SD = 1.0
#: independent simulated studies at each of the main pass's checkpoints
REPETITIONS = 20_000
PILOT_REPETITIONS = 1_000
RATIO, HALF_WIDTH = 1.06, 4  # the main pass's checkpoints: 9, spaced by 6 %
#: the C-D gap as a multiple of its estimate; rows where C-D would not be the closest pair are not simulated
GAP_FACTORS = (2.0, 1.5, 1.0, 0.75, 0.5, 0.25)
PAIR = ("recipe_c", "recipe_d")
#: replicates of each bootstrap (judgements; categories as clusters) behind the widening ratios
WIDEN_REPLICATES = 50_000


def _needed_kwargs() -> dict:
    return dict(
        target=TARGET,
        repetitions=REPETITIONS,
        prior_sd=PRIOR_SD,
        pilot_repetitions=PILOT_REPETITIONS,
        ratio=RATIO,
        half_width=HALF_WIDTH,
    )


def widening(counts: pd.DataFrame, by_category: pd.DataFrame, n_boot: int, seed: int) -> pd.DataFrame:
    """Per model, the category-cluster bootstrap's SD of the centred log-strength over the judgement
    bootstrap's (:func:`compendium.preferences.uncertainty.sd_ratio`), ``n_boot`` replicates of each."""
    import numpy as np

    from .uncertainty import bootstrap_bradley_terry, bootstrap_bradley_terry_clustered, sd_ratio

    s_j, s_c = np.random.SeedSequence(seed).spawn(2)
    judgements = bootstrap_bradley_terry(counts, n_boot, int(s_j.generate_state(1)[0]))
    categories = bootstrap_bradley_terry_clustered(by_category, n_boot, int(s_c.generate_state(1)[0]))
    return sd_ratio(categories, judgements)


def build(
    counts: pd.DataFrame, by_category: pd.DataFrame | None = None, workers: int | None = None
) -> tuple[dict, pd.DataFrame]:
    """``(values, needed_by_gap table)`` from the published pair counts (Davidson truth) and, when given,
    the per-category counts (the widening ratios). ``workers``: threads (default: one per core; any number
    gives the same numbers)."""
    import numpy as np

    from compendium.pipeline.results import significant
    from compendium.stats.threads import pool

    from .simulation import decisive_truth, needed_by_gap, uniform_needed

    truth = decisive_truth(counts, "davidson")
    pair = (MODELS.index(PAIR[0]), MODELS.index(PAIR[1]))
    s_gap, s_top, s_widen = np.random.SeedSequence(SEED).spawn(3)
    # every crossing and the widening at once, one thread per core (compendium.stats.threads): each has its own
    # stream, so the numbers are the same on any number of threads; the longest tasks are queued first
    with pool(len(GAP_FACTORS) + 2, workers) as ex:
        widen = None
        if by_category is not None:
            widen = ex.submit(widening, counts, by_category, WIDEN_REPLICATES, int(s_widen.generate_state(1)[0]))
        top_run = ex.submit(uniform_needed, truth, seed=s_top, what="top", **_needed_kwargs())
        tbl = needed_by_gap(
            truth, GAP_FACTORS, pair, seed=int(s_gap.generate_state(1)[0]), executor=ex, **_needed_kwargs()
        )
        top = top_run.result()
        w = widen.result() if widen is not None else None
    at1 = tbl[tbl["factor"] == 1.0].iloc[0]
    values = {
        "pref_mc.target": TARGET,
        "pref_mc.repetitions": REPETITIONS,
        "pref_mc.checkpoints": 2 * HALF_WIDTH + 1,
        "pref_mc.seed": SEED,
        "pref_mc.prior_sd": PRIOR_SD,
        "pref_mc.uniform.n_for_ranking": float(at1["n_needed"]),
        "pref_mc.uniform.n_for_ranking_mc_lo": float(at1["n_mc_lo"]),
        "pref_mc.uniform.n_for_ranking_mc_hi": float(at1["n_mc_hi"]),
        "pref_mc.uniform.n_for_ranking_mc_se": float(at1["n_mc_se"]),
        "pref_mc.uniform.n_for_top": top["n"],
        "pref_mc.uniform.n_for_top_mc_lo": top["mc_lo"],
        "pref_mc.uniform.n_for_top_mc_hi": top["mc_hi"],
        "pref_mc.uniform.n_for_top_mc_se": top["mc_se"],
        # how well the probit line describes the top model's curve, and the same curve read by a straight line;
        # the deviance at 6 significant digits: the fit's optimiser moves its 12th digit with the OpenBLAS
        # kernel (tests/reliability), and the chapter prints it to one decimal
        "pref_mc.uniform.n_for_top_deviance": float(significant(top["deviance"], 6)),
        "pref_mc.uniform.n_for_top_df": top["df"],
        "pref_mc.uniform.n_for_top_linear": top["n_linear"],
        "pref_mc.ratio": RATIO,
    }
    for r in tbl.itertuples():
        values[f"pref_mc.needed_by_gap.x{r.factor:g}"] = float(r.n_needed) if r.closest_pair else None
    if w is not None:
        values["pref_mc.cluster_widen.replicates"] = WIDEN_REPLICATES
        for r in w.itertuples():
            values[f"pref_mc.cluster_widen.{r.model}"] = float(r.ratio)
            values[f"pref_mc.cluster_widen.{r.model}_mc_se"] = float(r.mc_se)
    return values, tbl


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

    from compendium.pipeline.cli import safe_output
    from compendium.pipeline.notebooks import timing_file
    from compendium.pipeline.progress import done_line
    from compendium.pipeline.results import write_exports, write_table, write_values

    from .. import data

    safe_output()  # a terminal without UTF-8 gets escapes, not a UnicodeEncodeError

    t0 = time.perf_counter()
    values, tbl = build(data.load_hitl_pair_counts(), data.load_hitl_pair_counts_by_category())
    write_table(STAGE, "needed_by_gap", tbl)
    write_values(STAGE, values)
    write_exports(STAGE, values)  # exports/humane.json: the uniform design's numbers the scale chapter reads
    seconds = time.perf_counter() - t0
    timing = timing_file(STAGE)  # for the Reproducibility page's stage times, as the notebook stages do
    timing.parent.mkdir(parents=True, exist_ok=True)
    timing.write_text(json.dumps({"stage": STAGE, "notebook": None, "seconds": round(seconds, 2)}) + "\n")
    print(
        f"{done_line(STAGE, seconds)}: {len(tbl)} gaps and the top model, {REPETITIONS:,} simulated studies a "
        f"checkpoint; {WIDEN_REPLICATES:,} replicates of each bootstrap"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

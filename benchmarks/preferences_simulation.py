"""How the cost of the preferences stage's active-sampling simulation grows with its budget, its
repetitions and the information-gain batch size.

    .venv/bin/python benchmarks/preferences_simulation.py            # full grid (~1 min on 2 cores)
    .venv/bin/python benchmarks/preferences_simulation.py --quick    # small grid

The true strengths are the study's published-procedure Bradley-Terry fit (computed from the data).
Each strategy is timed on its own (best of ``--repeat`` runs); the log-log slopes summarise the growth:
a slope of 1 means cost proportional to the parameter.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

import compendium.data as data
from compendium import preferences as pref


def _time(fn, repeat: int) -> float:
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small grid")
    ap.add_argument("--repeat", type=int, default=1, help="runs per cell (the best is kept)")
    args = ap.parse_args()
    bt = pref.bradley_terry_table(data.load_hitl_pair_counts())
    pi = bt.set_index("model").loc[list(pref.MODELS), "strength"].to_numpy()
    budgets = [5000, 10000, 20000] if args.quick else [10000, 20000, 40000]
    reps = [125, 250, 500] if args.quick else [250, 500, 1000]
    rows = []
    for b in budgets:
        for r in reps:
            for s in pref.STRATEGIES:
                sec = _time(
                    lambda: pref.simulate_active_sampling(
                        pi, budget=b, repetitions=r, checkpoint_every=500, seed=1, batch=10, strategies=(s,)
                    ),
                    args.repeat,
                )
                rows.append({"strategy": s, "budget": b, "repetitions": r, "batch": 10, "seconds": sec})
                print(f"{s:>17s}  budget={b:>6d}  repetitions={r:>5d}  batch=10  {sec:6.2f} s", flush=True)
    b, r = budgets[1], reps[1]
    for batch in (1, 5, 20, 50):
        sec = _time(
            lambda: pref.simulate_active_sampling(
                pi, budget=b, repetitions=r, checkpoint_every=500, seed=1, batch=batch, strategies=("information_gain",)
            ),
            args.repeat,
        )
        rows.append({"strategy": "information_gain", "budget": b, "repetitions": r, "batch": batch, "seconds": sec})
        print(
            f"{'information_gain':>17s}  budget={b:>6d}  repetitions={r:>5d}  batch={batch:<3d} {sec:6.2f} s",
            flush=True,
        )
    df = pd.DataFrame(rows)
    grid = df[df.batch == 10]
    print("\nseconds (batch = 10):")
    print(grid.pivot_table(index=["budget", "repetitions"], columns="strategy", values="seconds").round(2).to_string())
    print("\nlog-log slope of cost (1 = proportional):")
    for s in pref.STRATEGIES:
        g = grid[grid.strategy == s]
        sb = np.polyfit(np.log(g.budget), np.log(g.seconds), 1)[0]
        sr = np.polyfit(np.log(g.repetitions), np.log(g.seconds), 1)[0]
        print(f"  {s:>17s}: vs budget {sb:4.2f}, vs repetitions {sr:4.2f}")
    ig = df[(df.strategy == "information_gain") & (df.budget == b) & (df.repetitions == r)].sort_values("batch")
    sl = np.polyfit(np.log(ig.batch), np.log(ig.seconds), 1)[0]
    print(f"  information_gain vs batch size (budget {b}, repetitions {r}): slope {sl:4.2f}")


if __name__ == "__main__":
    main()

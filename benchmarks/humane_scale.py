"""Speed of the HUMANE scale study: one information-gain step at 51 models, the cost of a simulated study per
design at 5, 20 and 51 models, throughput with 1 and 2 Dask workers, and a core-hour estimate of the full grid.

    nice -n 10 python benchmarks/humane_scale.py     # about 6-10 minutes on the shared 2-core machine

With ``COMPENDIUM_BENCH_SMOKE=1`` in the environment every workload is a small fraction of its size (budgets of a
few hundred judgements, 2 repetitions, 0.2 s through the sweep): a check that the command runs to its tables
(tests/commands/test_tool_commands.py), not a measurement.

Cost model. A repetition's CPU time is ``a + b T``: ``b`` per judgement simulated (pair choice, outcome, and
for the information-gain designs the belief update and the gain of every pair, per round of 20), ``a`` for
the 13 board fits at the checkpoints (MAP Bradley-Terry by 25 Newton steps, Laplace covariance, P(best)).
Both are measured in-process (``time.process_time``, one core, blocks of ``BLOCK`` repetitions as the sweep
runs them) at two budgets with the same 13 checkpoints, and solved for; a grid point with ``G > 1`` groups
fits ``G`` more boards per checkpoint (``a (1 + G)``). Throughput with 1 and 2 workers is measured through
the sweep itself (a ``LocalCluster``, ``sweep.run_sweep``) on a workload of about ``DASK_SECONDS`` per design.

The full grid: 5, 10, 20, 51 models x 2 spreads x 2 tie settings x 4 designs with one group, plus uniform
pairs with 5 and 22 groups (study ties, 2 spreads), 1,000 repetitions, budgets 40,960 / 81,920 / 163,840 /
327,680 judgements (doubling with the models: decisive judgements per pair fall from 4,100 to 260); 10
models interpolated log-linearly in the number of models between the measured 5 and 20.
"""

from __future__ import annotations

import os
import time

import numpy as np

from compendium.humane import sweep
from compendium.humane.grid import checkpoints
from compendium.humane.simulate import DESIGNS, Point, simulate_block, strengths
from compendium.stats import pairwise as pw

STUDY = np.array([1.21, 1.14, 1.05, 0.83, 0.77])
NU = 0.44  # about the study's Davidson nu
BLOCK = 50  # params.yaml's humane.block_size
#: the two budgets (judgements shown) each cost is measured at, and the repetitions measured
MEASURE = {5: ((10240, 40960), 50), 20: ((5120, 20480), 50), 51: ((1280, 5120), 20)}
FULL_BUDGET = {5: 40960, 10: 81920, 20: 163840, 51: 327680}
FULL_REPS = 1000
GROUPS = (5, 22)
DASK_SECONDS = 4.0
IG_REPEAT = 20  # information-gain steps timed
#: small workloads (the module docstring): a check that the command runs, not a measurement
SMOKE = os.environ.get("COMPENDIUM_BENCH_SMOKE") == "1"
if SMOKE:
    MEASURE = {5: ((240, 960), 2), 20: ((240, 960), 2), 51: ((120, 480), 2)}
    DASK_SECONDS, IG_REPEAT = 0.2, 2


def point(n: int, design: str, budget: int, G: int = 1) -> Point:
    th = tuple(float(x) for x in strengths(n, "wide", STUDY, 0.6))
    return Point(n, "wide", th, NU, G, 0.2 if G > 1 else 0.0, design, checkpoints(budget, 20))


def ig_step_51(R: int = 50, repeat: int = IG_REPEAT) -> float:
    """Seconds for one information-gain selection step over 1,275 pairs for R boards at once (Laplace belief
    by one warm-started Newton step, expected gain of every pair, argmax), vectorised over pairs and boards."""
    K = 51
    i, j = pw.pair_index(K)
    rng = np.random.default_rng(0)
    n = rng.integers(0, 5, size=(R, i.size, 3))
    W = pw.win_matrix_from_counts(i, j, n[..., 0], n[..., 1], n[..., 2], K)
    theta = np.zeros((R, K))
    t0 = time.perf_counter()
    for _ in range(repeat):
        th, cov = pw.bradley_terry_map(W, theta0=theta, n_iter=1)
        pick = pw.expected_information_gain(th, cov).argmax(1)
    assert pick.shape == (R,)
    return (time.perf_counter() - t0) / repeat


def cpu_per_rep(p: Point, reps: int) -> float:
    """CPU seconds per repetition of ``p``, in blocks of at most ``BLOCK``."""
    t0 = time.process_time()
    for first in range(0, reps, BLOCK):
        simulate_block(p, range(first, min(reps, first + BLOCK)), 1)
    return (time.process_time() - t0) / reps


def cost_model(n: int, design: str) -> tuple[float, float]:
    """``(a, b)``: CPU seconds per repetition for the 13 fits, and per judgement."""
    (t1, t2), reps = MEASURE[n]
    c1, c2 = (cpu_per_rep(point(n, design, t), reps) for t in (t1, t2))
    b = max(c2 - c1, 0.0) / (t2 - t1)
    return max(c1 - b * t1, 0.0), b


def throughput(n: int, design: str, workers: int, reps: int) -> float:
    """Repetitions per second (wall) of ``design`` at ``n`` models through the sweep on ``workers`` workers."""
    p = point(n, design, MEASURE[n][0][0])
    client = sweep.client_for(None, workers)
    try:
        sweep.run_sweep([p], workers, 1, 0, None, client=client)  # warm the workers' imports
        t0 = time.perf_counter()
        sweep.run_sweep([p], reps, max(1, min(BLOCK, reps // (4 * workers))), 1, None, client=client)
        return reps / (time.perf_counter() - t0)
    finally:
        cluster = client.cluster
        client.close()
        cluster.close()


def interpolate(costs: dict, n: int, design: str) -> tuple[float, float]:
    if (n, design) in costs:
        return costs[(n, design)]
    lo, hi = max(m for m, _ in costs if m < n), min(m for m, _ in costs if m > n)
    w = (np.log(n) - np.log(lo)) / (np.log(hi) - np.log(lo))
    return tuple(float(np.exp((1 - w) * np.log(max(x, 1e-12)) + w * np.log(max(y, 1e-12))))
                 for x, y in zip(costs[(lo, design)], costs[(hi, design)]))  # fmt: skip


def full_grid_core_seconds(costs: dict) -> dict:
    out = {}
    for n, budget in FULL_BUDGET.items():
        for d in DESIGNS:
            a, b = interpolate(costs, n, d)
            out[(n, d, 1)] = (a + b * budget) * FULL_REPS * 4  # 2 spreads x 2 tie settings
        a, b = interpolate(costs, n, "uniform")
        for G in GROUPS:
            out[(n, "uniform", G)] = (a * (1 + G) + b * budget) * FULL_REPS * 2  # 2 spreads, study ties
    return out


def main() -> None:
    os.environ.setdefault("COMPENDIUM_QUIET", "1")
    if SMOKE:
        print("COMPENDIUM_BENCH_SMOKE=1: small workloads, a check that the command runs, not a measurement")
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} cores)")
    s = ig_step_51()
    print(f"\none information-gain step, 51 models (1,275 pairs), 50 boards at once: {s * 1e3:.1f} ms "
          f"({s / 50 * 1e3:.2f} ms per board)")  # fmt: skip
    costs = {(n, d): cost_model(n, d) for n in MEASURE for d in DESIGNS}
    print("\nCPU per simulated study (one core, blocks of 50), the cost model a + b T:\n")
    print("| models | design | a: 13 fits (s) | b: per judgement (µs) | s per study at the book's 40,960 |")
    print("|---|---|---|---|---|")
    for (n, d), (a, b) in costs.items():
        print(f"| {n} | {d} | {a:.3f} | {b * 1e6:.2f} | {a + b * 40960:.3f} |")
    print("\nthroughput through the sweep (LocalCluster), repetitions per second (wall):\n")
    print("| models | design | judgements | reps/s, 1 worker | reps/s, 2 workers | speed-up |")
    print("|---|---|---|---|---|---|")
    for n in (5, 51):
        for d in DESIGNS:
            a, b = costs[(n, d)]
            budget = MEASURE[n][0][0]
            reps = max(8, int(DASK_SECONDS / (a + b * budget)))
            r1, r2 = throughput(n, d, 1, reps), throughput(n, d, 2, 2 * reps)
            print(f"| {n} | {d} | {budget:,} | {r1:.1f} | {r2:.1f} | {r2 / r1:.2f}x |", flush=True)
    full = full_grid_core_seconds(costs)
    total = sum(full.values()) / 3600
    print("\nfull grid, core-hours (1,000 repetitions per point):\n")
    print("| models | budget | uniform | ig_trueskill | ig_davidson | arena | uniform, 5+22 groups | all |")
    print("|---|---|---|---|---|---|---|---|")
    for n, budget in FULL_BUDGET.items():
        row = [full[(n, d, 1)] / 3600 for d in DESIGNS] + [sum(full[(n, "uniform", G)] for G in GROUPS) / 3600]
        print(f"| {n} | {budget:,} | " + " | ".join(f"{x:,.1f}" for x in row) + f" | {sum(row):,.1f} |")
    print(f"\nabout {total:,.0f} core-hours in all: {total / 2:,.0f} hours on this 2-core machine, "
          f"{total / 64:,.1f} hours on 64 cores")  # fmt: skip
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()

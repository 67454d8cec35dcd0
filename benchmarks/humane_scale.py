"""Speed of the HUMANE scale study: one information-gain step at 51 models, throughput per design, 1 vs 2
workers, and a core-hour estimate of the full grid.

    python benchmarks/humane_scale.py            # about 2-4 minutes on the 2-core machine

Throughput is measured on short studies (``BUDGET`` judgements) and scaled linearly in the budget (every
design's cost is proportional to the judgements simulated, plus one board fit per checkpoint). The full
grid: 4 sizes (5, 10, 20, 51 models) x 2 spreads x 2 tie settings x 4 designs, one group, 1,000
repetitions, budgets 40,960 / 81,920 / 163,840 / 327,680 judgements; 10 and 20 models interpolated
log-linearly in the number of models between the measured 5 and 51.
"""

from __future__ import annotations

import time

import numpy as np

from compendium.humane import sweep
from compendium.humane.grid import checkpoints
from compendium.humane.simulate import DESIGNS, Point, strengths
from compendium.stats import pairwise as pw

STUDY = np.array([1.21, 1.14, 1.05, 0.83, 0.77])
BUDGET = {5: 1280, 51: 640}
REPS = {5: 50, 51: 20}
FULL_BUDGET = {5: 40960, 10: 81920, 20: 163840, 51: 327680}
FULL_REPS = 1000


def point(n: int, design: str, budget: int) -> Point:
    th = tuple(float(x) for x in strengths(n, "wide", STUDY, 0.6))
    return Point(n, "wide", th, 0.44, 1, 0.0, design, checkpoints(budget, 20, 3))


def ig_step_51(R: int = 50, repeat: int = 20) -> float:
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


def throughput(n: int, design: str, workers: int) -> float:
    """Repetitions per second of one design at ``BUDGET[n]`` judgements, on a LocalCluster of ``workers``."""
    p = point(n, design, BUDGET[n])
    reps = REPS[n] * workers
    client = sweep.client_for(None, workers)
    try:
        sweep.run_sweep([p], workers, 1, 0, None, client=client)  # warm the workers' imports
        t0 = time.perf_counter()
        sweep.run_sweep([p], reps, max(1, reps // (2 * workers)), 1, None, client=client)
        return reps / (time.perf_counter() - t0)
    finally:
        cluster = client.cluster
        client.close()
        cluster.close()


def main() -> None:
    import os

    os.environ.setdefault("COMPENDIUM_QUIET", "1")
    s = ig_step_51()
    print(f"one information-gain step, 51 models (1,275 pairs), 50 boards at once: {s * 1e3:.1f} ms "
          f"({s / 50 * 1e3:.2f} ms per board)")  # fmt: skip
    rows, per_judgement = [], {}
    for n in (5, 51):
        for d in DESIGNS:
            r1 = throughput(n, d, 1)
            r2 = throughput(n, d, 2)
            per_judgement[(n, d)] = 1.0 / (r1 * BUDGET[n])  # core-seconds per repetition per judgement
            rows.append((n, d, BUDGET[n], r1, r2, r2 / r1))
    print("\n| models | design | judgements | reps/s, 1 worker | reps/s, 2 workers | speed-up |")
    print("|---|---|---|---|---|---|")
    for n, d, b, r1, r2, x in rows:
        print(f"| {n} | {d} | {b:,} | {r1:.2f} | {r2:.2f} | {x:.2f}x |")
    total = 0.0
    for n, budget in FULL_BUDGET.items():
        for d in DESIGNS:
            a, b = np.log(per_judgement[(5, d)]), np.log(per_judgement[(51, d)])
            w = (np.log(n) - np.log(5)) / (np.log(51) - np.log(5))
            total += np.exp(a + w * (b - a)) * budget * FULL_REPS * 4  # 2 spreads x 2 tie settings
    print(f"\nfull grid (4 sizes x 2 spreads x 2 tie settings x 4 designs, {FULL_REPS:,} repetitions, one group): "
          f"about {total / 3600:,.0f} core-hours, {total / 3600 / 2:,.0f} hours on this 2-core machine")  # fmt: skip


if __name__ == "__main__":
    main()

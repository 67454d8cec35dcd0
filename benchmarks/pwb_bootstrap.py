"""Benchmark (not a test): the 14 PWI bootstraps with the authors' exact random stream.

Full-size synthetic fixture (7 models x 2 conditions x 10 dimensions x 20 prompts x 5 runs, 1 % of runs
without a valid score), 10,000 draws per PWI. Times

- the slow reference loop written from METHODS.md (one ``rng.choice`` per draw and dimension),
- one ``Generator.integers`` call with per-element bounds in draw-major order (same stream, no faster),
- the fast exact path ``compendium.pwb.bootstrap.pwi_bootstrap_exact`` (bulk 32-bit words, vectorised
  multiply-shift, integer segment sums),

checks that all three give identical PWI draws, and prints the timings. Target: fast path <= 3 s.

    python benchmarks/pwb_bootstrap.py            # full size, all three
    python benchmarks/pwb_bootstrap.py --skip-reference
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

from compendium.data import load_pwb_config
from compendium.pwb import DIMENSIONS, bootstrap as B
from compendium.pwb.weights import scheme_weights

WEIGHTS = scheme_weights(load_pwb_config())  # v2.1, the paper's default (zeros kept)


def fixture(seed: int = 0, n_models: int = 7, n_prompts: int = 20, n_runs: int = 5, missing: float = 0.01):
    """{(model, condition): {dimension: run scores in file order}} of the paper's size."""
    rng = np.random.default_rng(seed)
    out = {}
    for m in range(n_models):
        for c, shift in (("baseline", 0.0), ("with_system_prompt", 0.8)):
            dims = {}
            for d in DIMENSIONS:
                level = rng.uniform(0, 2.2) + shift
                x = np.clip(np.round(level + rng.normal(0, 0.8, n_prompts * n_runs)), 0, 3)
                keep = rng.random(x.size) >= missing
                dims[d] = [float(v) for v in x[keep]]
            out[(f"model_{m}", c)] = dims
    return out


def integers_one_call(dimension_scores, weights, n_boot=10_000, seed=42):
    """The same stream from one Generator.integers call with per-element bounds (draw-major)."""
    dims = [d for d, s in dimension_scores.items() if len(s)]
    sizes = np.array([len(dimension_scores[d]) for d in dims])
    rng = np.random.default_rng(seed)
    live = sizes > 1
    pattern = np.repeat(sizes[live], sizes[live])
    idx = rng.integers(0, np.tile(pattern, n_boot)).reshape(n_boot, -1)
    means = np.empty((n_boot, len(dims)))
    col = 0
    for j, d in enumerate(dims):
        x = np.asarray(dimension_scores[d])
        if sizes[j] == 1:
            means[:, j] = x[0]
            continue
        means[:, j] = x[idx[:, col : col + sizes[j]]].sum(axis=1) / sizes[j]
        col += sizes[j]
    return B._pwi_of_draws(means, dims, weights)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n-boot", type=int, default=10_000)
    ap.add_argument("--skip-reference", action="store_true")
    ap.add_argument("--skip-integers", action="store_true")
    args = ap.parse_args(argv)
    fx = fixture()
    n_draws = args.n_boot * sum(len(s) for dims in fx.values() for s in dims.values())
    print(
        f"fixture: {len(fx)} PWIs, {sum(len(s) for dims in fx.values() for s in dims.values()):,} runs, "
        f"{n_draws / 1e6:.0f} M resampled values at {args.n_boot:,} draws"
    )
    t, c = time.perf_counter(), time.process_time()
    fast = {k: B.pwi_bootstrap_exact(v, WEIGHTS, n_boot=args.n_boot, seed=42) for k, v in fx.items()}
    t_fast, c_fast = time.perf_counter() - t, time.process_time() - c
    print(f"  fast exact path (pwi_bootstrap_exact)           {t_fast:7.2f} s wall, {c_fast:6.2f} s CPU")
    ok = True
    if not args.skip_integers:
        t, c = time.perf_counter(), time.process_time()
        one = {k: integers_one_call(v, WEIGHTS, n_boot=args.n_boot) for k, v in fx.items()}
        t_one, c_one = time.perf_counter() - t, time.process_time() - c
        same = all(np.array_equal(one[k], fast[k]["samples"]) for k in fx)
        ok &= same
        print(
            f"  one Generator.integers call, per-element bounds {t_one:7.2f} s wall, {c_one:6.2f} s CPU   identical draws: {same}"
        )
    if not args.skip_reference:
        t, c = time.perf_counter(), time.process_time()
        ref = {k: B.reference_pwi_bootstrap(v, WEIGHTS, n_boot=args.n_boot, seed=42) for k, v in fx.items()}
        t_ref, c_ref = time.perf_counter() - t, time.process_time() - c
        same = all(
            np.array_equal(ref[k]["samples"], fast[k]["samples"])
            and ref[k]["pwi_mean"] == fast[k]["pwi_mean"]
            and ref[k]["ci_lower"] == fast[k]["ci_lower"]
            and ref[k]["ci_upper"] == fast[k]["ci_upper"]
            for k in fx
        )
        ok &= same
        print(
            f"  reference loop (METHODS.md, rng.choice)         {t_ref:7.2f} s wall, {c_ref:6.2f} s CPU   identical results: {same}"
        )
        print(f"  speed-up over the reference: x{c_ref / c_fast:.1f} (CPU)")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average {load:.2f} on {os.cpu_count()} cores (wall times grow with other processes)")
    print(
        f"target <= 3 s for the fast path: {'met' if t_fast <= 3 else 'NOT met'} on wall time, "
        f"{'met' if c_fast <= 3 else 'NOT met'} on CPU time"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark of the PWB per-instance path (not a test): time and peak memory, step by step.

Runs :func:`compendium.pwb.instances.run_instance_pipeline`'s steps -- validation, panel rule, the 14
PWI bootstraps (10,000 draws each), d_pooled, the Table 3 bootstrap, paired tests, IRR on complete
triples, prompt-level correlations -- on synthetic instance tables of the paper's size
(7 models x 2 conditions x 200 prompts x 5 runs x 3 judges = 42,000 Layer-1 judge rows) and larger.
Scale k multiplies the prompts per dimension (20 k), so the table has 42,000 k rows and every
bootstrap resamples k times more runs. Target: <= 10 s at scale 1, growing about linearly.

    python benchmarks/pwb_instances.py                 # scales 1 and 10
    python benchmarks/pwb_instances.py --scales 1 2 5 10 --n-boot 10000

Peak memory is the tracemalloc peak (Python and numpy allocations) of each scale's run, and the
process's maximum resident set size at the end.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import tracemalloc

from compendium.data import load_pwb_config
from compendium.pwb import instances as I
from compendium.pwb.weights import scheme_weights

WEIGHTS = scheme_weights(load_pwb_config())  # v2.1, the paper's default (zeros kept), as benchmarks/pwb_bootstrap.py


def run(scale: int, n_boot: int, seed: int) -> dict:
    table = I.synthetic_instances(n_prompts=20 * scale, seed=seed, missing_rate=0.01)
    steps = {}
    tracemalloc.start()
    t_all = time.perf_counter()

    def step(name, fn):
        t = time.perf_counter()
        out = fn()
        steps[name] = time.perf_counter() - t
        return out

    inst = step("validate", lambda: I.validate_instances(table))
    panel = step("panel rule", lambda: I.panel_scores(inst, validate=False))
    runs = step("layer-1 runs", lambda: I.layer1_runs(panel))
    step(f"PWI bootstrap (14 x {n_boot:,})", lambda: I.pwi_bootstrap(runs, WEIGHTS, n_boot=n_boot, seed=42))
    step("d_pooled", lambda: I.d_pooled(runs))
    step("Table 3 bootstrap (2,000)", lambda: I.dimension_diagnostics(runs, n_boot=2000, seed=0))
    step("paired tests", lambda: I.paired_tests(runs))
    step("IRR (complete triples)", lambda: I.irr_complete_triples(inst, validate=False))
    step("prompt-level correlation", lambda: I.prompt_level_correlation(runs))
    total = time.perf_counter() - t_all
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {
        "scale": scale,
        "rows": len(table),
        "runs": len(runs),
        "steps": steps,
        "total": total,
        "peak_mb": peak / 2**20,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scales", type=int, nargs="+", default=[1, 10])
    ap.add_argument("--n-boot", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    results = []
    for k in args.scales:
        r = run(k, args.n_boot, args.seed)
        results.append(r)
        print(f"\nscale {k}: {r['rows']:,} judge rows, {r['runs']:,} Layer-1 runs")
        for name, sec in r["steps"].items():
            print(f"  {name:<34s} {sec:8.3f} s")
        print(f"  {'total':<34s} {r['total']:8.3f} s   peak traced memory {r['peak_mb']:8.1f} MB")
    base = results[0]
    for r in results[1:]:
        print(
            f"\nscale {r['scale']} / scale {base['scale']}: time x{r['total'] / base['total']:.1f}, "
            f"memory x{r['peak_mb'] / base['peak_mb']:.1f} (rows x{r['rows'] / base['rows']:.0f})"
        )
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"\nprocess max RSS {rss:.0f} MB; target at scale 1: <= 10 s -> "
        f"{'met' if base['scale'] == 1 and base['total'] <= 10 else 'see above'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

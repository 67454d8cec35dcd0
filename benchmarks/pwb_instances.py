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

    python benchmarks/pwb_instances.py --snapshot      # the full synthetic snapshot, against a reference loop

``--snapshot`` writes the full-size synthetic release (:mod:`compendium.data.synthetic_pwb`, 14 results
files) to a temporary folder and times, each in a fresh process with its peak resident memory: the
project's per-instance path (``load_hf_results`` + ``run_instance_pipeline``: PWI bootstraps, Table 3,
paired tests, IRR, correlations, Layer 2/3) and a plain re-implementation of the authors' analysis loop
written from METHODS.md (json per file, per-draw ``rng.choice`` per dimension for the 14 PWI bootstraps and
the Table 3 bootstrap, the IRR triples, the prompt-mean correlation, d_pooled and the Layer 2/3 means).
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
    step("Table 3 bootstrap (2,000)", lambda: I.table3_bootstrap(runs, n_boot=2000, seed=0))
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


def _reference_loop(results_dir: str) -> dict:
    """The authors' analysis loop as METHODS.md describes it (plain Python over the results JSON)."""
    import json
    from pathlib import Path

    import numpy as np

    dims = list(I.DIMENSIONS)
    latest = {}
    for f in sorted(Path(results_dir).glob("*.json")):
        d = json.loads(f.read_text())
        if all(k in d for k in ("layer1", "layer2", "layer3")):
            latest[(d["model_name"], d["variant"])] = d
    scores = {
        k: {
            dim: [float(r["score"]) for p in ps for r in p["runs"] if r.get("score", -1) >= 0]
            for dim, ps in d["layer1"].items()
        }
        for k, d in latest.items()
    }
    scores = {k: {dim: s for dim, s in v.items() if s} for k, v in scores.items()}
    out = {"pwi": {}}
    for k in sorted(scores):  # PWI bootstrap: a fresh default_rng(42) per file, each draw every dimension
        rng = np.random.default_rng(42)
        arrs = {dim: np.asarray(s) for dim, s in scores[k].items()}
        tot = sum(WEIGHTS.get(dim, 0.0) for dim in arrs)
        draws = []
        for _ in range(10_000):
            m = {dim: rng.choice(a, size=len(a), replace=True).mean() for dim, a in arrs.items()}
            draws.append(100 * sum(WEIGHTS.get(dim, 0.0) * x / 3 for dim, x in m.items()) / tot)
        out["pwi"][k] = (float(np.mean(draws)), *np.percentile(draws, [2.5, 97.5]))
    models = sorted({m for m, _ in scores})
    rng = np.random.default_rng(0)  # Table 3
    for dim in dims:
        b = [x for m in models for x in scores.get((m, "baseline"), {}).get(dim, [])]
        p = [x for m in models for x in scores.get((m, "with_system_prompt"), {}).get(dim, [])]
        if b and p:
            b, p = np.asarray(b), np.asarray(p)
            np.percentile(
                [rng.choice(p, p.size).mean() - rng.choice(b, b.size).mean() for _ in range(2000)], [2.5, 97.5]
            )
    for m in models:  # d_pooled
        b = np.concatenate([scores[(m, "baseline")][dim] for dim in scores[(m, "baseline")]])
        p = np.concatenate([scores[(m, "with_system_prompt")][dim] for dim in scores[(m, "with_system_prompt")]])
        sp = np.sqrt(((b.size - 1) * b.var(ddof=1) + (p.size - 1) * p.var(ddof=1)) / (b.size + p.size - 2))
        out.setdefault("d", {})[m] = (p.mean() - b.mean()) / sp
    triples = {dim: [] for dim in dims}  # IRR on complete triples
    for d in latest.values():
        for dim, ps in d["layer1"].items():
            for p in ps:
                for r in p["runs"]:
                    s = r.get("individual_scores") or []
                    if len(s) == 3 and all(0 <= x <= 3 for x in s):
                        triples[dim].append([int(x) for x in s])
    for dim in dims:
        arr = np.array(triples[dim])
        if len(arr):
            for i, j in ((0, 1), (0, 2), (1, 2)):
                o = np.zeros((4, 4))
                for x, y in zip(arr[:, i], arr[:, j], strict=True):
                    o[x, y] += 1
    lists = {dim: [] for dim in dims}  # prompt-level correlation, the paper's rule
    for k in sorted(latest, key=lambda k: (k[0], k[1] != "baseline")):
        for dim, ps in latest[k]["layer1"].items():
            for p in ps:
                v = [r["score"] for r in p["runs"] if r.get("score", -1) >= 0]
                if v:
                    lists[dim].append(float(np.mean(v)))
    n = min(len(v) for v in lists.values() if v)
    np.corrcoef(np.array([lists[dim][:n] for dim in dims if lists[dim]]))
    for d in latest.values():  # Layer 2 and 3 means
        np.mean([s["average_score"] for s in d["layer2"] if s.get("average_score") is not None])
        np.mean([s["score"] for s in d["layer3"] if s.get("score", -1) >= 0])
    return out


def _child(kind: str, results_dir: str) -> None:
    import json

    t = time.perf_counter()
    if kind == "project":
        table = I.load_hf_results(results_dir)
        I.run_instance_pipeline(table, WEIGHTS, n_boot=10_000, seed=42, diag_n_boot=2000, diag_seed=0)
    else:
        _reference_loop(results_dir)
    sec = time.perf_counter() - t
    ru = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"seconds": sec, "cpu": ru.ru_utime + ru.ru_stime, "max_rss_mib": ru.ru_maxrss / 1024}))


def snapshot_benchmark(repeats: int = 1) -> int:
    import json
    import subprocess
    import tempfile

    from compendium.data import synthetic_pwb

    with tempfile.TemporaryDirectory() as tmp:
        s = synthetic_pwb.write_snapshot(tmp, seed=0, size="full")
        print(f"full synthetic snapshot: {len(s['files'])} files, {s['judge_values']:,} judge values")
        rows = {}
        for kind in ("project", "reference"):
            runs = []
            for _ in range(repeats):
                p = subprocess.run(
                    [sys.executable, __file__, "--child", kind, f"{tmp}/results"],
                    capture_output=True,
                    text=True,
                    check=True,
                )
                runs.append(json.loads(p.stdout.strip().splitlines()[-1]))
            rows[kind] = (
                min(r["seconds"] for r in runs),
                max(r["max_rss_mib"] for r in runs),
                min(r["cpu"] for r in runs),
            )
    # CPU seconds (user + system, the whole child process with its imports) are steadier than wall time on
    # a shared machine
    print(f"\n{'path':<52s} {'wall s':>8s} {'CPU s':>8s} {'peak RSS MiB':>13s}")
    label = {
        "project": "project (load_hf_results + run_instance_pipeline)",
        "reference": "reference loop from METHODS.md (authors' method)",
    }
    for kind, (sec, mib, cpu) in rows.items():
        print(f"{label[kind]:<52s} {sec:8.2f} {cpu:8.2f} {mib:13.0f}")
    (ps, pm, pc), (rs, rm, rc) = rows["project"], rows["reference"]
    print(f"\nspeed-up x{rs / ps:.1f} wall, x{rc / pc:.1f} CPU (target >= 4); memory x{pm / rm:.1f} of the reference")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scales", type=int, nargs="+", default=[1, 10])
    ap.add_argument("--n-boot", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--snapshot", action="store_true", help="time the full synthetic snapshot against the reference loop"
    )
    ap.add_argument("--repeats", type=int, default=1, help="with --snapshot: runs per path (the fastest is shown)")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        _child(*args.child)
        return 0
    if args.snapshot:
        return snapshot_benchmark(args.repeats)
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

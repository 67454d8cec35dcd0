"""Time the pipeline: forced full `dvc repro`, no-op `dvc repro`, and the book build alone.

    python benchmarks/pipeline.py [--repeat 3]   (from the project root; `make benchmark`)

Prints, per step, the median wall time over the repeats, the CPU time of the command and its children
(less sensitive to other load on the machine), the peak memory (sum of the resident memory of the
command and all its child processes, sampled every 50 ms) and the 1-minute load average before the step.
Targets on a 2-core machine with nothing else running (issue 11): forced full repro <= 30 s, no-op
repro <= 2 s, book build <= 6 s, peak memory <= 2 GB. Later work must not break them.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def measure(cmd: list[str]) -> tuple[float, float, float, int]:
    cpu0 = _children_cpu()
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    parent = psutil.Process(proc.pid)
    peak = 0
    while proc.poll() is None:
        try:
            procs = [parent] + parent.children(recursive=True)
            rss = 0
            for p in procs:
                try:
                    rss += p.memory_info().rss
                except psutil.Error:
                    pass
            peak = max(peak, rss)
        except psutil.Error:
            pass
        time.sleep(0.05)
    err = proc.stderr.read()
    if proc.returncode != 0:
        print(err[-2000:], file=sys.stderr)
    return time.perf_counter() - t0, _children_cpu() - cpu0, peak / 2**20, proc.returncode


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3, help="runs per step; the median is reported (default 3)")
    args = ap.parse_args(argv)
    dvc = str(BIN / "dvc")
    steps = [
        ("forced full dvc repro", [dvc, "repro", "-f"], 30),
        ("no-op dvc repro", [dvc, "repro"], 2),
        ("book build alone", [str(BIN / "python"), "-m", "compendium.book", "build"], 6),
    ]
    print(
        f"{'step':24s} {'median wall s':>13s} {'runs':>18s} {'CPU s':>7s} {'peak MB':>8s} {'load':>5s} {'target s':>8s}"
    )
    rc = 0
    for name, cmd, target in steps:
        walls, cpus, peaks, loads = [], [], [], []
        for _ in range(args.repeat):
            loads.append(os.getloadavg()[0])
            wall, cpu, peak, code = measure(cmd)
            walls.append(wall)
            cpus.append(cpu)
            peaks.append(peak)
            rc |= code
        med = statistics.median(walls)
        flag = "" if rc == 0 else "  FAILED"
        flag += "" if med <= target else "  over target"
        runs = "/".join(f"{w:.1f}" for w in walls)
        print(
            f"{name:24s} {med:13.1f} {runs:>18s} {statistics.median(cpus):7.1f} {max(peaks):8.0f} "
            f"{statistics.median(loads):5.1f} {target:8d}{flag}",
            flush=True,
        )
    return rc


if __name__ == "__main__":
    sys.exit(main())

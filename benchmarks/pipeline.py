"""Time the pipeline: forced full `dvc repro`, no-op `dvc repro`, and the book build alone.

    python benchmarks/pipeline.py            (from the project root, with .venv/bin on PATH; `make benchmark`)

Prints wall time and peak memory (sum of the resident memory of the command and all its child
processes, sampled every 50 ms). Targets on a 2-core machine for the whole compendium: forced repro
<= 60 s, no-op repro <= 2 s, book build <= 30 s, peak memory <= 2 GB.
"""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def measure(cmd: list[str]) -> tuple[float, float, int]:
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
    return time.perf_counter() - t0, peak / 2**20, proc.returncode


def main() -> int:
    dvc = str(BIN / "dvc")
    steps = [
        ("forced full dvc repro", [dvc, "repro", "-f"], 60),
        ("no-op dvc repro", [dvc, "repro"], 2),
        ("book build alone", [str(BIN / "python"), "-m", "compendium.book", "build"], 30),
    ]
    print(f"{'step':28s} {'wall s':>8s} {'peak MB':>9s} {'target s':>9s}")
    rc = 0
    for name, cmd, target in steps:
        wall, peak, code = measure(cmd)
        flag = "" if code == 0 else f"  FAILED (exit {code})"
        print(f"{name:28s} {wall:8.1f} {peak:9.0f} {target:9d}{flag}", flush=True)
        rc |= code
    return rc


if __name__ == "__main__":
    sys.exit(main())

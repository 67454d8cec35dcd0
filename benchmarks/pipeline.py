"""Time the pipeline: forced full `dvc repro`, no-op `dvc repro`, and the book build alone.

    python benchmarks/pipeline.py [--repeat 3]   (from the project root; `make benchmark`)

Prints, per step, the median wall time over the repeats, the CPU time of the command and its children
(less sensitive to other load on the machine), the peak memory (sum of the resident memory of the
command and all its child processes, sampled every 50 ms) and the 1-minute load average before the step.
Targets on a 2-core machine with nothing else running (issue 11): forced full repro <= 30 s, no-op
repro <= 2 s, book build <= 6 s, peak memory <= 2 GB. Later work must not break them.

    python benchmarks/pipeline.py --baseline REV [--baseline-env KEY=VALUE] [--repeat 3]

times forced full reproductions of an earlier revision (in a temporary git worktree, data pulled, run once
first) and of this checkout, alternately: the way to check "no slower than before" on a machine whose speed
drifts. Revision 2be8eba (before issues 11 and 12) needs OPENBLAS_CORETYPE=Haswell to converge on AVX-512.

    python benchmarks/pipeline.py --stages

runs each stage's command of dvc.yaml once, in pipeline order, and prints where a forced repro's time
goes: per stage its wall and CPU time, the part its notebook (or the book's Sphinx build) took, the
rest (interpreter, imports, kernel start-up, finalising), and then one forced `dvc repro -f` with the CPU
time of the dvc process itself (hashing outputs, rewriting dvc.lock after each stage).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple

import psutil

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


class Run(NamedTuple):
    wall: float  # seconds
    cpu: float  # CPU seconds of the command and all its children
    peak_mb: float  # peak of the summed resident memory of the command and its children
    own_cpu: float  # CPU seconds of the command's own process, without its children (e.g. DVC's share)
    code: int  # exit status


def measure(cmd: list[str], cwd: Path = ROOT, env: dict | None = None) -> Run:
    cpu0 = _children_cpu()
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    parent = psutil.Process(proc.pid)
    peak = 0
    own = 0.0
    while proc.poll() is None:
        try:
            t = parent.cpu_times()
            own = t.user + t.system
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
    return Run(time.perf_counter() - t0, _children_cpu() - cpu0, peak / 2**20, own, proc.returncode)


def against(rev: str, repeat: int, extra_env: list[str]) -> int:
    """Forced full reproductions of git revision ``rev`` (in a temporary worktree) and of this checkout,
    alternately, so that both see the same machine: this VM's speed drifts by up to 1.4x within an hour,
    which makes an absolute time from another session no baseline."""
    import tempfile

    dvc = str(BIN / "dvc")
    env_rev = dict(os.environ)
    for kv in extra_env:
        k, sep, v = kv.partition("=")
        if not sep:
            raise SystemExit(f"--baseline-env expects KEY=VALUE, got {kv!r}")
        env_rev[k] = v
    tmp = Path(tempfile.mkdtemp(prefix="baseline-"))
    wt = tmp / "checkout"
    subprocess.run(["git", "worktree", "add", "--detach", str(wt), rev], cwd=ROOT, check=True, capture_output=True)
    try:
        if (ROOT / ".venv").exists():
            (wt / ".venv").symlink_to(ROOT / ".venv")
        env_rev["PYTHONPATH"] = str(wt / "src")  # the revision's own package, not this checkout's
        print(f"baseline {rev}: restoring data and running it once ...", flush=True)
        for cmd in ([dvc, "pull", "data.dvc"], [dvc, "repro"]):
            r = subprocess.run(cmd, cwd=wt, env=env_rev, capture_output=True, text=True)
            if r.returncode:
                print(r.stdout[-1500:] + r.stderr[-1500:], file=sys.stderr)
                raise SystemExit(f"baseline {rev}: {' '.join(cmd[1:])} failed (exit {r.returncode})")
        walls: dict[str, list[float]] = {rev: [], "this checkout": []}
        cpus: dict[str, list[float]] = {rev: [], "this checkout": []}
        for _ in range(repeat):
            for label, cwd, env in ((rev, wt, env_rev), ("this checkout", ROOT, None)):
                wall, cpu, _peak, _own, code = measure([dvc, "repro", "-f"], cwd=cwd, env=env)
                if code:
                    raise SystemExit(f"forced repro of {label} failed (exit {code})")
                walls[label].append(wall)
                cpus[label].append(cpu)
                print(f"  {label:16s} forced full dvc repro {wall:6.1f} s (CPU {cpu:.1f} s)", flush=True)
        for label in walls:
            runs = "/".join(f"{w:.1f}" for w in walls[label])
            print(
                f"{label:16s} median {statistics.median(walls[label]):6.1f} s  runs {runs}  "
                f"CPU {statistics.median(cpus[label]):.1f} s"
            )
        return 0
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(wt)], cwd=ROOT, capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)


def stage_breakdown() -> int:
    """Each stage's command alone (pipeline order), then a forced repro: where the time goes."""
    import re

    from compendium.yamlfile import load

    stages = load(ROOT / "dvc.yaml")["stages"]
    done = re.compile(r"(?:\[\w+\] done|book built) in ([0-9.]+) s")
    print(f"{'stage':16s} {'wall s':>7s} {'CPU s':>6s} {'notebook s':>10s} {'rest s':>7s}")
    tot_wall = tot_cpu = tot_nb = 0.0
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    for name, st in stages.items():
        cpu0 = _children_cpu()
        t0 = time.perf_counter()
        r = subprocess.run(st["cmd"], shell=True, cwd=ROOT, env=env, capture_output=True, text=True)
        wall, cpu = time.perf_counter() - t0, _children_cpu() - cpu0
        if r.returncode:
            print(r.stderr[-2000:], file=sys.stderr)
            raise SystemExit(f"stage {name} failed (exit {r.returncode})")
        found = [float(x) for x in done.findall(r.stdout + r.stderr)]
        nb = found[-1] if found else 0.0
        tot_wall, tot_cpu, tot_nb = tot_wall + wall, tot_cpu + cpu, tot_nb + nb
        print(f"{name:16s} {wall:7.1f} {cpu:6.1f} {nb:10.1f} {wall - nb:7.1f}", flush=True)
    print(f"{'sum':16s} {tot_wall:7.1f} {tot_cpu:6.1f} {tot_nb:10.1f} {tot_wall - tot_nb:7.1f}")
    r = measure([str(BIN / "dvc"), "repro", "-f"])  # own_cpu: the dvc process itself, not its stages
    if r.code:
        raise SystemExit(f"forced dvc repro failed (exit {r.code})")
    print(f"{'dvc repro -f':16s} {r.wall:7.1f}        DVC's own CPU (its process, not the stages): {r.own_cpu:.1f} s")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3, help="runs per step; the median is reported (default 3)")
    ap.add_argument(
        "--baseline",
        metavar="REV",
        help="instead: forced full repro of git revision REV and of this checkout, alternately (same machine state)",
    )
    ap.add_argument(
        "--baseline-env",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help="environment of the baseline's runs (repeatable), e.g. OPENBLAS_CORETYPE=Haswell for 2be8eba",
    )
    ap.add_argument(
        "--stages",
        action="store_true",
        help="instead: each stage's command alone, then a forced repro: where the time goes",
    )
    args = ap.parse_args(argv)
    if args.stages:
        return stage_breakdown()
    if args.baseline:
        return against(args.baseline, args.repeat, args.baseline_env)
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
            wall, cpu, peak, _own, code = measure(cmd)
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

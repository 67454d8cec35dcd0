"""The floors under issue 19's speed targets: what the tools the pipeline is built on take on their own.

    python benchmarks/floors.py [--repeat 5]   (from the project root, after `dvc repro`)

`benchmarks/pipeline.py --baseline` times the pipeline's steps; this script times what no change to the
project's own code can remove, each as the median of ``--repeat`` runs of a whole process:

- **DVC, no-op**: `dvc repro` on a scratch DVC project (in a temporary folder) with as many stages as
  ``dvc.yaml``, each with as many file deps as its stage there and one output, nothing to run. This is DVC's
  own cost of reading the graph and checking every dep, which the project's no-op `dvc repro` is made of.
- **DVC, an experiment running 4 stages**: `dvc exp run -S k=N` on the same scratch project, where 4
  stages in a chain (the exercise loop's params, workbank, claims and book) depend on the
  parameter and run a command that only writes its output. This is DVC's share of the exercise loop,
  on files of a few bytes.
- **DVC, the exercise on a copy of this project**: `dvc exp run -S workbank.cutoff=3.5` in a git worktree of
  HEAD with this checkout's DVC cache and outputs, where the loop's four stages only copy into place the
  outputs a real run of the same exercise wrote (so each stage sees its inputs change, as in the loop), and
  nothing is computed: DVC's share with this project's ``dvc.lock``, dependencies and outputs (hashing and
  caching them, rewriting the lock, recording the experiment), and the copying. The floor below uses it (so it
  counts writing the book's 25 MB of HTML twice, here and in the book's floor: about 0.1 s).
- **a notebook stage's start-up**: a one-cell notebook (``x = 1``) executed by papermill in a fresh
  interpreter with the project's kernel: the start-up every notebook stage pays before its first cell.
- **the book with nothing changed**: `python -m compendium.book build` when no source changed (incremental:
  no page is read again, every page is written, the ``-n -W`` checks run). The one-chapter rebuild is this
  plus reading one page.

It prints the floors, and from them a lower bound for each target that a design keeping DVC, papermill
and Sphinx (and the loop's 2 notebook stages, workbank and claims, and the book) cannot go
under. ``--repeat 3`` takes about 3 minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml
from pipeline import (  # benchmarks/pipeline.py: the same timing, loop and restore
    EXERCISE,
    Checkout,
    _restore,
    _snapshot,
    exercise_loop,
    measure,
    measure_stages,
)

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
#: the stages the exercise loop (dvc exp run -S workbank.cutoff=3.5) runs, in order
LOOP = ("params", "workbank", "claims", "book")


def wall(cmds: list[list[str]], cwd: Path) -> float:
    """Median wall seconds of the commands ``cmds[1:]``, one run each, after ``cmds[0]`` (a warm-up, not
    counted); stops on the first failure."""
    times = []
    for k, cmd in enumerate(cmds):
        run = measure(cmd, cwd=cwd)
        if run.code != 0:
            sys.exit(f"floors: {' '.join(cmd)} failed in {cwd} (its error output is above)")
        if k:
            times.append(run.wall)
    return statistics.median(times)


def scratch_project(folder: Path) -> int:
    """A git + DVC project in ``folder`` shaped like this one's ``dvc.yaml``; returns its number of stages."""
    project = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b",
           "GIT_COMMITTER_EMAIL": "b@b"}  # fmt: skip
    run = lambda *c: subprocess.run(c, cwd=folder, env=env, check=True, capture_output=True)  # noqa: E731
    run("git", "init", "-q")
    run(str(BIN / "dvc"), "init", "-q")
    (folder / "params.yaml").write_text("k: 0\n")
    (folder / "src").mkdir()
    stages = {}
    prev = None
    for name, st in project.items():
        deps = []
        for j in range(len(st.get("deps", []))):
            f = folder / "src" / f"{name}_{j}.txt"
            f.write_text(f"{name} {j}\n")
            deps.append(f"src/{f.name}")
        stage = {"cmd": f"echo {name} > out_{name}.txt", "deps": deps, "outs": [f"out_{name}.txt"]}
        if name in LOOP:  # the loop's chain, in dvc.yaml's order: each reads the parameter and the one before it
            stage["params"] = ["k"]
            if prev is not None:
                stage["deps"].append(f"out_{prev}.txt")
                stage["cmd"] = f"cat out_{prev}.txt > out_{name}.txt && echo {name} >> out_{name}.txt"
            prev = name
        stages[name] = stage
    (folder / "dvc.yaml").write_text(yaml.safe_dump({"stages": stages}, sort_keys=False))
    run(str(BIN / "dvc"), "repro", "-q")
    run("git", "add", "-A")
    run("git", "commit", "-qm", "scratch")
    return len(stages)


def notebook_floor(folder: Path, repeat: int) -> float:
    nb = {"cells": [{"cell_type": "code", "metadata": {}, "source": "x = 1", "outputs": [], "execution_count": None}],
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}  # fmt: skip
    src = folder / "one.ipynb"
    src.write_text(json.dumps(nb))
    code = (
        f"import papermill; papermill.execute_notebook({str(src)!r}, {str(folder / 'out.ipynb')!r}, progress_bar=False)"
    )
    return wall([[str(BIN / "python"), "-c", code]] * (repeat + 1), folder)


def _outs(stage: dict) -> list[str]:
    return [next(iter(o)) if isinstance(o, dict) else o for key in ("outs", "metrics") for o in stage.get(key, [])]


def project_loop_floor(folder: Path, repeat: int) -> tuple[float, dict[str, float]]:
    """The exercise loop on a copy of this project whose loop stages compute nothing (the module docstring):
    median wall seconds of ``repeat`` runs, and the median per stage (from DVC's "Running stage" lines)."""
    dvc = str(BIN / "dvc")
    wt, capture = folder / "checkout", folder / "capture"
    capture_exp = f"floors-capture-{os.getpid()}"  # its own name: a left-over one would make DVC refuse the next

    def run(*c):
        r = subprocess.run(c, cwd=wt, capture_output=True, text=True)
        if r.returncode:
            sys.exit(f"floors: {' '.join(c)} failed in the copy of this project:\n{(r.stdout + r.stderr)[-1500:]}")

    if not (ROOT / ".dvc" / "cache").is_dir():
        sys.exit("floors: this checkout has no DVC cache yet: run `dvc repro` (or make reproduce) first")
    subprocess.run(["git", "worktree", "add", "--detach", str(wt), "HEAD"], cwd=ROOT, check=True, capture_output=True)
    try:
        if (ROOT / ".venv").exists():
            (wt / ".venv").symlink_to(ROOT / ".venv")
        shutil.copytree(ROOT / ".dvc" / "cache", wt / ".dvc" / "cache")  # then the outputs HEAD's dvc.lock records
        run(dvc, "checkout", "-q")
        co = Checkout("copy", wt, dict(os.environ, PYTHONPATH=str(wt / "src")))
        # a real run of the exercise: its outputs are what the floor's stages put in place; then the state before it
        # back (the experiment removed; params.yaml, dvc.lock, metrics and the outputs as exercise_loop restores them)
        snap = _snapshot(wt)
        real, split = measure_stages([dvc, "exp", "run", "-S", EXERCISE, "-n", capture_exp], wt, co.env)
        if real.code:
            sys.exit("floors: the exercise failed on the copy of this project (its output is above)")
        missing = [s for s in LOOP if s not in split]
        if missing:
            sys.exit(f"floors: the exercise ran {sorted(split)}, not the loop's {', '.join(missing)}")
        stages = yaml.safe_load((wt / "dvc.yaml").read_text())["stages"]
        for name in LOOP:
            for out in _outs(stages[name]):
                dest = capture / out
                dest.parent.mkdir(parents=True, exist_ok=True)
                (shutil.copytree if (wt / out).is_dir() else shutil.copy2)(wt / out, dest)
        run(dvc, "exp", "remove", capture_exp)
        _restore(co, snap)
        text = (wt / "dvc.yaml").read_text()
        put = folder / "put.sh"
        put.write_text(
            "#!/bin/sh\n# the stage's outputs from the captured run, as new files with new times (as a stage writes them,\n"
            "# so that DVC hashes them again)\nset -e\n"
            f'for o in "$@"; do rm -rf "$o.floor"; cp -R "{capture}/$o" "$o.floor"; rm -rf "$o"; mv "$o.floor" "$o"; done\n'
        )
        put.chmod(0o755)
        for name in LOOP:
            cmd = stages[name]["cmd"]
            if text.count(f"cmd: {cmd}\n") != 1:
                sys.exit(f"floors: the command of stage {name} is not on one line of dvc.yaml")
            text = text.replace(f"cmd: {cmd}\n", f"cmd: {put} {' '.join(_outs(stages[name]))}\n")
        (wt / "dvc.yaml").write_text(text)
        run(dvc, "commit", "-q", "-f", *LOOP)  # the new commands recorded; the outputs are the committed ones
        runs = []
        for k in range(repeat):
            r, split = exercise_loop(co, k + 1)
            if r.code:
                sys.exit("floors: the loop with the copying stages failed (its error output is above)")
            runs.append((r.wall, split))
        per = {s: statistics.median(sp[s] for _, sp in runs) for s in runs[0][1]}
        return statistics.median(w for w, _ in runs), per
    finally:
        if wt.is_dir():  # the captured experiment, if an error came between its run and its removal
            subprocess.run([dvc, "exp", "remove", capture_exp], cwd=wt, capture_output=True)
        subprocess.run(["git", "worktree", "remove", "--force", str(wt)], cwd=ROOT, capture_output=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5, help="runs per floor; the median is reported (default 5)")
    args = ap.parse_args(argv)
    r = args.repeat
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory(prefix="floors-") as tmp:
        folder = Path(tmp)
        n = scratch_project(folder)
        noop = wall([[str(BIN / "dvc"), "repro"]] * (r + 1), folder)
        exp = wall([[str(BIN / "dvc"), "exp", "run", "-q", "-S", f"k={k + 1}"] for k in range(r + 1)], folder)
        nbf = notebook_floor(folder, r)
        proj, per = project_loop_floor(folder, r)
    book = wall([[str(BIN / "python"), "-m", "compendium.book", "build"]] * (r + 1), ROOT)
    print(f"DVC no-op dvc repro, {n} stages shaped like dvc.yaml, nothing to run   {noop:6.2f} s   (target 1 s)")
    print(f"DVC dvc exp run -S, the same project, 4 stages in a chain run            {exp:6.2f} s")
    print(f"DVC dvc exp run -S {EXERCISE} on a copy of this project, nothing computed {proj:6.2f} s")
    print("  per stage (to the next one): " + ", ".join(f"{s} {t:.2f}" for s, t in per.items()))
    print(f"a notebook stage's start-up: papermill, kernel, one cell                  {nbf:6.2f} s")
    print(f"the book with nothing changed (every page written, -n -W)                {book:6.2f} s   (target 5 s)")
    loop = proj + 2 * nbf + book
    print(f"exercise loop floor: DVC's share on this project + 2 notebook start-ups + the book {loop:6.2f} s")
    print("  (target 15 s), before the params check, any WORKBank work and the claims check's own work")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

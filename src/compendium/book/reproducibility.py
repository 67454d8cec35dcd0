"""What the Reproducibility page reports: commit, Python and package versions, stage run times, data checksums."""

from __future__ import annotations

import json
import platform
import subprocess
import sys
from importlib import metadata

import pandas as pd

from compendium.pipeline import paths, yamlfile

KEY_PACKAGES = (
    "jupyter-book",
    "myst-nb",
    "sphinx",
    "papermill",
    "dvc",
    "numpy",
    "pandas",
    "scipy",
    "statsmodels",
    "pingouin",
    "krippendorff",
    "choix",
    "trueskill",
    "matplotlib",
    "seaborn",
    "datasets",
    "huggingface-hub",
)


def git_state() -> dict[str, str]:
    """The commit the pipeline ran from, and whether the work tree had uncommitted changes."""

    def git(*args: str) -> str:
        try:
            return subprocess.run(
                ["git", *args], cwd=paths.ROOT, capture_output=True, text=True, check=True, timeout=10
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""

    commit = git("rev-parse", "HEAD") or "unknown (not a git checkout)"
    dirty = git("status", "--porcelain", "--untracked-files=no")
    return {"commit": commit, "dirty": "yes" if dirty else "no", "date": git("log", "-1", "--format=%cI")}


def package_versions(names=KEY_PACKAGES) -> pd.DataFrame:
    rows = []  # the interpreter's patch version is a fact of the machine: see provenance.js
    for n in names:
        try:
            rows.append({"package": n, "version": metadata.version(n)})
        except metadata.PackageNotFoundError:
            rows.append({"package": n, "version": "not installed"})
    return pd.DataFrame(rows)


def pinned_requirements() -> int:
    """Number of exact pins in requirements.txt."""
    lines = (paths.ROOT / "requirements.txt").read_text().splitlines()
    return sum(1 for ln in lines if "==" in ln and not ln.lstrip().startswith("#"))


def stage_times() -> pd.DataFrame:
    """Per-stage run times recorded by ``compendium.pipeline.notebooks finalize`` (last run of each stage)."""
    stages = list(yamlfile.load(paths.ROOT / "dvc.yaml")["stages"])  # aliases bounded
    rows = []
    for st in stages:
        f = paths.RESULTS / ".timings" / f"{st}.json"
        sec = json.loads(f.read_text()).get("seconds") if f.exists() else None
        rows.append({"stage": st, "seconds": sec})
    return pd.DataFrame(rows)


def data_checksums() -> pd.DataFrame:
    """The DVC hash of data/ (from data.dvc) and the per-file SHA-256 recorded in the manifest."""
    from compendium.data.load import manifest

    dvc = yamlfile.load(paths.ROOT / "data.dvc")["outs"][0]
    rows = [{"what": "data/ (DVC directory hash, data.dvc)", "checksum": dvc["md5"], "files": dvc.get("nfiles")}]
    for rel, rec in sorted(manifest().items()):
        rows.append({"what": f"data/{rel}", "checksum": "sha256:" + rec["sha256"], "files": 1})
    return pd.DataFrame(rows)


def environment() -> dict[str, str]:
    return {"python": sys.version.split()[0], "platform": platform.platform(), "machine": platform.machine()}

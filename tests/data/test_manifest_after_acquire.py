"""After every acquisition (from the loopback hub and with ``--from``, each dataset), ``python -m
compendium.data.manifest`` says what the loaders do (issue 32): it reported all four files of a successful
``acquire workbank`` "recorded ... but missing" and exited 1, though they were present and verified, and its
first recovery (re-acquire) wrote the same record again."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from compendium.data import synthetic_hitl, synthetic_pwb
from compendium.pipeline import paths

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hubmock import HubMock  # noqa: E402

HF = {"workbank": "SALT-NLP/WORKBank", "pwb": "angelo-leone/pro-worker-ai-benchmark", "hitl": synthetic_hitl.HF_ID}
WB = [
    "domain_worker_desires.csv",
    "domain_worker_metadata.csv",
    "expert_rated_technological_capability.csv",
    "task_statement_with_metadata.csv",
]

# the loaders the stages use, on the scratch root (COMPENDIUM_ROOT): "ok", or the first refusal
LOADERS = """
import sys
from compendium.pipeline import paths
from compendium.data.load import load_table
ds = sys.argv[1]
try:
    if ds == "workbank":
        for t in ("worker_desires", "worker_metadata", "expert_ratings", "task_metadata"):
            load_table(t)
    elif ds == "pwb":
        from compendium.pwb import instances
        instances.load_hf_results(paths.PWB / "results", complete=True)
    else:
        from compendium.preferences import rowlevel
        for f in sorted(paths.HITL.glob("annotations*")):
            rowlevel.read_annotations(f)
    print("ok")
except Exception as exc:
    print(f"refused: {exc}")
"""


@pytest.fixture(scope="module")
def releases(tmp_path_factory):
    """A folder laid out as each hub dataset."""
    base = tmp_path_factory.mktemp("releases")
    wb = base / "workbank"
    wb.mkdir()
    for f in WB:
        shutil.copyfile(paths.DATA / "workbank" / f, wb / f)
    synthetic_pwb.write_snapshot(base / "pwb", seed=5, size="small")
    synthetic_hitl.write_release(base / "hitl", seed=1, layout="parquet")
    return base


@pytest.fixture
def root(tmp_path):
    r = tmp_path / "root"
    shutil.copytree(paths.DATA, r / "data", ignore=shutil.ignore_patterns(".acquire-*", "results", "annotations*"))
    for ds in HF:
        (r / "acquired" / ds).mkdir(parents=True)
    return r


def _env(root: Path, hub_url: str) -> dict:
    env = {
        **os.environ,
        "HF_ENDPOINT": hub_url,
        "HF_HOME": str(root.parent / f"hf_{time.monotonic_ns()}"),
        "COMPENDIUM_ROOT": str(root),
        "PYTHONPATH": str(paths.ROOT / "src"),
    }
    env.pop("HF_HUB_OFFLINE", None)
    return env


def acquire(root: Path, dataset: str, source: Path | None, repo: Path) -> None:
    cmd = [sys.executable, "-m", "compendium.data.acquire", dataset]
    if source is not None:
        env = _env(root, "http://127.0.0.1:9")
        r = subprocess.run([*cmd, "--from", str(source)], env=env, capture_output=True, text=True, timeout=300)
    else:
        with HubMock({HF[dataset]: repo}) as hub:
            r = subprocess.run(cmd, env=_env(root, hub.url), capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr


def verdicts(root: Path, dataset: str) -> tuple[subprocess.CompletedProcess, str]:
    env = _env(root, "http://127.0.0.1:9")
    run = {"env": env, "capture_output": True, "text": True, "timeout": 300}
    m = subprocess.run([sys.executable, "-m", "compendium.data.manifest"], **run)
    loaders = subprocess.run([sys.executable, "-c", LOADERS, dataset], **run)
    return m, loaders.stdout.strip()


@pytest.mark.parametrize("how", ["hub", "from"])
@pytest.mark.parametrize("dataset", ["workbank", "pwb", "hitl"])
def test_the_manifest_command_agrees_with_the_loaders_after_an_acquisition(root, releases, dataset, how):
    repo = releases / dataset
    acquire(root, dataset, repo if how == "from" else None, repo)
    assert json.loads((root / "acquired" / dataset / "manifest.json").read_text())["files"]
    m, loaders = verdicts(root, dataset)
    assert loaders == "ok"
    assert m.returncode == 0, m.stdout[-2000:] + m.stderr
    assert "missing" not in m.stdout and m.stderr == ""


def test_a_workbank_refresh_is_named_as_an_acquisition_to_accept(root, releases, tmp_path):
    """New bytes from the hub: the loaders refuse them until they are accepted, and so does the manifest
    command, naming the acquisition and the accept step (not "missing", not "re-acquire")."""
    repo = tmp_path / "refreshed"
    shutil.copytree(releases / "workbank", repo)
    f = repo / "domain_worker_metadata.csv"
    f.write_bytes(f.read_bytes() + b"\n")  # other bytes, the same table
    acquire(root, "workbank", None, repo)
    m, loaders = verdicts(root, "workbank")
    assert loaders.startswith("refused: ") and "does not match the recorded" in loaders
    assert m.returncode == 1
    assert "MISMATCH workbank/domain_worker_metadata.csv" in m.stdout
    assert "(acquired: SALT-NLP/WORKBank@c0ffee000000, acquired/workbank/manifest.json)" in m.stdout
    assert "missing" not in m.stdout + m.stderr and "re-run `python -m compendium.data.acquire" not in m.stderr
    assert m.stderr == (
        "ERROR: 1 raw file(s) under data/ are a new acquisition not yet accepted (each as recorded in "
        "acquired/<dataset>/manifest.json); the loaders refuse them until you accept them: review them, then "
        "`python -m compendium.data.manifest --write && dvc add data` (or go back to the recorded data with "
        "`dvc pull --force data.dvc`).\n"
    )

"""The with-data suite's scratch clone (shared by test_with_data.py and test_reference_pwb.py).

``PWB_WITHDATA_CLONE=DIR`` reuses a folder that already holds a reproduced clone with the snapshot (for
re-running the assertions while developing); otherwise a fresh clone is made and deleted afterwards.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
# a command in the clone, with the clone's package first and no override of its folders (as the
# reliability suite runs its commands)
from scratch import make_clone, restore_outputs, run  # noqa: E402


@pytest.fixture(scope="session")
def clone(tmp_path_factory):
    """A fresh clone of HEAD with its data restored and the pipeline reproduced (the released data only),
    then the full synthetic snapshot accepted with `python -m compendium.data.acquire pwb --from DIR` (which puts
    it under data/pwb/results and records it in acquired/pwb/manifest.json), and `dvc repro`; deleted afterwards."""
    reuse = os.environ.get("PWB_WITHDATA_CLONE")
    if reuse:
        yield {"dir": Path(reuse), "generator": "", "stale_detected": None, "timings": {}, "run": run}
        return
    t_start = time.perf_counter()
    d = tmp_path_factory.mktemp("withdata") / "repo"
    make_clone(d, ROOT)
    p = run(d, "dvc", "pull", "data.dvc")
    assert p.returncode == 0, p.stderr
    restore_outputs(d, ROOT)  # the released-data outputs HEAD records, where the working copy computed them
    timings = {}
    t0 = time.perf_counter()
    p = run(d, "dvc", "repro", timeout=3000)
    timings["dvc repro without the per-instance data"] = time.perf_counter() - t0
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    t0 = time.perf_counter()
    snap = d.parent / "snapshot"
    g = run(d, sys.executable, "-m", "compendium.data.synthetic_pwb", str(snap), "--seed", "0", "--size", "full")
    assert g.returncode == 0, g.stderr
    timings["generate the full snapshot"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    # the documented accept step for a snapshot downloaded elsewhere: the same checks as a hub download, and
    # the local manifest (acquired/pwb/manifest.json) that the pwb stage depends on
    a = run(d, sys.executable, "-m", "compendium.data.acquire", "pwb", "--from", str(snap))
    assert a.returncode == 0, a.stdout[-3000:] + a.stderr[-3000:]
    timings["acquire pwb --from the snapshot"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    st = run(d, "dvc", "status", "pwb")
    stale = "changed" in st.stdout
    p = run(d, "dvc", "repro", timeout=3000)  # what the per-instance values reach: claims, the book
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    timings["pwb stage with the data + what it reaches"] = time.perf_counter() - t0
    yield {"dir": d, "generator": g.stdout, "stale_detected": stale, "timings": timings, "run": run}
    shutil.rmtree(d.parent, ignore_errors=True)
    total = time.perf_counter() - t_start
    print("\nwith-data step: " + ", ".join(f"{k} {v:.0f} s" for k, v in timings.items()) + f"; total {total:.0f} s")

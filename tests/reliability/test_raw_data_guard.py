"""A changed raw file is never silent and never recorded by accident (issue 22 item 5, issue 20 item 7).

On a scratch clone with the data pulled (no pipeline run needed: every case stops before a stage computes):
the documented message from `make data` (the first step of `make reproduce`), from the first stage `dvc repro`
runs and from `dvc exp run`; `dvc exp run` leaves `data.dvc` as committed (compared by hash with
`git show HEAD:data.dvc`, since git's stat cache can hide a rewrite); the corrupt-cache trap, where the
plain `dvc pull --force data.dvc` restores the corrupt bytes, and the printed recovery that does work.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from pathlib import Path

import pytest

from compendium.pipeline import paths

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from scratch import flip_byte, keep_shared_venv, make_clone, sh  # noqa: E402

pytestmark = pytest.mark.reliability

REL = "workbank/domain_worker_desires.csv"


def committed_data_dvc(clone: Path) -> str:
    return hashlib.sha256(sh(clone, "git show HEAD:data.dvc").stdout.encode()).hexdigest()


def data_dvc_hash(clone: Path) -> str:
    return hashlib.sha256((clone / "data.dvc").read_bytes()).hexdigest()


def printed_recovery(message: str) -> str:
    m = re.search(r"Restore the recorded data with `([^`]+)`", message)
    assert m, message
    return m.group(1)


@pytest.fixture
def clone(tmp_path) -> Path:
    d = tmp_path / "repo"
    make_clone(d, paths.ROOT)
    p = sh(d, "dvc pull data.dvc")
    assert p.returncode == 0, p.stderr
    assert sh(d, "python -m compendium.data.verify").returncode == 0
    return d


def test_make_data_gives_the_documented_message_not_dvcs_use_force(clone):
    keep_shared_venv()  # make data goes through make setup
    flip_byte(clone / "data" / REL)
    p = sh(clone, "make data")
    out = p.stdout + p.stderr
    assert p.returncode != 0
    assert f"data/{REL}" in out and "dvc pull --force data.dvc" in out, out[-2000:]
    assert "Use `--force`" not in out and "dvc-remote/" not in out, out[-2000:]
    assert printed_recovery(out) == "dvc pull --force data.dvc"
    assert sh(clone, printed_recovery(out)).returncode == 0
    assert sh(clone, "python -m compendium.data.verify").returncode == 0


def test_the_first_stage_dvc_repro_runs_names_the_file_and_touches_no_record(clone):
    flip_byte(clone / "data" / REL)
    p = sh(clone, "dvc repro params")
    out = p.stdout + p.stderr
    assert p.returncode != 0 and f"data/{REL}" in out and "dvc pull --force data.dvc" in out, out[-2000:]
    assert data_dvc_hash(clone) == committed_data_dvc(clone)
    status = sh(clone, "dvc status").stdout
    assert "data.dvc" in status and "modified" in status, status  # what the README explains
    assert f"data/{REL}" in sh(clone, "python -m compendium.data.verify").stderr  # the command that names the file


def test_dvc_exp_run_never_records_modified_raw_data(clone):
    flip_byte(clone / "data" / REL)
    p = sh(clone, "dvc exp run -S workbank.cutoff=3.5")
    out = p.stdout + p.stderr
    assert p.returncode != 0, out[-2000:]
    assert f"data/{REL}" in out and "dvc pull --force data.dvc" in out, out[-2000:]
    assert data_dvc_hash(clone) == committed_data_dvc(clone), "dvc exp run left a re-recorded data.dvc"
    assert "data.dvc" in sh(clone, "dvc status").stdout  # still reported, not hidden
    r = sh(clone, printed_recovery(out))
    assert r.returncode == 0, r.stderr
    assert sh(clone, "python -m compendium.data.verify").returncode == 0
    assert data_dvc_hash(clone) == committed_data_dvc(clone)


def test_a_corrupt_cache_object_gets_a_recovery_that_works(clone):
    from compendium.pipeline import rawdata as verify

    f = clone / "data" / REL
    md5 = hashlib.md5(f.read_bytes()).hexdigest()
    obj = clone / ".dvc" / "cache" / "files" / "md5" / md5[:2] / md5[2:]
    assert obj.is_file()
    st = obj.stat()
    obj.chmod(0o644)
    flip_byte(obj)  # bit rot: the bytes change, the modification time does not (so DVC's state trusts the object)
    os.utime(obj, ns=(st.st_atime_ns, st.st_mtime_ns))
    flip_byte(f)
    # the trap: the plain recovery copies the corrupt cached bytes back and calls it up to date
    sh(clone, "dvc pull --force data.dvc")
    p = sh(clone, "python -m compendium.data.verify")
    assert p.returncode == 1
    cmd = printed_recovery(p.stderr)
    assert cmd == f"rm -f {obj.relative_to(clone)} data/{REL} && dvc pull --force data.dvc", p.stderr
    assert "DVC cache copy is corrupt" in p.stderr
    r = sh(clone, cmd)
    assert r.returncode == 0, r.stdout + r.stderr
    assert sh(clone, "python -m compendium.data.verify").returncode == 0
    assert hashlib.md5(obj.read_bytes()).hexdigest() == md5
    assert verify.corrupt_cache_objects([REL], clone) == []
    assert sh(clone, "dvc status -q data.dvc").returncode == 0

"""`make test-scratch` runs the scratch-clone suites two at a time: ``--dist loadfile`` with the with-data suite's
files kept on one worker (tests/conftest.py, ``pytest_xdist_make_scheduler``), so that its session fixture, a
scratch clone with a synthetic hub snapshot, is built once. Checked on a small tree run the same way."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

CONFTEST = Path(__file__).resolve().parent / "conftest.py"


def test_the_with_data_files_share_one_worker_and_other_files_spread(tmp_path):
    tests = tmp_path / "tests"
    (tests / "withdata").mkdir(parents=True)
    (tests / "other").mkdir()
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tests / "conftest.py").write_text(
        "import importlib.util\n"
        f"spec = importlib.util.spec_from_file_location('repo_conftest', {str(CONFTEST)!r})\n"
        "mod = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(mod)\n"
        "pytest_xdist_make_scheduler = mod.pytest_xdist_make_scheduler\n"
    )
    body = "import os, time\n" + "".join(
        f"def test_{k}():\n    time.sleep(0.2)\n    print('WORKER', os.environ['PYTEST_XDIST_WORKER'])\n"
        for k in range(3)
    )
    for folder, name in (("withdata", "a"), ("withdata", "b"), ("other", "c"), ("other", "d")):
        (tests / folder / f"test_{name}.py").write_text(body)
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-n",
            "2",
            "--dist",
            "loadfile",
            "--no-loadscope-reorder",
            "-v",
            "-p",
            "no:cacheprovider",
            "tests/withdata",
            "tests/other",
        ],  # fmt: skip
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    worker = {}
    for line in p.stdout.splitlines():
        if "PASSED" in line and line.startswith("[gw"):
            worker.setdefault(line.split("PASSED")[1].strip().split("::")[0], set()).add(line[1:4])
    assert len(worker) == 4, p.stdout
    assert len(worker["tests/withdata/test_a.py"] | worker["tests/withdata/test_b.py"]) == 1  # one worker
    assert worker["tests/withdata/test_a.py"] != worker["tests/other/test_c.py"]  # the other suite beside it

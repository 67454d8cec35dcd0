"""The stage runner's kernel under a long ``TMPDIR`` (issue 32): the kernel's IPC socket paths exceeded the
AF_UNIX limit ("File name too long") and the message sent the user to `make setup`."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from compendium.pipeline import paths, stage

START = """
from compendium.pipeline.stage import _Kernel
k = _Kernel([])
try:
    k.kc.execute("x = 6 * 7", silent=False)
    reply = k.kc.get_shell_msg(timeout=60)
    print(reply["content"]["status"], len(k._ipc_dir))
finally:
    k.shutdown()
"""


def test_the_kernel_starts_under_a_temporary_folder_too_long_for_socket_paths(tmp_path):
    long_tmp = tmp_path / ("t" * 90)
    long_tmp.mkdir()
    env = dict(os.environ, TMPDIR=str(long_tmp), PYTHONPATH=str(paths.ROOT / "src"))
    p = subprocess.run([sys.executable, "-c", START], env=env, capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, p.stderr[-2000:]
    status, n = p.stdout.split()
    assert status == "ok" and int(n) < 80


def test_when_no_folder_fits_the_sentence_names_tmpdir_and_the_fix(monkeypatch):
    monkeypatch.setattr(stage, "_SUN_PATH", 10)
    with pytest.raises(stage.StageError) as e:
        stage._ipc_dir()
    assert "(TMPDIR) is too long a path for the kernel's sockets" in str(e.value)
    assert "`TMPDIR=/tmp dvc repro`" in str(e.value) and "make setup" not in str(e.value)

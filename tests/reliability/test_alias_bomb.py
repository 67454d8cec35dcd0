"""An alias bomb in ``params.yaml`` (issue 32): ten lines of nested YAML aliases, 10^9 values when expanded, as
a pulled branch can bring. Plain ``dvc repro`` expands them with no output until the memory runs out; ``make
reproduce`` checks the file first (``python -m compendium.pipeline.stage preflight``, the first step of ``make
data``) and refuses it in one sentence naming the file and the line, before any DVC command runs.

On a scratch clone of HEAD, no data and no pipeline run needed; the make run is capped in memory and time, so
a regression fails the test instead of filling the machine."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from compendium.pipeline import paths

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from scratch import keep_shared_venv, make_clone, sh  # noqa: E402

pytestmark = pytest.mark.reliability

BOMB = 'lol: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "".join(
    f"{k}: &{k} [{', '.join([f'*{p}'] * 10)}]\n" for p, k in zip("abcdefgh", "bcdefghi")
)


def test_make_reproduce_refuses_an_alias_bomb_in_one_sentence_before_dvc_runs(tmp_path):
    keep_shared_venv()
    clone = make_clone(tmp_path / "repo", paths.ROOT)
    params = clone / "params.yaml"
    n = len(params.read_text().splitlines())
    params.write_text(params.read_text() + BOMB)
    t0 = time.monotonic()
    # GNU timeout signals the whole process group (make, and a DVC it started); ulimit caps the memory
    p = sh(clone, "ulimit -v 4000000; timeout -k 5 150 make -o .venv/.installed reproduce", timeout=200)
    took = time.monotonic() - t0
    out = p.stdout + p.stderr
    assert p.returncode not in (0, 124), out[-3000:]
    assert took < 60, f"{took:.0f} s"
    errors = [ln for ln in out.splitlines() if ln.startswith("ERROR")]
    assert len(errors) == 1 and "Traceback" not in out, out[-3000:]
    assert errors[0].startswith(f"ERROR: params.yaml: YAML aliases (the anchor at line {n + 8}, repeated by *aliases)")
    assert "(an alias bomb)" in errors[0] and "`git checkout -- params.yaml`" in errors[0]
    assert ">> restoring data/" not in out and not (clone / "data").exists()  # no DVC command ran
    # the printed recovery, verbatim
    assert sh(clone, "git checkout -- params.yaml").returncode == 0
    assert sh(clone, "python -m compendium.pipeline.stage preflight").returncode == 0

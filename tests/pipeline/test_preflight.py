"""``python -m compendium.pipeline.stage preflight``, which ``make data`` (so ``make reproduce`` and ``make test``)
runs before any DVC command: the files DVC reads are checked first, so a hostile or broken one gets one
sentence naming it and a recovery instead of DVC's silence or its "failed to parse 'vars'" (issue 32)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from compendium.pipeline import paths, reset

BOMB = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "".join(
    f"{k}: &{k} [{', '.join([f'*{p}'] * 10)}]\n" for p, k in zip("abcdefgh", "bcdefghi")
)
FILES = ("params.yaml", "dvc.yaml", "dvc.lock", "data.dvc")


@pytest.fixture
def root(tmp_path):
    r = tmp_path / "root"
    r.mkdir()
    for f in FILES:
        shutil.copyfile(paths.ROOT / f, r / f)
    return r


def preflight(root: Path) -> tuple[subprocess.CompletedProcess, float]:
    env = dict(os.environ, PYTHONPATH=str(paths.ROOT / "src"), COMPENDIUM_ROOT=str(root))
    t0 = time.monotonic()
    p = subprocess.run(
        [sys.executable, "-m", "compendium.pipeline.stage", "preflight"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return p, time.monotonic() - t0


@pytest.mark.parametrize("name", FILES)
def test_an_alias_bomb_is_refused_in_one_sentence_naming_the_file_quickly(root, name):
    """Was: preflight passed (the project's parser shares the aliases' nodes), then `dvc repro` expanded the
    10^9 values with no output until the memory ran out."""
    f = root / name
    n = len(f.read_text().splitlines())
    f.write_text(f.read_text() + BOMB)
    p, took = preflight(root)
    assert p.returncode == 1 and took < 30
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr
    assert lines[0].startswith(f"ERROR: {name}: YAML aliases (the anchor at line {n + 8}, repeated by *aliases)")
    assert "an alias bomb" in lines[0] and f"git checkout -- {name}" in lines[0]


def test_a_params_file_that_is_a_list_names_the_file_and_the_recovery(root):
    """Was: only DVC's "failed to parse 'vars' in 'dvc.yaml'", naming neither params.yaml nor a recovery."""
    p, _ = preflight(root)
    assert p.returncode == 0 and p.stderr == "", p.stderr  # the committed files pass
    (root / "params.yaml").write_text("- workbank\n- preferences\n")
    p, _ = preflight(root)
    assert p.returncode == 1
    assert p.stderr == (
        "ERROR: params.yaml is a YAML list, not a mapping of sections (workbank:, preferences:, ...). Restore the "
        "committed file with `git checkout -- params.yaml` (or `make reset`: the committed params.yaml, dvc.lock "
        "and outputs).\n"
    )


@pytest.mark.parametrize("name", ["dvc.yaml", "data.dvc"])
def test_make_reset_refuses_a_bomb_in_a_file_it_does_not_restore(root, name):
    """`make reset` restores params.yaml and dvc.lock from git, then runs `dvc checkout`, which reads dvc.yaml
    and data.dvc: a bomb there is refused first."""
    (root / name).write_text((root / name).read_text() + BOMB)
    with pytest.raises(
        reset.ResetError, match=rf"^{re.escape(str(root / name))}: YAML aliases .* `git checkout -- {name}`"
    ):
        reset.stage_names(root)
    (root / name).write_text("a: [1, 2\n")
    with pytest.raises(reset.ResetError, match=rf"`git checkout -- {name}`"):
        reset.stage_names(root)

"""A file name under data/ is data too (issue 32): `python -m compendium.data.manifest` and
`python -m compendium.data.verify` name a file a pulled release brought with its control characters visible,
never as terminal control sequences."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import unicodedata

import pytest

from compendium.pipeline import paths

NAME = "evil\x1b]0;owned\x07\x1b[2K\x9b1A.csv"


def raw_controls(text: str) -> list[str]:
    return [ch for ch in text if ch != "\n" and unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp")]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    r = tmp_path_factory.mktemp("names") / "root"
    shutil.copytree(paths.DATA, r / "data", ignore=shutil.ignore_patterns(".acquire-*", "results", "annotations*"))
    (r / "data" / "workbank" / NAME).write_text("a,b\n1,2\n")
    return r


@pytest.mark.parametrize("module", ["compendium.data.manifest", "compendium.data.verify"])
def test_a_hostile_file_name_is_shown_visibly(root, module):
    env = dict(os.environ, COMPENDIUM_ROOT=str(root), PYTHONPATH=str(paths.ROOT / "src"))
    p = subprocess.run([sys.executable, "-m", module], env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 1
    out = p.stdout + p.stderr
    assert raw_controls(out) == [], out[-1000:]
    assert "workbank/evil[U+001B]]0;owned[U+0007][U+001B][2K[U+009B]1A.csv" in out

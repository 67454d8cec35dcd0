"""The committed state, for tests that mean the paper's settings: a teaching exercise (``dvc exp run -S ...``)
changes the workspace's ``params.yaml`` and results, and `make test` must pass after one too (issue 38).

Imported by name (``from committed import committed_params_text``): ``tests/conftest.py`` puts ``tests/`` on
``sys.path``."""

from __future__ import annotations

import subprocess

from compendium.pipeline import paths


def committed_params_text() -> str:
    """``params.yaml`` as committed (``git show HEAD:params.yaml``); the file itself outside a git checkout."""
    p = subprocess.run(["git", "show", "HEAD:params.yaml"], cwd=paths.ROOT, capture_output=True, text=True)
    return p.stdout if p.returncode == 0 else paths.PARAMS.read_text()

"""The claims tests read the pipeline's own outputs, through the session fixture ``evaluation`` (tests/conftest.py),
which brings them up to date first with `dvc repro claims`."""

import os
import subprocess
from pathlib import Path

import pytest

from compendium.pipeline import paths


@pytest.fixture(scope="session")
def claims_table(evaluation):
    return evaluation.table.set_index("claim_id")


@pytest.fixture
def shared_candidates() -> list[Path]:
    return shared_published_candidates()


def shared_published_candidates() -> list[Path]:
    """Where the team's copy of the register lives: ``$COMPENDIUM_SHARED/published`` if set, else
    ``../shared/published`` beside the repository root; in a git worktree also beside the main checkout
    (the worktree's own parent is the worktrees folder); in a clone made from a local checkout (as the
    fresh-clone check does in a temporary folder) also beside the checkout it was cloned from."""
    env = os.environ.get("COMPENDIUM_SHARED")
    if env:
        return [Path(env) / "published"]
    out = [paths.ROOT.parent / "shared" / "published"]
    try:
        common = subprocess.run(
            ["git", "rev-parse", "--path-format=absolute", "--git-common-dir"],
            cwd=paths.ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        main_root = Path(common).parent
        if main_root.resolve() != paths.ROOT.resolve():
            out.append(main_root.parent / "shared" / "published")
    except (OSError, subprocess.CalledProcessError):
        pass
    try:
        origin = subprocess.run(
            ["git", "remote", "get-url", "origin"], cwd=paths.ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
        if origin and Path(origin).is_dir():
            out.append(Path(origin).resolve().parent / "shared" / "published")
    except (OSError, subprocess.CalledProcessError):
        pass
    return out

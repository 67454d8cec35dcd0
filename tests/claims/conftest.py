"""The claims tests read the pipeline's own outputs. The session fixture brings them up to date first with
`dvc repro claims` (a no-op taking about a second when nothing changed), so `make test` on a fresh clone
checks freshly computed numbers, never stale ones. Set COMPENDIUM_NO_REPRO=1 to check the results already
on disk (while developing one stage, without re-running the others)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from compendium import claims
from compendium.pipeline import paths


@pytest.fixture(scope="session")
def evaluation():
    if not os.environ.get("COMPENDIUM_NO_REPRO"):
        dvc = Path(sys.executable).with_name("dvc")
        proc = subprocess.run(
            [str(dvc), "repro", "claims"], check=False, cwd=paths.ROOT, capture_output=True, text=True
        )
        assert proc.returncode == 0, f"`dvc repro claims` failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return claims.evaluate(previous_csv=False)


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

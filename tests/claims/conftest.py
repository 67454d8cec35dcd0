"""The claims tests read the pipeline's own outputs. This fixture brings them up to date first with
`dvc repro claims` (a no-op taking about a second when nothing changed), so `make test` on a fresh clone
checks freshly computed numbers, never stale ones."""
import subprocess
import sys
from pathlib import Path

import pytest

from compendium import claims, paths


@pytest.fixture(scope="session")
def claims_table():
    dvc = Path(sys.executable).with_name("dvc")
    proc = subprocess.run([str(dvc), "repro", "claims"], cwd=paths.ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, f"`dvc repro claims` failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return claims.check(claims.load_published(), claims.load_values(), claims.load_notes()).set_index("claim_id")

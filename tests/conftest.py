import os
import shutil
import sys
from pathlib import Path

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")

from compendium.pipeline import paths  # noqa: E402

# the shared test helpers (counting, scratch, hubmock) import by name from tests/
sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture
def data_copy(tmp_path):
    """Copy selected raw files into a temporary data root: data_copy('workbank/x.csv', ...) -> root."""

    def make(*relpaths: str) -> Path:
        for rel in relpaths:
            dst = tmp_path / "data" / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(paths.DATA / rel, dst)
        return tmp_path / "data"

    return make

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")

from compendium.pipeline import paths  # noqa: E402

# the shared test helpers (counting, scratch, hubmock) import by name from tests/
sys.path.insert(0, str(Path(__file__).resolve().parent))


#: test folders whose files share a session fixture (one scratch clone): one xdist work unit, not one per file
SHARED_FOLDERS = ("tests/withdata/",)


def pytest_xdist_make_scheduler(config, log):
    """``--dist loadfile`` with the files of :data:`SHARED_FOLDERS` kept together on one worker, so that
    `make test-scratch` builds the with-data suite's clone once while the other suites run beside it. (xdist's
    own ``loadgroup`` does not group here: with pytest 9 the group suffix it writes into ``item._nodeid`` does
    not reach the node id the scheduler reads; checked on a three-test module, each test went to a worker.)"""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class SuiteScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            for folder in SHARED_FOLDERS:
                if nodeid.startswith(folder):
                    return folder
            return super()._split_scope(nodeid)

    return SuiteScheduling(config, log)


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


# The tests that read the pipeline's own outputs bring them up to date first with `dvc repro claims` (a no-op taking
# about a second when nothing changed), so `make test` on a fresh clone checks freshly computed numbers, never stale
# ones. Set COMPENDIUM_NO_REPRO=1 to check the results already on disk (while developing one stage).
def _repro(target: str) -> None:
    """``dvc repro <target>`` (a no-op taking about a second when nothing changed), one at a time: under
    pytest-xdist (make test) every worker may ask, and DVC refuses a second repro in the same checkout; the first
    brings the results up to date, the others then find nothing to do. Nothing with COMPENDIUM_NO_REPRO=1."""
    if os.environ.get("COMPENDIUM_NO_REPRO"):
        return
    import fcntl

    dvc = Path(sys.executable).with_name("dvc")
    lock = paths.RESULTS / ".locks" / "tests-repro.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        proc = subprocess.run([str(dvc), "repro", target], check=False, cwd=paths.ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, f"`dvc repro {target}` failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"


@pytest.fixture(scope="session")
def fresh_stage():
    """``fresh_stage(name)``: the stage's results brought up to date (:func:`_repro`) before a test reads them
    (``results/<name>``, its executed chapter), so that ``make test`` on a fresh clone, before ``make reproduce``,
    reads freshly computed results too; returns ``results/<name>``."""
    done: set[str] = set()

    def make(stage: str) -> Path:
        if stage not in done:
            _repro(stage)
            done.add(stage)
        return paths.stage_dir(stage)

    return make


@pytest.fixture(scope="session")
def evaluation():
    _repro("claims")
    from compendium import claims

    return claims.evaluate(previous_csv=False)

"""The tool commands the prose prints or names, each run as printed, in order, on one scratch clone of this file's own
(``make test-commands``, ``make test-scratch``):

- the timing commands (:data:`compendium.book.prose_commands.BENCHMARKS`: ``make benchmark``, which runs
  ``python benchmarks/pipeline.py``, the same with ``--stages`` and ``--baseline REV``, and
  ``python benchmarks/humane_scale.py``), with ``COMPENDIUM_BENCH_SMOKE=1``: one run per step and small workloads,
  so that the four take minutes, not an hour. Each must run to the end and print every table its docstring
  promises. The numbers are not checked: other suites share the machine, and speed is measured by hand (issue 35);
- the make targets that regenerate files (:data:`~compendium.book.prose_commands.MAINTENANCE`): ``make metadata``,
  ``make freeze`` and ``make book`` must regenerate exactly what is committed or recorded (.zenodo.json and
  codemeta.json; requirements.txt from the installed pins, byte for byte; a fresh book with the hash dvc.lock
  records), ``make format`` must run and change nothing on a clean checkout (``make lint`` checks the formatting
  itself), and ``make book-archive`` must write an archive its checksum file verifies.

After every command the checkout is as it was: ``git status`` and ``dvc status`` clean, no experiment or git worktree
left, and the shared venv not reinstalled. The commands share the clone, so a failure can make the ones after it
fail too: read the first.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from compendium.book import prose_commands as pc
from compendium.pipeline import paths
from compendium.pipeline.yamlfile import load

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import scratch  # noqa: E402

pytestmark = pytest.mark.commands

SMOKE = {"COMPENDIUM_BENCH_SMOKE": "1"}
_SMOKE_LINE = "COMPENDIUM_BENCH_SMOKE=1:"
#: what each command's output must hold (regular expressions, one per table or line its docstring promises)
_DEFAULT = (_SMOKE_LINE, r"forced full dvc repro\s+\d", r"no-op dvc repro\s+\d", r"book build alone\s+\d")
EXPECTED = {
    "make benchmark": _DEFAULT,  # python benchmarks/pipeline.py
    "python benchmarks/pipeline.py --stages": (_SMOKE_LINE, r"sum\s+\d", r"dvc repro -f\s+\d.*DVC's own CPU"),
    "python benchmarks/pipeline.py --baseline REV": (
        _SMOKE_LINE,
        r"HEAD\s+exercise loop\s+\d",  # the runs as they go, each side
        r"this checkout\s+exercise loop\s+\d",
        # the summary table: per step both medians and their ratio
        *(
            rf"\n{step}\s+\d+\.\d\s+\d+\.\d\s+\d+\.\d\d\s"
            for step in ("exercise loop", "book, one chapter changed", "no-op dvc repro", "forced dvc repro -f")
        ),
        r"where the exercise loop's time goes",
        r"\n  workbank\s+\d+\.\d\s+\d+\.\d",
        r"git status of this checkout: unchanged",
    ),
    "python benchmarks/humane_scale.py": (
        r"COMPENDIUM_BENCH_SMOKE=1: small workloads",
        r"one information-gain step, 51 models",
        r"CPU per simulated study[^|]*\n\n\| models \| design \| a: 13 fits",  # the cost model's table ...
        r"\| 51 \| arena \| \d+\.\d{3} \| \d+\.\d\d \| \d",  # ... to its last row
        r"\| 51 \| arena \| 120 \| \d",  # the throughput table's last row
        r"\| 51 \| 327,680 \| \d",  # the full grid's last row
        r"core-hours in all",
    ),
}


#: the shared venv's record of where its editable install of the package points: `make benchmark` must not reinstall
DIRECT_URL = next(
    scratch.VENV_BIN.parent.glob("lib/python*/site-packages/compendium-*.dist-info/direct_url.json"), None
)


def _sh(clone: Path, cmd: str, **extra: str):
    """``cmd`` through bash in ``clone``, the shared venv kept (:func:`scratch.keep_shared_venv`) before each command:
    ``make freeze`` rewrites requirements.txt, and the next make target through ``make setup`` would reinstall it."""
    scratch.keep_shared_venv()
    return scratch.sh(clone, cmd, timeout=2400, **extra)


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """A clone of HEAD with its data and HEAD's outputs (from the working copy's cache), up to date."""
    d = tmp_path_factory.mktemp("benchmarks") / "repo"
    scratch.make_clone(d, paths.ROOT)
    p = scratch.sh(d, "dvc pull -q data.dvc")
    assert p.returncode == 0, p.stdout + p.stderr
    scratch.restore_outputs(d, paths.ROOT)
    p = scratch.sh(d, "dvc repro -q", timeout=1800)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    return d


def test_the_suite_runs_every_timing_command_the_prose_prints():
    assert set(EXPECTED) == set(pc.BENCHMARKS)


@pytest.mark.parametrize("cmd", pc.BENCHMARKS)
def test_a_timing_command_runs_as_printed_and_leaves_the_checkout_as_it_was(clone, cmd):
    venv = DIRECT_URL.read_bytes() if DIRECT_URL else None
    p = _sh(clone, pc.substitute(cmd), **SMOKE)
    out = p.stdout + p.stderr
    print(f"\n$ {cmd}\n{out[-4000:]}", file=sys.stderr)
    assert p.returncode == 0, f"{cmd!r} failed (exit {p.returncode}):\n{out[-3000:]}"
    missing = [rx for rx in EXPECTED[cmd] if not re.search(rx, out)]
    assert missing == [], f"{cmd!r}: its output lacks {missing}:\n{out[-3000:]}"
    if cmd == "python benchmarks/pipeline.py --stages":  # a row for every stage of dvc.yaml
        stages = load(clone / "dvc.yaml")["stages"]
        assert [s for s in stages if not re.search(rf"\n{re.escape(s)}\s+\d+\.\d", out)] == []
    _as_it_was(clone, cmd, venv)


@pytest.mark.parametrize("cmd", pc.MAINTENANCE)
def test_a_maintenance_target_writes_what_is_committed(clone, cmd):
    venv = DIRECT_URL.read_bytes() if DIRECT_URL else None
    p = _sh(clone, cmd)
    out = p.stdout + p.stderr
    assert p.returncode == 0, f"{cmd!r} failed (exit {p.returncode}):\n{out[-3000:]}"
    if cmd == "make book-archive":  # the archive of the book in _build/html, and its checksum file
        assert (clone / "book-archive" / "book-html.tar.gz").stat().st_size > 100_000
        check = scratch.sh(clone / "book-archive", "sha256sum -c book-html.tar.gz.sha256")
        assert check.returncode == 0 and check.stdout.strip() == "book-html.tar.gz: OK", check.stdout + check.stderr
    if cmd == "make book":
        assert "(fresh: --fresh" in out and "offline check:" in out, out[-2000:]
    _as_it_was(clone, cmd, venv)


def _as_it_was(clone: Path, cmd: str, venv: bytes | None) -> None:
    git = scratch.sh(clone, "git status --porcelain")
    assert git.stdout == "", f"{cmd!r} changed the checkout:\n{git.stdout}"
    dvc = scratch.sh(clone, "dvc status -q")
    assert dvc.returncode == 0, f"{cmd!r} left dvc status unclean:\n{scratch.sh(clone, 'dvc status').stdout}"
    exps = scratch.sh(clone, "dvc exp list --name-only")  # names, under a "<baseline>:" line when there are any
    left = [ln for ln in exps.stdout.splitlines() if ln.strip() and not ln.rstrip().endswith(":")]
    assert exps.returncode == 0 and left == [], f"{cmd!r} left experiments: {exps.stdout}"
    assert "\n" not in scratch.sh(clone, "git worktree list").stdout.strip(), f"{cmd!r} left a git worktree"
    assert (DIRECT_URL.read_bytes() if DIRECT_URL else None) == venv, f"{cmd!r} reinstalled the shared venv"

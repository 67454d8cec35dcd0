"""Every ``python -m compendium.…`` that dvc.yaml and the Makefile run starts without runpy's RuntimeWarning.

``python -m pkg.mod`` imports ``pkg`` first; if that import already imported ``pkg.mod`` (a package's
``__init__`` importing the module a stage then runs), runpy warns "'pkg.mod' found in sys.modules after import of
package 'pkg', but prior to execution of 'pkg.mod'; this may result in unpredictable behaviour", and the module's
code runs twice, as two modules. Every full repro printed it for ``compendium.preferences.montecarlo`` (issue 33:
``compendium.preferences``' ``__init__`` imported ``.analysis``, which imports ``.montecarlo``); today the package
imports only its analyses, and this test keeps it so for every entry point.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from compendium.pipeline import paths

_MODULE = re.compile(r"-m (compendium(?:\.[A-Za-z_][A-Za-z0-9_]*)+)")


def entry_modules() -> list[str]:
    """The modules ``dvc.yaml``'s commands and the Makefile's recipes run with ``-m``."""
    text = (paths.ROOT / "dvc.yaml").read_text() + (paths.ROOT / "Makefile").read_text()
    return sorted(set(_MODULE.findall(text)))


def imported_before_running(module: str) -> bool:
    """Whether importing what runpy imports before it runs ``module`` (its package, or for a package the package
    itself before its ``__main__``) already imports the module it is about to run, in a fresh interpreter."""
    code = (
        "import importlib, importlib.util, sys\n"
        f"m = {module!r}\n"
        "spec = importlib.util.find_spec(m)\n"
        "run = m + '.__main__' if spec.submodule_search_locations is not None else m\n"
        "importlib.import_module(run.rpartition('.')[0])\n"
        "print(run in sys.modules)\n"
    )
    env = {"PYTHONPATH": str(paths.ROOT / "src"), "COMPENDIUM_QUIET": "1", "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.strip() == "True"


def test_the_entry_points_are_found():
    mods = entry_modules()
    assert {"compendium.preferences.montecarlo", "compendium.pipeline.stage", "compendium.workbank.models"} <= set(mods)
    assert "compendium.book" in mods  # a package run by its __main__


@pytest.fixture(scope="module")
def checked() -> dict[str, bool]:
    """:func:`imported_before_running` for every entry module, two fresh interpreters at a time."""
    from concurrent.futures import ThreadPoolExecutor

    mods = entry_modules()
    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(mods, pool.map(imported_before_running, mods)))


@pytest.mark.parametrize("module", entry_modules())
def test_no_entry_module_is_imported_by_its_own_package(module, checked):
    assert not checked[module], (
        f"importing {module.rpartition('.')[0]} imports {module} before `python -m {module}` runs it (runpy warns "
        "and runs it twice): let the package's __init__ import its analyses only, not the module the stage runs"
    )

"""Run one DVC stage: its MyST text notebook, executed by papermill, outputs swapped in only on success.

    python -m compendium.stage run workbank

Each stage of ``dvc.yaml`` is one chapter notebook, ``notebooks/<NN_name>.md`` (a MyST Markdown text
notebook, paired by jupytext), and one parameter section of ``params.yaml``. This runner

1. reads the stage's section of ``params.yaml`` (the stage's notebook gets it as papermill parameters);
2. starts the kernel first and has it import what the notebook imports while the runner itself starts
   (:class:`_Kernel`); converts the text notebook to a notebook in memory (jupytext) and executes it on
   that kernel with papermill, with the stage's artifacts written to ``results/.staging/<stage>/`` and
   the executed notebook to ``book/executed/.staging/`` (written once, at the end or at the failing cell);
3. strips what would change on every run (timestamps, interpreter version; :mod:`compendium.notebooks`);
4. only if every step succeeded, swaps the new artifacts in place of ``results/<stage>/`` and
   ``book/executed/<NN_name>.ipynb``.

A failure (an error in a cell, a killed run) therefore leaves the last good results and chapter in place,
and prints one line naming the stage and the error.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from . import paths
from .params import ParamsError

STAGING_ENV = "COMPENDIUM_STAGING"


@dataclass(frozen=True)
class Stage:
    name: str
    notebook: str  # stem under notebooks/ (NN_name)
    params: str | None  # section of params.yaml passed to the notebook, if any

    @property
    def source(self) -> Path:
        return paths.NOTEBOOKS / f"{self.notebook}.md"

    @property
    def executed(self) -> Path:
        return paths.BOOK / "executed" / f"{self.notebook}.ipynb"


STAGES: dict[str, Stage] = {
    s.name: s
    for s in (
        Stage("datasheet", "00_data", None),
        Stage("claims", "05_claims", None),
        Stage("pwb", "10_pwb", "pwb"),
        Stage("pwb_benchmark", "11_pwb_benchmark", None),
        Stage("workbank", "20_workbank", "workbank"),
        Stage("preferences", "30_preferences", "preferences"),
        Stage("humane", "35_humane_scale", "humane"),
        Stage("robustness", "40_robustness", "robustness"),
        Stage("reproducibility", "90_reproducibility", None),
    )
}


class StageError(RuntimeError):
    """A stage failed; the message is one sentence for the user."""


def _swap(new: Path, dest: Path) -> None:
    """Replace ``dest`` (file or folder) by ``new`` with renames, so that ``dest`` is never half-written."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    old = dest.with_name(f".{dest.name}.old")
    if old.is_dir():
        shutil.rmtree(old)
    elif old.exists():
        old.unlink()
    if dest.exists():
        dest.rename(old)
    new.rename(dest)
    if old.is_dir():
        shutil.rmtree(old)
    elif old.exists():
        old.unlink()


def _rel(p: Path) -> str:
    try:
        return str(p.relative_to(paths.ROOT))
    except ValueError:
        return str(p)


def _first_error_line(exc: BaseException) -> str:
    ename = getattr(exc, "ename", None)
    evalue = getattr(exc, "evalue", None)
    if ename:
        return f"{ename}: {evalue}".strip()
    return f"{type(exc).__name__}: {exc}".strip()


_CODE_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```", re.M | re.S)
_IMPORT = re.compile(r"^(?:from\s+([\w.]+)\s+import\s+([\w, ]+)|import\s+([\w.]+))", re.M)


def imported_modules(source: Path) -> list[str]:
    """The modules that the code cells of a MyST text notebook import at the start of a line, in order
    (``from a import b`` gives ``a`` and ``a.b``, which may be a module or a name).

    Only hints for the kernel's warm-up, so a line scan of the text is enough and runs before jupytext is
    imported; a miss costs time, never a result. The stage dependencies need the exact set of package
    modules and use :func:`compendium.deps.notebook_modules` (jupytext and ``ast``) instead."""
    found: list[str] = []
    for body in _CODE_CELL.findall(source.read_text(encoding="utf-8")):
        for frm, names, mod in _IMPORT.findall(body):
            cands = [mod] if mod else [frm] + [f"{frm}.{n.split()[0]}" for n in names.split(",") if n.strip()]
            found.extend(c for c in cands if c not in found)
    return found


class _Kernel:
    """The stage's kernel, started before the runner imports papermill and jupytext, and told at once to
    import the modules the notebook imports: those imports (1-2 s of pandas, scipy, matplotlib and the
    package) then run while the runner is still starting, instead of after it. The imports are done in
    a function, so no name is bound in the notebook's namespace; a module that fails to import here
    fails again, with its error, in the notebook's own cell. papermill executes the notebook on this
    kernel (``km=``); :meth:`shutdown` ends it whatever happened."""

    def __init__(self, modules: list[str]):
        from jupyter_client import BlockingKernelClient
        from jupyter_client.manager import AsyncKernelManager
        from jupyter_core.utils import run_sync

        self._run_sync = run_sync
        self.kc = None
        # local IPC sockets in a private temporary folder, not TCP ports: nothing listens on the network,
        # and the kernel no longer warns, once per stage, that its TCP traffic is unencrypted
        self._ipc_dir = tempfile.mkdtemp(prefix="compendium-kernel-")
        self.km = AsyncKernelManager(kernel_name="python3", transport="ipc", ip=os.path.join(self._ipc_dir, "k"))
        run_sync(self.km.start_kernel)(cwd=str(paths.NOTEBOOKS))
        try:
            # a blocking client of its own: its socket queues the request until the kernel listens, with
            # no event loop involved (papermill's client, made later, runs in the loop)
            self.kc = BlockingKernelClient()
            self.kc.load_connection_info(self.km.get_connection_info())
            self.kc.start_channels(shell=True, iopub=False, stdin=False, hb=False, control=False)
            self.kc.execute(self._warm_up_code(modules), silent=True, store_history=False)
        except BaseException:
            self.shutdown()
            raise

    @staticmethod
    def _warm_up_code(modules: list[str]) -> str:
        return (
            "def _compendium_warm_up(names):\n"
            "    import importlib\n"
            "    for n in names:\n"
            "        try:\n"
            "            importlib.import_module(n)\n"
            "        except Exception:\n"
            "            pass\n"
            f"_compendium_warm_up({modules!r})\n"
            "del _compendium_warm_up\n"
        )

    def shutdown(self) -> None:
        try:
            if self.kc is not None:
                self.kc.stop_channels()
        finally:
            try:
                if self._run_sync(self.km.is_alive)():
                    self._run_sync(self.km.shutdown_kernel)(now=True)
            finally:
                shutil.rmtree(self._ipc_dir, ignore_errors=True)


def run(name: str, quiet: bool = False, executed_dir: Path | None = None) -> float:
    """Execute stage ``name``; return its run time in seconds. Raises :class:`StageError` on failure."""
    if name not in STAGES:
        raise StageError(f"unknown stage {name!r}; the stages are {', '.join(STAGES)}")
    st = STAGES[name]
    staging_results = paths.RESULTS / ".staging" / name
    env_before = os.environ.get(STAGING_ENV)
    os.environ[STAGING_ENV] = f"{name}={staging_results}"  # before the kernel starts: it inherits it
    kernel = None
    try:
        from .params import load_section

        parameters = load_section(st.params) if st.params else {}
        if staging_results.exists():
            shutil.rmtree(staging_results)
        staging_results.mkdir(parents=True)
        kernel = _Kernel(imported_modules(st.source))
        executed = Path(executed_dir) / st.executed.name if executed_dir else st.executed
        staging_nb = executed.parent / ".staging" / executed.name
        seconds = _execute(st, parameters, staging_nb, kernel)
    finally:
        if kernel is not None:
            kernel.shutdown()
        if env_before is None:
            os.environ.pop(STAGING_ENV, None)
        else:
            os.environ[STAGING_ENV] = env_before
    from . import notebooks

    notebooks.finalize(staging_nb, name, seconds=seconds, staging=staging_results)
    if any(staging_results.iterdir()):
        _swap(staging_results, paths.stage_dir(name))
    else:
        staging_results.rmdir()  # a stage without artifacts (the Reproducibility page)
    _swap(staging_nb, executed)
    if paths.RESULTS == paths.ROOT / "results" and executed_dir is None:
        from . import metrics

        metrics.write(name)  # metrics/<stage>.json, the DVC metrics of the stage
    if not quiet:
        print(f"[{name}] done in {seconds:.1f} s", file=sys.stderr)
    return seconds


def _execute(st: Stage, parameters: dict, staging_nb: Path, kernel: _Kernel) -> float:
    """Execute the stage's notebook on ``kernel`` into ``staging_nb``; return the seconds it took."""
    import jupytext
    import papermill

    name = st.name
    staging_nb.parent.mkdir(parents=True, exist_ok=True)
    nb = jupytext.read(st.source)
    for k, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{k}"  # jupytext makes random ids; the executed notebook must be byte-stable
    t0 = time.perf_counter()
    try:
        papermill.execute_notebook(
            nb,
            str(staging_nb),
            parameters=parameters,
            cwd=str(paths.NOTEBOOKS),
            kernel_name="python3",
            progress_bar=False,
            log_output=False,
            # papermill's default writes the whole notebook (figures included) before and after every
            # cell: 130 writes and 3 s of a 13 s stage. It is written once at the end, and on an error
            # with the failing cell (papermill saves before raising), which is all the stage keeps.
            request_save_on_cell_execute=False,
            km=kernel.km,
        )
    except Exception as exc:  # noqa: BLE001 - every failure becomes one sentence
        raise StageError(
            f"stage {name!r} failed in {st.source.relative_to(paths.ROOT)}: {_first_error_line(exc).rstrip('.')}. "
            f"The last good results/{name}/ and chapter are unchanged; the failed notebook is "
            f"{_rel(staging_nb)}."
        ) from exc
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m compendium.stage", description="Run one DVC stage.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="execute a stage's notebook and swap its outputs in on success")
    r.add_argument("stage", choices=sorted(STAGES))
    r.add_argument(
        "--executed-dir",
        type=Path,
        default=None,
        help="write the executed notebook here instead of book/executed/ (tests)",
    )
    args = ap.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        run(args.stage, executed_dir=args.executed_dir)
    except (StageError, ParamsError) as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

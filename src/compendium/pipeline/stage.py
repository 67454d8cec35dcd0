"""Run one DVC stage: its MyST text notebook, executed by papermill, outputs swapped in only on success.

    python -m compendium.pipeline.stage run workbank

Each stage of ``dvc.yaml`` is one chapter notebook, ``notebooks/<NN_name>.md`` (a MyST Markdown text
notebook, paired by jupytext), and one parameter section of ``params.yaml``. This runner

1. reads the stage's section of ``params.yaml`` as the ``params`` stage validated and recorded it
   (``results/params/<section>.json``, :func:`compendium.pipeline.params.stage_section`; the notebook gets it as
   papermill parameters);
2. starts the kernel first and has it import what the notebook imports while the runner itself starts
   (:class:`_Kernel`); converts the text notebook to a notebook in memory (jupytext) and executes it on
   that kernel with papermill, with the stage's artifacts written to a staging folder of this run's own,
   ``results/.staging/<stage>.<random>/``, and the executed notebook to
   ``book/executed/.staging/<stage>.<random>/`` (written once, at the end or at the failing cell);
3. strips what would change on every run (timestamps, interpreter version; :mod:`compendium.pipeline.notebooks`);
4. only if every step succeeded, swaps the new artifacts in place of ``results/<stage>/`` and
   ``book/executed/<NN_name>.ipynb``, each in one atomic exchange (:func:`_swap`), with Ctrl-C held
   back until both are in.

One run of a stage at a time: the whole run holds the stage's file lock (:func:`exclusive`,
``results/.locks/<stage>.lock``), so the documented command and ``dvc repro`` (which releases its own
lock while a stage runs) never share or delete each other's files; a second run waits for the first.
A failure (an error in a cell, a Ctrl-C, a killed run) therefore leaves the last good results and
chapter in place, and prints one line naming the stage and the error.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from compendium.pipeline import paths, studies
from compendium.pipeline.params import ParamsError

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


#: the notebook stages (:data:`compendium.pipeline.studies.ALL_STAGES` with a notebook)
STAGES: dict[str, Stage] = {
    s.name: Stage(s.name, s.notebook, s.section) for s in studies.ALL_STAGES if s.notebook is not None
}


class StageError(RuntimeError):
    """A stage failed; the message is one sentence for the user."""


_RENAME_EXCHANGE = 2  # linux/fs.h
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Atomically exchange the paths ``a`` and ``b`` (both must exist) with Linux's
    ``renameat2(RENAME_EXCHANGE)``; False where the platform or file system has no such call."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes
    import errno

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):  # glibc before 2.28, or another C library
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(a), None, str(b))


def _remove(p: Path) -> None:
    if p.is_dir() and not p.is_symlink():
        shutil.rmtree(p)
    elif p.exists() or p.is_symlink():
        p.unlink()


def _old(dest: Path) -> Path:
    return dest.with_name(f".{dest.name}.old")


def recover(dest: Path) -> bool:
    """Undo an interrupted two-rename swap of ``dest``: if ``dest`` is missing and its ``.old`` copy
    exists (the fallback swap was killed between its renames), put the old copy back; a leftover
    ``.old`` beside a present ``dest`` is removed. True if ``dest`` was restored."""
    old = _old(dest)
    if not (old.exists() or old.is_symlink()):
        return False
    if dest.exists() or dest.is_symlink():
        _remove(old)
        return False
    old.rename(dest)
    return True


def _swap(new: Path, dest: Path) -> None:
    """Replace ``dest`` (file or folder) by ``new``, so that ``dest`` is never half-written or missing.

    Where the platform has it (Linux: ``renameat2(RENAME_EXCHANGE)``), the two paths are exchanged in
    one atomic step and the old content, now at ``new``, is removed. Otherwise ``dest`` is renamed to
    ``.<name>.old`` and ``new`` to ``dest``; a kill between those two renames leaves the old content at
    ``.<name>.old``, which :func:`recover` (called at the start of every stage and book build) puts back."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    recover(dest)
    if not (dest.exists() or dest.is_symlink()):
        new.rename(dest)
        return
    if os.environ.get("COMPENDIUM_SWAP") != "rename" and _exchange(new, dest):
        _remove(new)  # the old content
        return
    old = _old(dest)
    dest.rename(old)
    new.rename(dest)
    _remove(old)


class StageBusy(RuntimeError):
    """Another process holds the lock of this stage (or of the book build)."""


@contextlib.contextmanager
def exclusive(name: str, lock_file: Path, wait: bool = True):
    """Hold an exclusive ``fcntl.flock`` on ``lock_file`` for the block: one run of stage ``name`` at a
    time, whether it was started by ``dvc repro`` (DVC releases its own repository lock while a stage's
    command runs) or directly. A second run prints one line and waits for the first to finish (or,
    with ``wait=False``, raises :class:`StageBusy`). The lock ends with the process, however it ends."""
    import fcntl

    try:
        lock_file.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock_file, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise StageError(
            f"cannot create the lock file {_rel(lock_file)} ({exc.strerror}); the checkout must be writable "
            "(a read-only checkout: clone it somewhere writable, `git clone <this checkout> ~/compendium`, "
            "and run `make reproduce` there)"
        ) from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "?"
            if not wait:
                raise StageBusy(
                    f"{name} is already running in another process (pid {holder}); wait for it to finish, "
                    "then run it again"
                ) from None
            print(
                f"[{name}] another run (pid {holder}) is in progress; waiting for it to finish ...",
                file=sys.stderr,
                flush=True,
            )
            fcntl.flock(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # releases the lock


@contextlib.contextmanager
def signals_deferred():
    """Hold SIGINT, SIGTERM and SIGHUP back during the block (the swaps: a Ctrl-C there would otherwise
    leave the results of this run beside the chapter of the last one); they are delivered after it."""
    sigs = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
    old = signal.pthread_sigmask(signal.SIG_BLOCK, sigs)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _raise_interrupt(signum, frame):  # SIGTERM/SIGHUP: unwind like Ctrl-C, so the kernel is shut down
    raise KeyboardInterrupt


def _stale_staging(folder: Path, name: str) -> None:
    """Remove staging folders of stage ``name`` left by killed or failed runs (the lock is held)."""
    if not folder.is_dir():
        return
    for p in folder.iterdir():
        if p.name == name or p.name.startswith(f"{name}."):
            _remove(p)


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
    modules and use :func:`compendium.pipeline.deps.notebook_modules` (jupytext and ``ast``) instead."""
    found: list[str] = []
    for body in _CODE_CELL.findall(source.read_text(encoding="utf-8")):
        for frm, names, mod in _IMPORT.findall(body):
            cands = [mod] if mod else [frm] + [f"{frm}.{n.split()[0]}" for n in names.split(",") if n.strip()]
            found.extend(c for c in cands if c not in found)
    return found


#: AF_UNIX socket paths must be shorter than 108 bytes on Linux (104 on macOS); jupyter_client adds "-<n>"
_SUN_PATH = 100


def _ipc_dir() -> str:
    """A private folder for the kernel's IPC sockets whose socket paths fit the AF_UNIX limit: under the
    temporary folder (``TMPDIR``), or, where that path is too long (a deep ``TMPDIR``: zmq's "File name too
    long"), under ``/tmp``. Raises :class:`StageError` naming ``TMPDIR`` and the fix when neither fits."""
    for base in (None, "/tmp"):
        try:
            d = tempfile.mkdtemp(prefix="compendium-kernel-", dir=base)
        except OSError:
            continue
        if len(os.fsencode(os.path.join(d, "k-99999"))) < _SUN_PATH:
            return d
        os.rmdir(d)
    raise StageError(
        f"the temporary folder {tempfile.gettempdir()} (TMPDIR) is too long a path for the kernel's sockets "
        f"(at most about {_SUN_PATH - 30} characters), and /tmp is not writable; run with a short one, e.g. "
        "`TMPDIR=/tmp dvc repro`. The last good results and chapters are unchanged."
    )


def _ended(pid: int) -> bool:
    """Whether child ``pid`` has ended, without reaping it (``WNOWAIT``): an ended child keeps its process id, and
    its process group's, until it is reaped, so neither can have been given to another process."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:  # reaped already
        return True


def _kill_unreaped(proc, seconds: float = 5.0) -> None:
    """Kill the kernel (SIGKILL, as ``shutdown_kernel(now=True)`` does) and wait up to ``seconds`` for it to end,
    without reaping it: ``shutdown_kernel`` then signals its process group while the ended process still holds the
    group's id, and finds it ended at its first poll, where it polls every 0.1 s on its own (0.11 s of every notebook
    stage). Where ``os.waitid`` is missing, ``shutdown_kernel`` does it all, as before."""
    if not hasattr(os, "waitid"):
        return
    if not _ended(proc.pid):
        os.kill(proc.pid, signal.SIGKILL)  # not Popen.kill, which may reap it first: it is unreaped here
    deadline = time.monotonic() + seconds
    while not _ended(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.002)


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
        self.kc = self.km = None
        # local IPC sockets in a private temporary folder, not TCP ports: nothing listens on the network,
        # and the kernel no longer warns, once per stage, that its TCP traffic is unencrypted
        self._ipc_dir = _ipc_dir()  # short enough for AF_UNIX socket paths, whatever TMPDIR is
        try:  # a kernel that fails to start leaves neither a process nor the socket folder
            self.km = AsyncKernelManager(kernel_name="python3", transport="ipc", ip=os.path.join(self._ipc_dir, "k"))
            run_sync(self.km.start_kernel)(cwd=str(paths.NOTEBOOKS))
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
                km = self.km  # None if the manager could not be made
                proc = getattr(getattr(km, "provisioner", None), "process", None)  # None before a kernel started
                if proc is not None and proc.returncode is None:
                    _kill_unreaped(proc)
                if km is not None and km.has_kernel:
                    self._run_sync(km.shutdown_kernel)(now=True)
            finally:
                shutil.rmtree(self._ipc_dir, ignore_errors=True)


def lock_file(name: str) -> Path:
    """The lock of stage ``name`` (see :func:`exclusive`)."""
    return paths.RESULTS / ".locks" / f"{name}.lock"


def run(name: str, quiet: bool = False, executed_dir: Path | None = None) -> float:
    """Execute stage ``name``; return its run time in seconds. Raises :class:`StageError` on failure.

    One run of a stage at a time (:func:`exclusive`); each run stages into folders of its own
    (``results/.staging/<stage>.<random>/``, ``book/executed/.staging/<stage>.<random>/``)."""
    if name not in STAGES:
        raise StageError(f"unknown stage {name!r}; the stages are {', '.join(STAGES)}")
    from compendium.pipeline import workspace

    workspace.claim(name)  # one run at a time owns the workspace's state (a second waits)
    with exclusive(name, lock_file(name)):
        return _run_locked(STAGES[name], quiet, executed_dir)


def _run_locked(st: Stage, quiet: bool, executed_dir: Path | None) -> float:
    name = st.name
    if not st.source.is_file():
        raise StageError(
            f"stage {name!r}: its notebook {_rel(st.source)} is missing; restore it with "
            f"`git checkout -- {_rel(st.source)}`. The last good results/{name}/ and chapter are unchanged."
        )
    results_dest = paths.RESULTS / name
    executed = Path(executed_dir) / st.executed.name if executed_dir else st.executed
    recover(results_dest)  # a swap killed between its renames (platforms without an atomic exchange)
    recover(executed)
    staging_root = paths.RESULTS / ".staging"
    nb_staging_root = executed.parent / ".staging"
    try:
        _stale_staging(staging_root, name)
        _stale_staging(nb_staging_root, name)
        staging_root.mkdir(parents=True, exist_ok=True)
        nb_staging_root.mkdir(parents=True, exist_ok=True)
        staging_results = Path(tempfile.mkdtemp(prefix=f"{name}.", dir=staging_root))
        staging_nb = Path(tempfile.mkdtemp(prefix=f"{name}.", dir=nb_staging_root)) / executed.name
    except OSError as exc:
        raise StageError(
            f"stage {name!r} cannot write its staging folders under {_rel(staging_root)} ({exc.strerror}); "
            f"free some space or make the checkout writable, then run `dvc repro {name}` again. "
            f"The last good results/{name}/ and chapter are unchanged."
        ) from None
    env_before = os.environ.get(STAGING_ENV)
    os.environ[STAGING_ENV] = f"{name}={staging_results}"  # before the kernel starts: it inherits it
    kernel = None
    try:
        from compendium.pipeline.params import stage_section

        parameters = stage_section(st.params) if st.params else {}
        try:
            kernel = _Kernel(imported_modules(st.source))
        except StageError:  # already one sentence with its own recovery (TMPDIR)
            raise
        except Exception as exc:  # noqa: BLE001 - one sentence, not jupyter_client's traceback
            raise StageError(
                f"stage {name!r} could not start its Python kernel ({_first_error_line(exc)}); check that the "
                f"environment is complete (`make setup`), then run `dvc repro {name}`. The last good "
                f"results/{name}/ and chapter are unchanged."
            ) from exc
        seconds = _execute(st, parameters, staging_nb, kernel)
    finally:
        if kernel is not None:
            kernel.shutdown()
        if env_before is None:
            os.environ.pop(STAGING_ENV, None)
        else:
            os.environ[STAGING_ENV] = env_before
    from compendium.pipeline import notebooks

    notebooks.finalize(staging_nb, name, seconds=seconds, staging=staging_results)
    if st.params:
        from compendium.pipeline import workspace

        workspace.write_run_params(name, parameters, staging_results)
        _refuse_if_params_changed(name, st.params, parameters, (staging_results, staging_nb.parent))
    with signals_deferred():  # the results and the chapter are swapped in together, or neither
        if any(staging_results.iterdir()):
            _swap(staging_results, results_dest)
        else:
            staging_results.rmdir()  # a stage without artifacts (the Reproducibility page)
        _swap(staging_nb, executed)
        staging_nb.parent.rmdir()
        if paths.RESULTS == paths.ROOT / "results" and executed_dir is None:
            from compendium.pipeline import metrics

            metrics.write(name)  # metrics/<stage>.json, the DVC metrics of the stage
    if not quiet:
        from compendium.pipeline.progress import done_line

        print(done_line(name, seconds), file=sys.stderr)
    return seconds


def _refuse_if_params_changed(name: str, record: str, parameters: dict, staging: tuple[Path, ...]) -> None:
    """Before a swap: if ``params.yaml`` no longer gives the parameters the stage ran with (a ``make reset``, an edit
    or another ``dvc exp run -S`` while it ran), drop the staged results and raise: results computed with one value
    are never swapped in beside another value's ``params.yaml``."""
    from compendium.pipeline.params import ParamsError, load_section

    try:
        now = json.loads(json.dumps(load_section(record)))
    except ParamsError:
        now = None
    if now == parameters:
        return
    for p in staging:
        _remove(p)
    changed = (
        "; ".join(
            f"{k}: ran with {parameters.get(k)!r}, now {now.get(k)!r}"
            for k in parameters
            if now.get(k) != parameters.get(k)
        )
        if now is not None
        else "it is no longer valid"
    )
    raise StageError(
        f"stage {name!r}: params.yaml changed while it ran ({changed}), so its results were not kept (they would "
        f"disagree with params.yaml); the last good results/{name}/ are unchanged. Run `dvc repro` again."
    )


@contextlib.contextmanager
def python_stage(name: str):
    """A stage without a notebook (a module's ``main``, e.g. ``python -m compendium.workbank.models``), run
    like the notebook stages: the block writes into a staging folder of its own
    (``results/.staging/<name>.<random>/``, which :func:`compendium.pipeline.paths.stage_dir` returns inside
    the block), swapped in place of ``results/<name>/`` in one atomic exchange only if the block ends
    without an error; otherwise the staging folder is removed and the last good results stay. Holds the
    stage's lock (:func:`exclusive`) throughout. Yields the staging folder."""
    from compendium.pipeline import studies, workspace
    from compendium.pipeline.params import load_section

    spec = studies.stage(name) if name in {s.name for s in studies.ALL_STAGES} else None
    record = workspace.record_name(name) if spec is not None and spec.section else None
    workspace.claim(name)
    with exclusive(name, lock_file(name)):
        parameters = json.loads(json.dumps(load_section(record))) if record else None
        dest = paths.RESULTS / name
        recover(dest)
        root = paths.RESULTS / ".staging"
        _stale_staging(root, name)
        root.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f"{name}.", dir=root))
        before = os.environ.get(STAGING_ENV)
        os.environ[STAGING_ENV] = f"{name}={staging}"
        try:
            yield staging
        except BaseException:
            _remove(staging)
            raise
        finally:
            if before is None:
                os.environ.pop(STAGING_ENV, None)
            else:
                os.environ[STAGING_ENV] = before
        if record:
            workspace.write_run_params(name, parameters, staging)
            _refuse_if_params_changed(name, record, parameters, (staging,))
        with signals_deferred():
            _swap(staging, dest)


#: seconds nbclient waits, after a cell's reply, for its last output messages (see :func:`_execute`)
IOPUB_TIMEOUT = 300


def _execute(st: Stage, parameters: dict, staging_nb: Path, kernel: _Kernel) -> float:
    """Execute the stage's notebook on ``kernel`` into ``staging_nb``; return the seconds it took."""
    import jupytext
    import papermill

    name = st.name
    staging_nb.parent.mkdir(parents=True, exist_ok=True)
    try:
        nb = jupytext.read(st.source)
    except Exception as exc:  # noqa: BLE001 - a notebook jupytext cannot read: name it
        raise StageError(
            f"stage {name!r}: jupytext cannot read {_rel(st.source)} ({_first_error_line(exc)}); fix it, or "
            f"restore it with `git checkout -- {_rel(st.source)}`. The last good results/{name}/ and chapter "
            "are unchanged."
        ) from exc
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
            # after a cell's reply nbclient waits this long for the kernel's last output messages, and papermill
            # makes running out of it an error; nbclient's 4 s failed the workbank stage on a loaded machine
            # ("Timeout waiting for IOPub output", seen with both cores busy). The kernel is ours and alive.
            iopub_timeout=IOPUB_TIMEOUT,
        )
    except Exception as exc:  # noqa: BLE001 - every failure becomes one sentence
        raise StageError(
            f"stage {name!r} failed in {st.source.relative_to(paths.ROOT)}: {_first_error_line(exc).rstrip('.')}. "
            f"The last good results/{name}/ and chapter are unchanged; the failed notebook is "
            f"{_rel(staging_nb)}."
        ) from exc
    return time.perf_counter() - t0


_YAML_HINTS = {
    "dvc.lock": "Restore the committed file with `git checkout -- dvc.lock`; `dvc repro` then re-runs the stages "
    "whose inputs differ from it.",
    "dvc.yaml": "Fix it, or restore the committed file with `git checkout -- dvc.yaml`.",
    "data.dvc": "Restore the committed file with `git checkout -- data.dvc`.",
}


def preflight() -> list[str]:
    """The files DVC reads before any stage runs, checked first, so that a YAML error gets its recovery
    (DVC says only that the file is corrupted, or that it failed to parse 'vars'; on an alias bomb it says
    nothing and fills the memory): ``params.yaml``, ``dvc.yaml``, ``dvc.lock`` and ``data.dvc``, read with
    DVC's own parser, aliases bounded (:func:`compendium.pipeline.params.read_yaml`), and each a mapping.
    One line per unreadable file; [] if all can be read."""
    from compendium.pipeline.params import read_yaml

    problems = []
    for path, hint in [(paths.PARAMS, None)] + [(paths.ROOT / f, h) for f, h in _YAML_HINTS.items()]:
        if hint is not None and not path.exists():
            continue  # no dvc.lock yet: DVC writes it
        try:
            doc = read_yaml(path) if hint is None else read_yaml(path, hint=hint)
        except ParamsError as exc:
            problems.append(str(exc))
            continue
        if not isinstance(doc, dict):  # DVC: "failed to parse 'vars' in 'dvc.yaml'", naming neither file nor fix
            kind = "empty" if doc is None else f"a YAML {'list' if isinstance(doc, list) else type(doc).__name__}"
            what = "sections (workbank:, preferences:, ...)" if hint is None else "keys"
            reset = " (or `make reset`: the committed params.yaml, dvc.lock and outputs)" if hint is None else ""
            problems.append(
                f"{path.name} is {kind}, not a mapping of {what}. Restore the committed file with "
                f"`git checkout -- {path.name}`{reset}."
            )
    if not problems:  # results that DVC would call up to date but that were computed with other parameters
        from compendium.pipeline.workspace import problems as workspace_problems

        problems += workspace_problems(full=False)
    return problems


def main(argv: list[str] | None = None) -> int:
    import argparse

    from compendium.pipeline.cli import safe_output

    safe_output()  # a terminal without UTF-8 gets escapes, not a UnicodeEncodeError

    ap = argparse.ArgumentParser(prog="python -m compendium.pipeline.stage", description="Run one DVC stage.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="execute a stage's notebook and swap its outputs in on success")
    r.add_argument("stage", choices=sorted(STAGES))
    r.add_argument(
        "--executed-dir",
        type=Path,
        default=None,
        help="write the executed notebook here instead of book/executed/ (tests)",
    )
    sub.add_parser(
        "preflight", help="check that params.yaml, dvc.yaml, dvc.lock and data.dvc can be read (make reproduce)"
    )
    args = ap.parse_args(sys.argv[1:] if argv is None else argv)
    if args.cmd == "preflight":
        problems = preflight()
        for p in problems:
            print(f"ERROR: {p}", file=sys.stderr)
        return 1 if problems else 0
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _raise_interrupt)
    from compendium.pipeline.rawdata import guard

    raw = guard()  # dvc repro cannot see a changed raw file: every stage checks data/ first
    if raw:
        print(raw, file=sys.stderr)
        return 1
    from compendium.pipeline.progress import stage_position

    where = stage_position(args.stage)
    print(f"[{args.stage}] {where + ': ' if where else ''}running {_rel(STAGES[args.stage].source)}", file=sys.stderr)
    try:
        run(args.stage, executed_dir=args.executed_dir)
    except (StageError, ParamsError) as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(
            f"ERROR: stage {args.stage!r} was interrupted; results/{args.stage}/ and its chapter are complete "
            f"(the last good ones, or both new if it was swapping them in). Run `dvc repro {args.stage}` to "
            "finish it.",
            file=sys.stderr,
        )
        return 130
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename else ""
        print(
            f"ERROR: stage {args.stage!r} could not write its outputs{where}: {exc.strerror or exc}. "
            f"The last good results/{args.stage}/ and chapter are unchanged (or, if the error came after "
            f"the swap, complete); free some space or fix the permissions, then run `dvc repro {args.stage}`.",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

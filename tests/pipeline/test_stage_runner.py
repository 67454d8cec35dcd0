"""compendium.pipeline.stage: the modules a stage's kernel imports ahead of the notebook, and the warm-up kernel."""

import os
import textwrap
import time

import pytest

from compendium.pipeline import paths, stage


def test_imported_modules_reads_code_cells_only(tmp_path):
    src = tmp_path / "nb.md"
    src.write_text(
        textwrap.dedent(
            """\
            # A chapter

            from prose import nothing

            ```{code-cell} ipython3
            :tags: [remove-cell]
            import pandas as pd
            from compendium.chapter import display
            from compendium import preferences as pref
            from compendium.pipeline.results import write_table, write_values
                import indented_is_ignored
            x = 1  # import not_at_line_start
            ```

            ```{code-cell} ipython3
            import pandas
            from compendium.pwb import aggregates as agg
            ```
            """
        )
    )
    assert stage.imported_modules(src) == [
        "pandas",
        "compendium.chapter",
        "compendium.chapter.display",
        "compendium",
        "compendium.preferences",
        "compendium.pipeline.results",
        "compendium.pipeline.results.write_table",
        "compendium.pipeline.results.write_values",
        "compendium.pwb",
        "compendium.pwb.aggregates",
    ]


@pytest.mark.parametrize("name", sorted(stage.STAGES))
def test_every_stage_notebook_imports_something_of_the_package(name):
    mods = stage.imported_modules(stage.STAGES[name].source)
    assert any(m.startswith("compendium") for m in mods), mods


def test_warm_kernel_imports_without_binding_names_and_shuts_down():
    from jupyter_core.utils import run_sync

    out: list[str] = []
    code = (
        "import sys, os\n"
        "print(sorted(n for n in ('json', 'compendium.pipeline.paths') if n in sys.modules), "
        "'_compendium_warm_up' in dir(), 'importlib' in dir(), os.getcwd())"
    )

    async def ask(km):  # as nbclient does: a client of its own, in the running loop
        kc = km.client()
        kc.start_channels()
        try:
            await kc.wait_for_ready(timeout=60)
            return await kc.execute_interactive(
                code, timeout=60, output_hook=lambda msg: out.append(msg["content"].get("text", ""))
            )
        finally:
            kc.stop_channels()

    k = stage._Kernel(["json", "no_such_module_xyz", "compendium.pipeline.paths"])
    try:
        reply = run_sync(ask)(k.km)
        proc, connection = k.km.provisioner.process, k.km.connection_file
        assert proc.poll() is None and os.path.exists(connection)
    finally:
        k.shutdown()
    assert reply["content"]["status"] == "ok"
    text = "".join(out)
    assert "['compendium.pipeline.paths', 'json'] False False" in text, text
    assert str(paths.NOTEBOOKS) in text
    assert not run_sync(k.km.is_alive)()
    # the process ended and was reaped; its connection file and socket folder are gone
    assert proc.returncode is not None and not os.path.exists(connection) and not os.path.exists(k._ipc_dir)


@pytest.mark.parametrize("name", sorted(stage.STAGES))
def test_papermill_reads_every_parameter_of_the_parameters_cell(name):
    """papermill parses the parameters cell to tell which parameters a notebook has; a line it cannot parse
    (an '=' inside a comment defeats it) gives 'Passed unknown parameter' warnings in every run."""
    import re

    import jupytext
    from papermill.translators import PythonTranslator

    nb = jupytext.read(stage.STAGES[name].source)
    cells = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(cells) == 1, f"{name}: expected one cell tagged 'parameters'"
    assigned = re.findall(r"^(\w+)\s*=", cells[0].source, re.M)
    parsed = [p.name for p in PythonTranslator.inspect({"source": cells[0].source})]
    assert parsed == assigned


# --- the swap and the lock -----------------------------------------------------------------------------


def _tree(d):
    return {p.relative_to(d).as_posix(): p.read_text() for p in sorted(d.rglob("*")) if p.is_file()}


def _two_folders(tmp_path):
    new, dest = tmp_path / "new", tmp_path / "dest"
    for d, text in ((new, "new"), (dest, "old")):
        (d / "figures").mkdir(parents=True)
        (d / "figures" / "a.png").write_text(text)
    return new, dest


def test_exchange_swaps_two_folders_in_one_step(tmp_path):
    from compendium.pipeline.stage import _exchange

    new, dest = _two_folders(tmp_path)
    assert _exchange(new, dest) is True  # Linux: renameat2(RENAME_EXCHANGE)
    assert _tree(dest) == {"figures/a.png": "new"} and _tree(new) == {"figures/a.png": "old"}


@pytest.mark.parametrize("mode", ["exchange", "rename"])
def test_swap_replaces_the_folder_and_leaves_nothing_behind(tmp_path, monkeypatch, mode):
    from compendium.pipeline.stage import _swap

    if mode == "rename":
        monkeypatch.setenv("COMPENDIUM_SWAP", "rename")
    new, dest = _two_folders(tmp_path)
    _swap(new, dest)
    assert _tree(dest) == {"figures/a.png": "new"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dest"]


def test_swap_never_renames_the_destination_away_where_it_can_exchange(tmp_path, monkeypatch):
    from pathlib import Path

    from compendium.pipeline.stage import _swap

    new, dest = _two_folders(tmp_path)
    real = Path.rename
    moved = []
    monkeypatch.setattr(Path, "rename", lambda self, t: moved.append((self.name, Path(t).name)) or real(self, t))
    _swap(new, dest)
    assert moved == [] and _tree(dest) == {"figures/a.png": "new"}


def test_recover_puts_back_what_a_kill_between_two_renames_left(tmp_path):
    from compendium.pipeline.stage import recover

    dest, old = tmp_path / "dest", tmp_path / ".dest.old"
    (old / "figures").mkdir(parents=True)
    (old / "figures" / "a.png").write_text("old")
    assert recover(dest) is True and _tree(dest) == {"figures/a.png": "old"} and not old.exists()
    old.mkdir()  # a leftover beside a present folder is removed, the folder kept
    assert recover(dest) is False and not old.exists() and _tree(dest) == {"figures/a.png": "old"}


def test_a_second_holder_of_a_stage_lock_waits_or_is_refused(tmp_path):
    import subprocess
    import sys

    from compendium.pipeline.stage import StageBusy, exclusive

    lock = tmp_path / "locks" / "x.lock"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from compendium.pipeline.stage import exclusive\n"
            f"with exclusive('x', Path({str(lock)!r})):\n    print('held', flush=True); time.sleep(3)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout.readline().strip() == "held"
    with pytest.raises(StageBusy, match=rf"x is already running in another process \(pid {holder.pid}\)"):
        with exclusive("x", lock, wait=False):
            pass
    t0 = time.perf_counter()
    with exclusive("x", lock):  # waits for the holder to let go, then holds it
        assert time.perf_counter() - t0 > 1.0  # the holder kept it for 3 s after saying so
        assert lock.read_text().strip() == str(os.getpid())
    assert holder.wait(10) == 0


def test_a_slow_kernel_output_is_waited_for_not_an_error(tmp_path, monkeypatch):
    """nbclient waits 4 s by default for a cell's last output messages after its reply, and papermill makes
    running out of that an error: the workbank stage failed so on a machine with both cores busy ("Timeout
    waiting for IOPub output"). The runner passes a wait of minutes, and the client papermill builds takes it."""
    import papermill
    from papermill.clientwrap import PapermillNotebookClient

    seen = {}

    def fake_execute(nb, out, **kw):
        seen.update(kw)

    monkeypatch.setattr(papermill, "execute_notebook", fake_execute)
    st = stage.STAGES["workbank"]
    stage._execute(st, {}, tmp_path / "nb.ipynb", type("K", (), {"km": None})())
    assert seen["iopub_timeout"] == stage.IOPUB_TIMEOUT >= 60

    class Man:  # the notebook manager papermill hands its client
        nb = __import__("nbformat").v4.new_notebook()

    client = PapermillNotebookClient(Man(), iopub_timeout=seen["iopub_timeout"])
    assert client.iopub_timeout == stage.IOPUB_TIMEOUT and client.raise_on_iopub_timeout


@pytest.mark.parametrize("dead_before", [False, True])
def test_the_kernel_is_signalled_only_while_unreaped_and_leaves_nothing_behind(monkeypatch, dead_before):
    """shutdown() kills the kernel and waits for its end without reaping it, so jupyter_client's signals to its
    process group go to an id no other process can hold; a kernel that died on its own is cleaned up too."""
    import signal

    k = stage._Kernel(["json"])
    proc, connection = k.km.provisioner.process, k.km.connection_file
    if dead_before:
        os.kill(proc.pid, signal.SIGKILL)
        time.sleep(0.2)
    sent = []
    real = os.killpg
    monkeypatch.setattr(os, "killpg", lambda pg, sig: (sent.append((sig, proc.returncode)), real(pg, sig)))
    k.shutdown()
    assert sent and all(code is None for _, code in sent), sent  # every signal before the process was reaped
    assert proc.returncode == -signal.SIGKILL and not os.path.exists(connection) and not os.path.exists(k._ipc_dir)


@pytest.mark.parametrize("fails", ["the manager", "the kernel's start"])
def test_a_kernel_that_fails_to_start_leaves_no_socket_folder(monkeypatch, fails):
    """Whether the kernel manager cannot be made or the kernel cannot start, the socket folder is removed."""
    from jupyter_client import manager

    made = []
    real = stage._ipc_dir
    monkeypatch.setattr(stage, "_ipc_dir", lambda: made.append(real()) or made[-1])

    def fail(*args, **kwargs):
        raise RuntimeError(f"{fails} failed")

    async def fail_to_start(self, **kwargs):
        fail()

    if fails == "the manager":
        monkeypatch.setattr(manager, "AsyncKernelManager", fail)
    else:
        monkeypatch.setattr(manager.AsyncKernelManager, "start_kernel", fail_to_start)
    with pytest.raises(RuntimeError, match=f"{fails} failed"):
        stage._Kernel(["json"])
    assert made and not os.path.exists(made[0])

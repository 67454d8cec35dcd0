import sys

from compendium.pipeline.progress import step


def test_step_reports_to_the_real_stderr(monkeypatch, capsys):
    monkeypatch.delenv("COMPENDIUM_QUIET", raising=False)
    monkeypatch.setattr(sys, "__stderr__", sys.stderr)
    with step("demo", "bootstrap", n=2000, unit="draws"):
        pass
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "[demo] bootstrap (2,000 draws) ..."
    assert err[1].startswith("[demo] bootstrap: done in ")


def test_quiet(monkeypatch, capsys):
    monkeypatch.setenv("COMPENDIUM_QUIET", "1")
    monkeypatch.setattr(sys, "__stderr__", sys.stderr)
    with step("demo", "x"):
        pass
    assert capsys.readouterr().err == ""


def test_inside_a_kernel_it_writes_to_the_original_fd_copy(monkeypatch, tmp_path):
    import os

    from compendium.pipeline import progress

    target = tmp_path / "terminal.txt"
    fd = os.open(target, os.O_WRONLY | os.O_CREAT)

    class KernelStream:  # what ipykernel's OutStream exposes
        _original_stdstream_copy = fd

        def write(self, s):
            raise AssertionError("progress must not go into the notebook's captured stderr")

    monkeypatch.delenv("COMPENDIUM_QUIET", raising=False)
    monkeypatch.setattr(sys, "stderr", KernelStream())
    monkeypatch.setattr(progress, "_terminal", None)
    progress.say("demo", "hello")
    progress._terminal.flush()
    os.close(fd)
    assert target.read_text() == "[demo] hello\n"

import sys

from compendium.progress import step


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

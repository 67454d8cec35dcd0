"""``python -m compendium.pwb.score`` on hostile or oversized results (issue 32): one sentence each, the
bootstrap's memory bounded before it allocates, no control sequence reaching the terminal, output safe for
an ASCII terminal, ``--out`` checked before the bootstrap."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import unicodedata

import pytest
from pwb_score_files import rewrite

from compendium.data import synthetic_pwb
from compendium.pipeline import paths
from compendium.pwb import score

NAME = "Hostile Model"
PAYLOADS = {
    "CSI erase line": "\x1b[2K",
    "OSC window title": "\x1b]0;owned\x07",
    "NUL": "\x00",
    "DEL": "\x7f",
    "C1 CSI": "\x9b2K",
}


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    d = tmp_path_factory.mktemp("small") / "results"
    synthetic_pwb.write_model(d, NAME, seed=3, size="small")
    return d


def _run(*args, cwd, limit_gib: float | None = None, **env):
    def cap():
        n = int(limit_gib * 1024**3)
        resource.setrlimit(resource.RLIMIT_AS, (n, n))

    e = dict(os.environ, PYTHONPATH=str(paths.ROOT / "src"), **env)
    e.pop("COMPENDIUM_MEMORY_GIB", None)
    return subprocess.run(
        [sys.executable, "-m", "compendium.pwb.score", *map(str, args)],
        cwd=cwd,
        env=e,
        capture_output=True,
        timeout=600,
        preexec_fn=cap if limit_gib else None,
    )


def raw_controls(b: bytes) -> list[str]:
    text = b.decode("utf-8", errors="surrogateescape")
    return [ch for ch in text if ch != "\n" and unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp")]


def one_sentence(p) -> str:
    err = p.stderr.decode()
    assert p.returncode == 1 and "Traceback" not in err and err.count("\n") == 1 and p.stdout == b"", err[-3000:]
    return err


def test_runs_beyond_the_memory_budget_are_refused_before_the_bootstrap(small, tmp_path):
    """The bootstrap holds 1,000 draws of every Layer-1 run score of a condition at once: 31,600 runs per
    condition would need about 2.8 GiB. Refused in one sentence, saying how many runs fit."""

    def more_runs(d):
        for prompts in d["layer1"].values():
            for p in prompts:  # each run its own index: a run index twice is refused (test_score_design.py)
                p["runs"] = [dict(r, run=k) for k, r in enumerate(p["runs"] * 400)]

    big = rewrite(small, tmp_path / "big", more_runs)
    p = _run(big, cwd=tmp_path, limit_gib=3)
    err = one_sentence(p)
    assert f"error: {big}: model 'Hostile Model' has 31,600 scored Layer-1 runs in condition " in err
    assert "above the budget of 2.0 GiB: score at most 22,369 runs per condition" in err
    assert "COMPENDIUM_MEMORY_GIB" in err
    assert not list(tmp_path.glob("pwb-score-*"))


@pytest.mark.parametrize("name", sorted(PAYLOADS))
def test_control_sequences_in_the_model_name_never_reach_the_terminal(small, tmp_path, name):
    def hostile(d):
        d["model_name"] = f"{NAME}{PAYLOADS[name]}"

    bad = rewrite(small, tmp_path / "bad", hostile)
    p = _run(bad, cwd=tmp_path)
    err = one_sentence(p)
    assert raw_controls(p.stderr) == []
    # the file and the field, and the name shown visibly
    assert ": field model_name: the model name 'Hostile Model[U+" in err and "holds the control character" in err


def test_a_huge_key_gives_a_short_message(small, tmp_path):
    def wide(d):
        d["layer1"]["x" * 2_000_000] = "not a list"

    bad = rewrite(small, tmp_path / "wide", wide)
    err = one_sentence(_run(bad, cwd=tmp_path))
    assert len(err) < 1_000 and "2,000,007 characters" in err and "expected a list of prompts" in err


def test_an_out_folder_that_cannot_be_created_is_refused_before_the_bootstrap(small, tmp_path, capsys, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")

    def never(*a, **k):
        raise AssertionError("computed before checking --out")

    monkeypatch.setattr(score, "evaluate", never)
    assert score.main([str(small), "--out", str(blocker / "out")]) == 1
    assert capsys.readouterr().err == (
        f"error: --out {blocker / 'out'}: cannot write there (Not a directory); choose a folder you can write, "
        "e.g. --out ./out\n"
    )


@pytest.mark.parametrize(
    "env",
    [{"PYTHONIOENCODING": "ascii"}, {"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}],
    ids=["PYTHONIOENCODING=ascii", "LC_ALL=C"],
)
def test_an_ascii_terminal_gets_the_delta_line_as_an_escape(small, tmp_path, env):
    """Was: the files written, then a UnicodeEncodeError on the ΔPWI line."""
    p = _run(small, "--out", tmp_path / "out", "--n-boot", 200, cwd=tmp_path, **env)
    assert p.returncode == 0, p.stderr.decode(errors="replace")
    assert b"\\u0394PWI" in p.stdout and b"written:" in p.stdout
    assert (tmp_path / "out" / "score.json").exists()

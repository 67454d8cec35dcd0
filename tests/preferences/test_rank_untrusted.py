"""``python -m compendium.preferences.rank`` on hostile or oversized files (issue 32): one sentence each,
nothing allocated beyond the memory budget, no control sequence reaching the terminal, output safe for an
ASCII terminal, ``--out`` checked before the computation."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import unicodedata
import warnings

import pandas as pd
import pytest

from compendium.pipeline import paths
from compendium.preferences import rank

PAYLOADS = {
    "ESC": "\x1b",
    "CSI erase line": "\x1b[2K",
    "CSI cursor up and erase": "\x1b[1A\x1b[2K",
    "OSC window title": "\x1b]0;owned\x07",
    "NUL": "\x00",
    "DEL": "\x7f",
    "C1 CSI": "\x9b2K",
    "C1 OSC": "\x9d0;owned\x9c",
    "bidi override": "\u202e",
}


def _run(*args, limit_gib: float | None = None, **env):
    def cap():  # an address-space cap: an allocation of the old code fails fast instead of filling the machine
        n = int(limit_gib * 1024**3)
        resource.setrlimit(resource.RLIMIT_AS, (n, n))

    e = dict(os.environ, PYTHONPATH=str(paths.ROOT / "src"), **env)
    e.pop("COMPENDIUM_MEMORY_GIB", None)
    return subprocess.run(
        [sys.executable, "-m", "compendium.preferences.rank", *map(str, args)],
        env=e,
        capture_output=True,
        timeout=300,
        preexec_fn=cap if limit_gib else None,
    )


def raw_controls(b: bytes) -> list[str]:
    text = b.decode("utf-8", errors="surrogateescape")
    return [ch for ch in text if ch != "\n" and unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp")]


def one_sentence(p: subprocess.CompletedProcess) -> str:
    err = p.stderr.decode()
    assert p.returncode == 1 and "Traceback" not in err and err.count("\n") == 1, err[-3000:]
    return err


def two_thousand_models(tmp_path):
    """An 88 kB-class CSV: 2,000 models in a ring, each pair judged both ways."""
    k = 2000
    rows = [(f"model-{i:04d}", f"model-{(i + 1) % k:04d}", "A") for i in range(k)]
    rows += [(b, a, "A") for a, b, _ in rows]
    f = tmp_path / "many.csv"
    pd.DataFrame(rows, columns=["a_model", "b_model", "choice"]).to_csv(f, index=False)
    return f


@pytest.mark.parametrize("n_boot", [None, 200])
def test_two_thousand_models_are_refused_in_one_sentence_before_any_allocation(tmp_path, n_boot):
    """Was: a raw traceback for a 59.6 GiB allocation (default --n-boot), or an OOM kill (--n-boot 200)."""
    f = two_thousand_models(tmp_path)
    # the process runs under a 3 GiB address-space limit: an allocation of the bootstrap would kill it, so the one
    # sentence shows the refusal came first (no wall-clock bound: one failed at 163 s on a machine under full load)
    p = _run(f, *(["--n-boot", n_boot] if n_boot else []), limit_gib=3)
    err = one_sentence(p)
    assert err.startswith(f"error: {f}: 2,000 models and {n_boot or 2000:,} bootstrap replicates need about ")
    assert "above the budget of 2.0 GiB" in err and "lower --n-boot to at most 13" in err
    assert "COMPENDIUM_MEMORY_GIB" in err


def test_the_budget_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPENDIUM_MEMORY_GIB", "64")
    rank.check_memory(tmp_path / "f.csv", 2000, 2000, 200)  # 29.8 GiB fits in 64
    monkeypatch.setenv("COMPENDIUM_MEMORY_GIB", "1")
    with pytest.raises(rank.DataValidationError, match=r"rank at most about 5,181 models"):
        rank.check_memory(tmp_path / "f.csv", 20_000, 20_000, 1)


@pytest.mark.parametrize("name", sorted(PAYLOADS))
def test_control_sequences_in_a_model_id_never_reach_the_terminal(tmp_path, name):
    payload = PAYLOADS[name]
    rows = [("m1", "m2", "A"), ("m2", "m3", "B"), ("m3", "m1", "tie"), ("m1", f"m{payload}3", "A")]
    f = tmp_path / "hostile.jsonl"
    pd.DataFrame(rows, columns=["a_model", "b_model", "choice"]).to_json(f, orient="records", lines=True)
    p = _run(f, "--n-boot", 50)
    err = one_sentence(p)
    assert raw_controls(p.stdout) == [] and raw_controls(p.stderr) == []
    # the row, the field and the model, shown visibly
    assert f"{f}: line 4: field 'b_model': the model id 'm[U+" in err and "holds the control character" in err


def test_a_control_sequence_in_a_choice_or_the_file_name_is_shown_visibly(tmp_path):
    f = tmp_path / "hostile.csv"
    pd.DataFrame([("m1", "m2", "\x1b]0;owned\x07")], columns=["a_model", "b_model", "choice"]).to_csv(f, index=False)
    for args in ([f], [tmp_path / "no\x1b[2Kfile.csv"]):
        p = _run(*args)
        assert p.returncode == 1 and raw_controls(p.stdout + p.stderr) == [], p.stderr


def test_a_nul_in_one_model_id_names_the_row_the_field_and_the_model(tmp_path):
    """Was: "too few judgements for a bootstrap", naming nothing (the NUL made it another model)."""
    f = tmp_path / "nul.csv"
    f.write_bytes(b"a_model,b_model,choice\nm1,m2,A\nm2,m1,A\nm1,m3,B\nm3,m2,A\nm2,m\x003,B\n")
    err = one_sentence(_run(f))
    assert err.startswith(f"error: {f}: row 5: field 'b_model': the model id 'm[U+0000]3' holds the control")


def test_a_model_that_never_wins_is_named_with_where_it_first_appears(tmp_path):
    f = tmp_path / "typo.csv"
    rows = [("m1", "m2", "A"), ("m2", "m1", "A"), ("m1", "m3", "A"), ("m3", "m2", "B"), ("m2", "M3", "A")]
    pd.DataFrame(rows, columns=["a_model", "b_model", "choice"]).to_csv(f, index=False)
    with pytest.raises(rank.DataValidationError) as e, warnings.catch_warnings():
        warnings.simplefilter("error")  # and no RuntimeWarning beside the sentence
        rank.rank(f, n_boot=50, seed=rank.SEED, ci=rank.CI)
    assert "too few judgements" in str(e.value)
    assert "model 'm3' (first named in row 3, field 'b_model') wins none of its 2 judgement(s)" in str(e.value)


def test_a_huge_column_name_gives_a_short_message(tmp_path):
    """Was: the whole column name (200 MB in the report) in the error message."""
    f = tmp_path / "wide.csv"
    f.write_text("x" * 2_000_000 + ",b_model,choice\nm1,m2,A\n")
    err = one_sentence(_run(f))
    assert len(err) < 1_000 and "missing field 'a_model'" in err and "2,000,000 characters" in err


def test_an_out_folder_that_cannot_be_created_is_refused_before_the_computation(tmp_path, capsys, monkeypatch):
    """Was: a raw traceback after the whole computation."""
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    f = tmp_path / "ok.csv"
    pd.DataFrame([("m1", "m2", "A"), ("m2", "m1", "A")], columns=["a_model", "b_model", "choice"]).to_csv(f)

    def never(*a, **k):
        raise AssertionError("computed before checking --out")

    monkeypatch.setattr(rank, "rank", never)
    assert rank.main([str(f), "--out", str(blocker / "out")]) == 1
    err = capsys.readouterr().err
    assert (
        err
        == f"error: --out {blocker / 'out'}: cannot write there (Not a directory); choose a folder you can write, e.g. --out ./out\n"
    )


@pytest.mark.parametrize(
    "env",
    [{"PYTHONIOENCODING": "ascii"}, {"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}],
    ids=["PYTHONIOENCODING=ascii", "LC_ALL=C"],
)
def test_an_ascii_terminal_gets_escapes_not_a_crash(tmp_path, env):
    f = tmp_path / "names.csv"
    rows = [("modèle", "模型", "A"), ("模型", "modèle", "A"), ("modèle", "m3", "tie"), ("m3", "模型", "B")] * 3
    rows += [("m3", "modèle", "A"), ("模型", "m3", "B")]
    pd.DataFrame(rows, columns=["a_model", "b_model", "choice"]).to_csv(f, index=False)
    p = _run(f, "--n-boot", 50, "--out", tmp_path / "out", **env)
    assert p.returncode == 0, p.stderr.decode(errors="replace")
    assert b"mod\\xe8le" in p.stdout and b"\\u6a21\\u578b" in p.stdout
    assert (tmp_path / "out" / "rank.csv").exists()

"""The PWB per-instance files (compendium.data.pwbresults): verified against their local manifest before the
per-instance reader reads them, and what the reader skips counted for the Data chapter."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from compendium.data import acquired, overview, pwbresults, synthetic_pwb
from compendium.data.errors import ChecksumError
from compendium.pipeline import paths
from compendium.pwb import instances as I


def _acquire_from(root: Path, src: Path) -> subprocess.CompletedProcess:
    """`python -m compendium.data.acquire pwb --from SRC` on the scratch root (no network is touched)."""
    env = {**os.environ, "COMPENDIUM_ROOT": str(root), "HF_ENDPOINT": "http://127.0.0.1:9"}
    return subprocess.run(
        [sys.executable, "-m", "compendium.data.acquire", "pwb", "--from", str(src)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=root,
    )


@pytest.fixture
def acquired_root(tmp_path, monkeypatch):
    """A scratch root whose data/pwb/results/ holds the small synthetic release, accepted with the documented
    step (so acquired/pwb/manifest.json vouches for it); this process's paths point at it."""
    root = tmp_path / "root"
    (root / "data").mkdir(parents=True)
    (root / "acquired" / "pwb").mkdir(parents=True)
    snap = tmp_path / "snap"
    synthetic_pwb.write_snapshot(snap, seed=1, size="small")
    r = _acquire_from(root, snap)
    assert r.returncode == 0, r.stderr
    monkeypatch.setattr(paths, "DATA", root / "data")
    monkeypatch.setattr(acquired, "ACQUIRED", root / "acquired")
    return root


def _flip_one_byte(f: Path) -> None:
    """Change one letter of the first response text: still valid JSON of the same size, another sha256."""
    raw = bytearray(f.read_bytes())
    i = raw.index(b'"response": "') + len(b'"response": "')
    while not chr(raw[i]).isalpha():
        i += 1
    raw[i] = ord("x") if raw[i] != ord("x") else ord("y")
    f.write_bytes(bytes(raw))
    json.loads(f.read_text())


def test_a_hand_edited_acquired_results_file_stops_the_reader_naming_it_and_the_recovery(acquired_root):
    """The per-instance reader read data/pwb/results/ without checking it against acquired/pwb/manifest.json
    (the HITL reader does, compendium.preferences.rowlevel): a hand-edited file was analysed as if acquired.
    Now it stops with the file's name and both ways on; the accept step it names works."""
    d = acquired_root / "data" / "pwb" / "results"
    assert I.load_hf_results(d, complete=True)["model"].nunique() == 7  # as acquired: verified, read
    f = sorted(d.glob("*.json"))[3]
    _flip_one_byte(f)
    with pytest.raises(ChecksumError) as e:
        I.load_hf_results(d)
    msg = str(e.value)
    assert msg.startswith(f"{f}: sha256 ") and "changed after it was acquired" in msg, msg
    assert "`python -m compendium.data.acquire pwb`" in msg
    accept = f"`python -m compendium.data.acquire pwb --from {acquired_root / 'data' / 'pwb'}`"
    assert accept in msg and "\n" not in msg
    with pytest.raises(ChecksumError, match="changed after it was acquired"):
        overview.pwb_results_files()  # the Data chapter reads through the same check
    # the stage's path (compendium.pwb.build.Inputs.load) reads through load_hf_results: the same stop
    r = _acquire_from(acquired_root, acquired_root / "data" / "pwb")  # the accept step the message names
    assert r.returncode == 0, r.stderr
    assert I.load_hf_results(d)["model"].nunique() == 7


def test_an_unrecorded_file_put_into_the_acquired_folder_is_refused(acquired_root):
    d = acquired_root / "data" / "pwb" / "results"
    extra = d / "copy.json"
    extra.write_bytes(sorted(d.glob("*.json"))[0].read_bytes())
    with pytest.raises(ChecksumError) as e:
        I.load_hf_results(d)
    assert str(e.value).startswith(f"{extra}: not recorded in "), str(e.value)


def test_a_results_folder_outside_data_is_not_verified(tmp_path):
    """A user's own results (python -m compendium.pwb.score) and an acquisition's staging copy have no
    manifest: nothing to verify."""
    synthetic_pwb.write_snapshot(tmp_path, seed=1, size="small")
    pwbresults.verify_folder(tmp_path / "results")  # no error
    assert I.load_hf_results(tmp_path / "results")["model"].nunique() == 7


def test_the_data_chapter_counts_the_checkpoint_files_the_reader_skips(tmp_path):
    """The reader's attrs["skipped_files"] (Layer-1 checkpoints beside a complete file) was counted nowhere
    in the book; the Data chapter now says how many, and which, in escaped text."""
    d = tmp_path / "data" / "pwb" / "results"
    synthetic_pwb.write_snapshot(d.parent, seed=1, size="small")
    assert overview.pwb_results_sentence(None).data.startswith("In this build the per-instance PWB results are not")
    first = sorted(d.glob("*.json"))[0]
    data = json.loads(first.read_text())
    ckpt = {k: v for k, v in data.items() if k not in ("layer2", "layer3")}
    (d / "ckpt_*evil*`x`.json").write_text(json.dumps(ckpt))  # a file name MyST must not read as markup
    other = dict(data, model_name="Llama 3.1 70B")
    (d / "v1_llama.json").write_text(json.dumps(other))
    info = overview.pwb_results_files(tmp_path / "data")
    assert (info["files"], info["read"], info["skipped"], info["other_models"]) == (
        16,
        14,
        ["ckpt_*evil*`x`.json"],
        ["v1_llama.json"],
    )
    assert len(I.load_hf_results(d).attrs["skipped_files"]) == len(info["skipped"])  # the reader's own count
    md = overview.pwb_results_sentence(info).data
    assert "holds 16 results files" in md and "reads 14" in md and "skips 1 Layer-1 checkpoint file beside" in md
    assert "1 file of models outside the paper's seven" in md
    assert "``ckpt_*evil*`x`.json``" in md  # a code span longer than the name's backtick run: literal text
    vals = overview.overview_values(overview.file_table(), overview.table_rows(), info)
    assert vals["data.pwb.results.skipped_checkpoints"] == 1 and vals["data.pwb.results.read"] == 14
    assert "data.pwb.results.read" not in overview.overview_values(overview.file_table(), overview.table_rows())

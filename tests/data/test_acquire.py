"""Acquisition: fails fast and changes nothing without network; validates before it writes (mocked hub)."""

import json
import shutil
import time

import pytest

from compendium.data import acquire as acq
from compendium.data.errors import DataValidationError
from compendium.pipeline import paths


@pytest.fixture
def closed_hub(monkeypatch):
    # a port on loopback that nothing listens on: refused at once, on any machine, network or not
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)


def test_unreachable_hub_fails_within_seconds_and_changes_nothing(closed_hub, tmp_path):
    (tmp_path / "workbank").mkdir()
    (tmp_path / "workbank" / "keep.csv").write_text("a\n1\n")
    before = sorted(p.as_posix() for p in tmp_path.rglob("*"))
    called = []
    t0 = time.perf_counter()
    with pytest.raises(acq.HubUnreachable, match="cannot reach the Hugging Face hub at http://127.0.0.1:9"):
        acq.acquire("workbank", data_root=tmp_path, downloader=lambda *a: called.append(a))
    assert time.perf_counter() - t0 < 5
    assert called == []
    assert sorted(p.as_posix() for p in tmp_path.rglob("*")) == before


def test_cli_exit_code_and_message(closed_hub, capsys):
    t0 = time.perf_counter()
    assert acq.main(["hitl", "--timeout", "2"]) == 2
    assert time.perf_counter() - t0 < 5
    err = capsys.readouterr().err
    assert "Nothing in data/ was changed" in err and "dvc pull" in err


def test_hf_hub_offline_is_respected(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(acq.HubUnreachable, match="HF_HUB_OFFLINE"):
        acq.probe_hub()


def test_unknown_dataset_is_rejected():
    with pytest.raises(ValueError, match="unknown dataset 'nope'"):
        acq.acquire("nope")


def _fake_download(files):
    """A downloader standing in for the child process: writes ``files`` ({data relpath: text or source
    path}) to work/snap under their base names and returns the hub record with their true checksums."""

    def download(dataset, revision, work):
        wanted, meta = {}, {}
        for rel, src in files.items():
            name = rel.rsplit("/", 1)[-1]
            f = work / "snap" / name
            f.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(src, str):
                f.write_text(src)
            else:
                shutil.copyfile(src, f)
            wanted[name] = rel
            meta[name] = {"size": f.stat().st_size, "blob_id": acq.git_blob_sha1(f), "lfs_sha256": None}
        return {"sha": "0123abcd" * 5, "files": meta, "wanted": wanted}

    return download


def test_successful_refresh_writes_files_and_records_revision(monkeypatch, tmp_path):
    monkeypatch.setattr(acq, "probe_hub", lambda timeout=5: None)
    rel = "hitl/published_pair_counts.csv"
    sha = acq.acquire(
        "hitl",
        revision="v1",
        data_root=tmp_path / "data",
        acquired_root=tmp_path / "acquired",
        downloader=_fake_download({rel: paths.DATA / rel}),
    )
    assert sha == "0123abcd" * 5
    assert (tmp_path / "data" / rel).read_bytes() == (paths.DATA / rel).read_bytes()
    rec = json.loads((tmp_path / "acquired" / "hitl" / "manifest.json").read_text())
    assert rec["resolved_revision"] == sha and rec["requested_revision"] == "v1" and list(rec["files"]) == [rel]
    assert rec["files"][rel]["checked"] == "git blob SHA-1"
    assert [p.name for p in (tmp_path / "data").iterdir()] == ["hitl"]  # no staging folder left behind


def test_invalid_download_is_rejected_before_anything_is_written(monkeypatch, tmp_path):
    monkeypatch.setattr(acq, "probe_hub", lambda timeout=5: None)
    rel = "hitl/published_pair_counts.csv"
    with pytest.raises(DataValidationError, match="missing required column"):
        acq.acquire("hitl", data_root=tmp_path, downloader=_fake_download({rel: "model_x,model_y\na,b\n"}))
    assert list(tmp_path.iterdir()) == []


@pytest.fixture
def silent_hub(monkeypatch):
    """A server on loopback that accepts connections and never answers (the case per-request time-outs
    and retries do not bound)."""
    import socket
    import threading

    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    held, stop = [], threading.Event()

    def accept():
        srv.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(srv.accept()[0])
            except OSError:
                continue

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{srv.getsockname()[1]}")
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    yield
    stop.set()
    t.join(2)
    for c in held:
        c.close()
    srv.close()


def test_a_hub_that_never_answers_hits_the_total_deadline(silent_hub, tmp_path):
    before = sorted(p.as_posix() for p in tmp_path.rglob("*"))
    t0 = time.perf_counter()
    with pytest.raises(acq.HubUnreachable, match="did not finish within the 1.5 s deadline"):
        acq.acquire("workbank", data_root=tmp_path, deadline=1.5)  # the real downloader, against the silent server
    assert time.perf_counter() - t0 < 6
    assert sorted(p.as_posix() for p in tmp_path.rglob("*")) == before


def test_deadline_must_be_positive(tmp_path):
    with pytest.raises(ValueError, match="deadline must be positive"):
        acq.acquire("workbank", data_root=tmp_path, deadline=0)


def test_a_killed_acquisitions_work_folder_is_swept_and_a_live_ones_kept(tmp_path):
    import os
    import subprocess
    import sys

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    killed = tmp_path / ".acquire-pwb-killed"
    (killed / "snap").mkdir(parents=True)
    (killed / "owner.pid").write_text(dead.stdout.strip())  # that process has exited: a SIGKILLed acquisition
    live = tmp_path / ".acquire-hitl-live"
    live.mkdir()
    (live / "owner.pid").write_text(str(os.getpid()))  # this process runs: a concurrent acquisition
    fresh = tmp_path / ".acquire-workbank-fresh"  # just created, its pid not written yet
    fresh.mkdir()
    old = tmp_path / ".acquire-workbank-old"  # from a version that wrote no pid file, a day old
    old.mkdir()
    os.utime(old, (time.time() - 86400, time.time() - 86400))
    other = tmp_path / "workbank"
    other.mkdir()
    assert acq.sweep_abandoned(tmp_path) == [killed, old]
    assert not killed.exists() and not old.exists() and live.exists() and fresh.exists() and other.exists()


def test_validation_reads_the_pwb_release_and_notes_hitl_rows_without_texts(tmp_path):
    """``_validate`` checks each dataset the download brought with the stage's reader (a PWB results file that is
    not JSON is refused, naming it) and returns one note for HITL annotations without response texts."""
    from compendium.data.anomalies import DataAnomalyError
    from compendium.data.synthetic_hitl import make_study_rows
    from compendium.preferences import rowlevel

    staged = tmp_path / "staged"
    (staged / "pwb" / "results").mkdir(parents=True)
    (staged / "pwb" / "results" / "m.json").write_text("{not json")
    with pytest.raises(DataAnomalyError, match=r"pwb/results/m\.json: not valid JSON"):
        acq._validate("pwb", staged)
    (staged / "hitl").mkdir()
    rows = make_study_rows(seed=1)
    rows.to_csv(staged / "hitl" / "annotations.csv", index=False)
    assert acq._validate("hitl", staged) == []
    rows.drop(columns=["response_a", "response_b"]).to_csv(staged / "hitl" / "annotations.csv", index=False)
    assert acq._validate("hitl", staged) == [f"data/hitl/annotations.csv: {rowlevel.TEXTS_ABSENT}."]

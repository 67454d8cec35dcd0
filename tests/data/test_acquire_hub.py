"""Acquisition against a loopback hub (tests/hubmock.py): ``python -m compendium.data.acquire`` runs as a
subprocess with ``HF_ENDPOINT`` set and a fresh ``HF_HOME`` (a warm cache would skip the download and
pass a tamper test untested), on a scratch root (``COMPENDIUM_ROOT``) holding a copy of the data it needs.

Every refusal must be one sentence on stderr (no traceback) and leave ``data/`` byte-identical."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from compendium.data import acquire as acq, acquired, synthetic_hitl
from compendium.pipeline import paths

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hubmock import HubMock, git_blob_sha1  # noqa: E402

WB = [
    "workbank/domain_worker_desires.csv",
    "workbank/domain_worker_metadata.csv",
    "workbank/expert_rated_technological_capability.csv",
    "workbank/task_statement_with_metadata.csv",
]
HITL_ID = "ProlificAI/autoresearch-hitl-annotations"


def tree_digest(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def scratch(tmp_path):
    """A scratch project root with data/ holding the WORKBank CSVs and the HITL prompt list."""
    root = tmp_path / "root"
    for rel in [*WB, "hitl/prolific_prompts.json"]:
        (root / "data" / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(paths.DATA / rel, root / "data" / rel)
    (root / "acquired" / "hitl").mkdir(parents=True)
    return root


@pytest.fixture
def wb_repo(tmp_path):
    repo = tmp_path / "wb_repo"
    repo.mkdir()
    for rel in WB:
        shutil.copyfile(paths.DATA / rel, repo / rel.split("/")[1])
    return repo


def run_acquire(
    root: Path, hub_url: str, *args: str, timeout: float = 240
) -> tuple[subprocess.CompletedProcess, float]:
    hf_home = root.parent / f"hf_home_{time.monotonic_ns()}"  # fresh per run
    env = {**os.environ, "HF_ENDPOINT": hub_url, "HF_HOME": str(hf_home), "COMPENDIUM_ROOT": str(root)}
    env.pop("HF_HUB_OFFLINE", None)
    t0 = time.monotonic()
    r = subprocess.run(
        [sys.executable, "-m", "compendium.data.acquire", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=root,
    )
    return r, time.monotonic() - t0


def assert_one_sentence(stderr: str) -> None:
    assert "Traceback" not in stderr
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, stderr
    assert lines[0].startswith("error: ") and "Nothing in data/ was changed" in lines[0]


def test_git_blob_sha1_is_what_git_hash_object_gives(tmp_path):
    f = tmp_path / "x.csv"
    f.write_bytes(b"a,b\n1,2\n")
    if shutil.which("git"):
        want = subprocess.run(["git", "hash-object", str(f)], capture_output=True, text=True, check=True).stdout.strip()
    else:  # the git object format, written out: "blob <size>\0<content>"
        want = hashlib.sha1(b"blob 8\x00a,b\n1,2\n").hexdigest()
    assert acq.git_blob_sha1(f) == want == git_blob_sha1(f.read_bytes())


@pytest.mark.parametrize("kind", ["git blob SHA-1", "LFS sha256"])
def test_one_byte_tampered_same_size_file_is_refused_and_data_unchanged(scratch, wb_repo, kind):
    name = "task_statement_with_metadata.csv"
    before = tree_digest(scratch / "data")
    lfs_min = 10**9 if kind.startswith("git") else 1
    with HubMock({"SALT-NLP/WORKBank": wb_repo}, tamper={name}, lfs_min=lfs_min) as hub:
        assert (hub.repos["SALT-NLP/WORKBank"].meta(name)["lfs"] is not None) == kind.startswith("LFS")
        r, _ = run_acquire(scratch, hub.url, "workbank")
        served = [p for m, p in hub.requests if m == "GET" and p.endswith("/" + name)]
    assert served, "the file was not downloaded: the test would pass untested"
    assert r.returncode == 1, r.stderr
    assert_one_sentence(r.stderr)
    assert f"{name} does not match the hub's {kind}" in r.stderr
    assert tree_digest(scratch / "data") == before
    assert not (scratch / "acquired" / "workbank" / "manifest.json").exists()


def test_untampered_workbank_is_acquired_and_recorded(scratch, wb_repo):
    with HubMock({"SALT-NLP/WORKBank": wb_repo}, lfs_min=1_000_000) as hub:  # some files in git, some LFS
        r, _ = run_acquire(scratch, hub.url, "workbank")
        assert not any("X-Xet" in str(x) for x in hub.requests)
    assert r.returncode == 0, r.stderr
    assert "every file checked against the hub's checksums and validated" in r.stdout
    rec = json.loads((scratch / "acquired" / "workbank" / "manifest.json").read_text())
    assert sorted(rec["files"]) == WB
    kinds = {v["checked"] for v in rec["files"].values()}
    assert kinds <= {"LFS sha256", "git blob SHA-1"} and kinds == {"LFS sha256", "git blob SHA-1"}


def test_trickling_hub_ends_by_the_deadline_and_kills_the_download(scratch, wb_repo):
    before = tree_digest(scratch / "data")
    with HubMock({"SALT-NLP/WORKBank": wb_repo}, trickle=3.0) as hub:
        r, took = run_acquire(scratch, hub.url, "workbank", "--deadline", "6")
    assert r.returncode == 2, r.stderr
    assert_one_sentence(r.stderr)
    assert "did not finish within the 6 s deadline" in r.stderr and "download process was stopped" in r.stderr
    # the process ended (subprocess.run returned) soon after the deadline; interpreter start-up is the margin
    assert took < 6 + 25
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert acq.CHILD + " workbank" not in ps or str(scratch) not in ps
    assert tree_digest(scratch / "data") == before
    assert [p.name for p in (scratch / "data").iterdir() if p.name.startswith(".acquire")] == []


def test_a_hub_listing_parent_paths_is_refused_in_one_sentence(scratch, wb_repo):
    before = tree_digest(scratch / "data")
    with HubMock({"SALT-NLP/WORKBank": wb_repo}, extra_listing=["../../escaped.csv"]) as hub:
        r, _ = run_acquire(scratch, hub.url, "workbank")
    assert r.returncode == 1, r.stderr
    assert_one_sentence(r.stderr)
    assert "unsafe file path '../../escaped.csv'" in r.stderr
    assert tree_digest(scratch / "data") == before
    assert not (scratch.parent / "escaped.csv").exists() and not (scratch / "escaped.csv").exists()


def test_safe_hub_path_refuses_escapes():
    for bad in ("../x", "a/../../x", "/etc/passwd", "a\\..\\x", "", "./x", "a//b", "C:/x"):
        assert not acq.safe_hub_path(bad), bad
    for good in ("README.md", "data/annotations-00000-of-00001.parquet", "results/m/x.json"):
        assert acq.safe_hub_path(good)


def test_write_error_on_the_fourth_of_four_files_leaves_data_unchanged(monkeypatch, tmp_path, capsys):
    """The move into data/ is one transaction: a failure on the 4th file undoes the first three."""
    root = tmp_path / "data"
    for rel in WB:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes((paths.DATA / rel).read_bytes())
    before = tree_digest(root)
    monkeypatch.setattr(acq, "probe_hub", lambda timeout=5: None)

    def download(dataset, revision, work):
        files, wanted = {}, {}
        for rel in WB:
            name = rel.split("/")[1]
            f = work / "snap" / name
            f.parent.mkdir(parents=True, exist_ok=True)
            f.write_bytes((paths.DATA / rel).read_bytes() + b"\n")  # changed bytes, still valid
            files[name] = {"size": f.stat().st_size, "blob_id": acq.git_blob_sha1(f), "lfs_sha256": None}
            wanted[name] = rel
        return {"sha": "f" * 40, "files": files, "wanted": wanted}

    real_replace = os.replace
    into_data = []

    def failing_replace(src, dst):
        if Path(dst).parent == root / "workbank" and "/staged/" in str(src):
            into_data.append(dst)
            if len(into_data) == 4:
                raise PermissionError(13, "Permission denied", str(dst))
        return real_replace(src, dst)

    monkeypatch.setattr(acq.os, "replace", failing_replace)
    monkeypatch.setattr(acq, "acquire", _bind(acq.acquire, root, tmp_path / "acquired", download))
    assert acq.main(["workbank"]) == 1
    err = capsys.readouterr().err
    assert_one_sentence(err)
    assert "Permission denied" in err and "task_statement_with_metadata.csv" in err
    assert len(into_data) == 4  # three files had been moved in before the error
    assert tree_digest(root) == before
    assert not (tmp_path / "acquired" / "workbank" / "manifest.json").exists()


def _bind(fn, data_root, acquired_root, downloader):
    """``fn`` (``acquire``) with the roots and the downloader bound; what ``main`` passes goes through."""

    def bound(dataset, revision="main", timeout=5.0, deadline=900.0, source=None, **more):
        return fn(
            dataset,
            revision,
            timeout,
            data_root=data_root,
            downloader=downloader,
            deadline=deadline,
            source=source,
            acquired_root=acquired_root,
            **more,
        )

    return bound


def test_pinned_revision_must_match_the_pin(monkeypatch, tmp_path):
    f = tmp_path / "snap" / "a.csv"
    f.parent.mkdir()
    f.write_bytes(b"x\n1\n")
    files = {"a.csv": {"size": 4, "blob_id": acq.git_blob_sha1(f), "lfs_sha256": None}}
    sha = "a" * 40
    assert acq.verify_against_hub(tmp_path / "snap", files, "SALT-NLP/WORKBank", sha) == {"a.csv": "git blob SHA-1"}
    monkeypatch.setitem(acq.PINS, "workbank", {sha: {"a.csv": "0" * 64}})
    with pytest.raises(acq.AcquireError, match="differs from the pinned"):
        acq.verify_against_hub(tmp_path / "snap", files, "SALT-NLP/WORKBank", sha)


# ----------------------------------------------------------------------------------------------
# HITL: the raw parquet is kept, recorded in the local manifest, and read by the preferences reader
# ----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def hitl_release(tmp_path_factory):
    out = tmp_path_factory.mktemp("hitl_release")
    synthetic_hitl.write_release(out, seed=1, layout="parquet")
    return out


def test_hitl_from_the_hub_keeps_the_raw_parquet_and_records_it(scratch, hitl_release):
    with HubMock({HITL_ID: hitl_release}) as hub:
        r, _ = run_acquire(scratch, hub.url, "hitl")
        gets = [p for m, p in hub.requests if m == "GET"]
    assert r.returncode == 0, r.stderr
    raw = next(hitl_release.glob("data/*.parquet"))
    got = scratch / "data" / "hitl" / "annotations.parquet"
    assert got.read_bytes() == raw.read_bytes()  # not re-encoded
    assert any(p.endswith("/README.md") for p in gets)
    rec = json.loads((scratch / "acquired" / "hitl" / "manifest.json").read_text())
    assert rec["files"]["hitl/annotations.parquet"]["checked"] == "LFS sha256"
    assert rec["files"]["hitl/annotations.parquet"]["sha256"] == hashlib.sha256(raw.read_bytes()).hexdigest()
    assert rec["resolved_revision"] == hub.repos[HITL_ID].sha


def test_from_dir_applies_the_same_validation(scratch, hitl_release, tmp_path):
    # a copy with a broken row: refused, nothing changed
    bad = tmp_path / "bad"
    shutil.copytree(hitl_release, bad)
    f = next(bad.glob("data/*.parquet"))
    df = pd.read_parquet(f)
    df.loc[3, "a_model"] = "gpt-9"
    df.to_parquet(f, index=False)
    before = tree_digest(scratch / "data")
    r, _ = run_acquire(scratch, "http://127.0.0.1:9", "hitl", "--from", str(bad))
    assert r.returncode == 1
    assert_one_sentence(r.stderr)
    assert "'gpt-9'" in r.stderr
    assert tree_digest(scratch / "data") == before
    # the good copy, and the study's own export as one file
    r, _ = run_acquire(scratch, "http://127.0.0.1:9", "hitl", "--from", str(hitl_release))
    assert r.returncode == 0, r.stderr
    assert (scratch / "data" / "hitl" / "annotations.parquet").exists()
    export = synthetic_hitl.write_release(tmp_path / "export", seed=2, layout="export")
    r, _ = run_acquire(scratch, "http://127.0.0.1:9", "hitl", "--from", str(export))
    assert r.returncode == 0, r.stderr
    # the export replaces the parquet: one annotations file at a time
    assert (scratch / "data" / "hitl" / "annotations_real.json").read_bytes() == export.read_bytes()
    assert not (scratch / "data" / "hitl" / "annotations.parquet").exists()
    rec = json.loads((scratch / "acquired" / "hitl" / "manifest.json").read_text())
    assert list(rec["files"]) == ["hitl/annotations_real.json"]


def test_the_cards_response_texts_are_acquired_and_their_absence_is_noted(scratch, hitl_release, tmp_path):
    """The synthetic release has the hub card's columns (response texts as response_a / response_b): acquired as
    it is, with no note. Without either pair of text columns the file is still acquired (the texts are optional),
    and one line says which columns the two length ratios need. Half a pair is refused in one sentence."""
    from compendium.preferences import rowlevel

    r, _ = run_acquire(scratch, "http://127.0.0.1:9", "hitl", "--from", str(hitl_release))
    assert r.returncode == 0, r.stderr
    kept = pd.read_parquet(scratch / "data" / "hitl" / "annotations.parquet")
    assert {"response_a", "response_b"} <= set(kept.columns) and "a_text" not in kept.columns
    assert "note:" not in r.stdout

    def copy_with(name, drop):
        folder = tmp_path / name
        shutil.copytree(hitl_release, folder)
        f = next(folder.glob("data/*.parquet"))
        pd.read_parquet(f).drop(columns=drop).to_parquet(f, index=False)
        return folder

    r, _ = run_acquire(
        scratch, "http://127.0.0.1:9", "hitl", "--from", str(copy_with("bare", ["response_a", "response_b"]))
    )
    assert r.returncode == 0, r.stderr
    notes = [ln for ln in r.stdout.splitlines() if ln.startswith("note: ")]
    assert notes == [f"note: data/hitl/annotations.parquet: {rowlevel.TEXTS_ABSENT}."], r.stdout
    before = tree_digest(scratch / "data")
    r, _ = run_acquire(scratch, "http://127.0.0.1:9", "hitl", "--from", str(copy_with("half", ["response_b"])))
    assert r.returncode == 1
    assert_one_sentence(r.stderr)
    assert "missing column 'response_b': the file has the response text 'response_a' but not 'response_b'" in r.stderr
    assert tree_digest(scratch / "data") == before


def test_from_dir_checks_the_local_dir_download_metadata(scratch, hitl_release, tmp_path):
    """A folder from snapshot_download(local_dir=...) keeps each file's etag (sha256 for LFS files) in
    .cache/huggingface/download/: a file changed after the download is refused."""
    copy = tmp_path / "dl"
    shutil.copytree(hitl_release, copy)
    f = next(copy.glob("data/*.parquet"))
    rel = f.relative_to(copy).as_posix()
    meta = copy / ".cache" / "huggingface" / "download" / (rel + ".metadata")
    meta.parent.mkdir(parents=True)
    meta.write_text(f"{'b' * 40}\n{hashlib.sha256(f.read_bytes()).hexdigest()}\n1700000000.0\n")
    b = bytearray(f.read_bytes())
    b[-20] ^= 1
    f.write_bytes(bytes(b))
    r, _ = run_acquire(scratch, "http://127.0.0.1:9", "hitl", "--from", str(copy))
    assert r.returncode == 1
    assert_one_sentence(r.stderr)
    assert "does not match the hub's LFS sha256" in r.stderr


def test_acquired_file_added_by_hand_is_refused_until_accepted(tmp_path):
    data_root, acq_root = tmp_path / "data", tmp_path / "acquired"
    f = data_root / "hitl" / "annotations.csv"
    f.parent.mkdir(parents=True)
    f.write_text("x\n")
    with pytest.raises(
        acquired.ChecksumError, match="not recorded in .*accept it with `python -m compendium.data.acquire hitl --from"
    ):
        acquired.verify("hitl/annotations.csv", data_root, acq_root)
    acquired.write_record(
        "hitl",
        {"files": {"hitl/annotations.csv": {"sha256": hashlib.sha256(b"x\n").hexdigest(), "bytes": 2}}},
        acq_root,
    )
    assert acquired.verify("hitl/annotations.csv", data_root, acq_root) == f
    f.write_text("y\n")
    with pytest.raises(acquired.ChecksumError, match="changed after it was acquired"):
        acquired.verify("hitl/annotations.csv", data_root, acq_root)
    assert len(acquired.scan_unrecorded(data_root, acq_root)) == 1


def test_verify_dataset_checks_a_whole_acquired_folder(tmp_path):
    data_root, acq_root = tmp_path / "data", tmp_path / "acquired"
    files = {}
    for name in ("m1/a.json", "m2/b.json"):
        f = data_root / "pwb" / "results" / name
        f.parent.mkdir(parents=True)
        f.write_text(name)
        files[f"pwb/results/{name}"] = {"sha256": hashlib.sha256(name.encode()).hexdigest(), "bytes": len(name)}
    acquired.write_record("pwb", {"files": files}, acq_root)
    assert len(acquired.verify_dataset("pwb", data_root, acq_root)) == 2
    (data_root / "pwb" / "results" / "m3.json").write_text("{}")
    with pytest.raises(acquired.ChecksumError, match=r"m3.json: not recorded"):
        acquired.verify_dataset("pwb", data_root, acq_root)
    (data_root / "pwb" / "results" / "m3.json").unlink()
    (data_root / "pwb" / "results" / "m1" / "a.json").unlink()
    with pytest.raises(acquired.ChecksumError, match=r"a.json: recorded in .* but missing"):
        acquired.verify_dataset("pwb", data_root, acq_root)


def test_the_mock_hub_serves_what_datasets_load_dataset_calls(hitl_release, tmp_path):
    """The loopback hub is faithful enough for the `datasets` library too (README configs, the script and
    .huggingface.yaml probes answered 404, the data folder listing, the resolve of the data file)."""
    with HubMock({HITL_ID: hitl_release}) as hub:
        env = {**os.environ, "HF_ENDPOINT": hub.url, "HF_HOME": str(tmp_path / "hf")}
        env.pop("HF_HUB_OFFLINE", None)
        code = (
            "import datasets; ds = datasets.load_dataset("
            f"{HITL_ID!r}, 'annotations', split='train'); print(len(ds), ds[0]['participant_id'])"
        )
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
        paths_seen = [p for _, p in hub.requests]
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ["1507", "P001"]
    assert any(p.endswith("/README.md") for p in paths_seen)
    assert any("/tree/" in p and "/data" in p for p in paths_seen)

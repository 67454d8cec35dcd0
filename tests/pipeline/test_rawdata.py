"""compendium.pipeline.rawdata (python -m compendium.data.verify): which raw files differ, the corrupt-cache trap, and the guard that undoes
`dvc exp run`'s re-recording of data.dvc (the scratch-clone cases are tests/reliability/test_raw_data_guard.py)."""

import hashlib
import json
import subprocess

from compendium.pipeline import rawdata as verify


def _repo(tmp_path, files):
    root = tmp_path / "repo"
    (root / "data" / "wb").mkdir(parents=True)
    rec = {}
    for rel, body in files.items():
        (root / "data" / rel).write_bytes(body)
        rec[rel] = {"sha256": hashlib.sha256(body).hexdigest(), "bytes": len(body), "rows": None}
    manifest = root / "manifest.json"
    manifest.write_text(json.dumps({"files": rec}))
    return root, manifest


def _dvc_record(root, files):
    """data.dvc and a DVC 3 cache (.dir listing and one object per file), as `dvc add data` writes them."""
    entries = [{"md5": hashlib.md5(b).hexdigest(), "relpath": rel} for rel, b in sorted(files.items())]
    listing = json.dumps(entries).encode()
    dir_md5 = hashlib.md5(listing).hexdigest()
    cache = root / ".dvc" / "cache" / "files" / "md5"
    (cache / dir_md5[:2]).mkdir(parents=True, exist_ok=True)
    (cache / dir_md5[:2] / (dir_md5[2:] + ".dir")).write_bytes(listing)
    for e, (_, body) in zip(entries, sorted(files.items())):
        (cache / e["md5"][:2]).mkdir(exist_ok=True)
        (cache / e["md5"][:2] / e["md5"][2:]).write_bytes(body)
    (root / "data.dvc").write_text(f"outs:\n- md5: {dir_md5}.dir\n  nfiles: {len(files)}\n  hash: md5\n  path: data\n")
    return {e["relpath"]: cache / e["md5"][:2] / e["md5"][2:] for e in entries}


def test_differing_names_modified_missing_and_unrecorded_files(tmp_path):
    root, manifest = _repo(tmp_path, {"wb/a.csv": b"x,y\n1,2\n", "wb/b.csv": b"z\n3\n", "wb/c.csv": b"q\n"})
    assert verify.differing(root / "data", manifest) == []
    (root / "data" / "wb" / "a.csv").write_bytes(b"x,y\n1,3\n")  # same size, one byte
    (root / "data" / "wb" / "b.csv").unlink()
    (root / "data" / "wb" / "new.csv").write_bytes(b"n\n")
    (root / "data" / "README.md").write_text("ignored")
    assert verify.differing(root / "data", manifest) == ["wb/a.csv", "wb/b.csv", "wb/new.csv"]


def test_the_message_names_the_file_and_both_ways_on(tmp_path):
    files = {"wb/a.csv": b"x,y\n1,2\n"}
    root, manifest = _repo(tmp_path, files)
    _dvc_record(root, files)
    (root / "data" / "wb" / "a.csv").write_bytes(b"x,y\n1,3\n")
    msg = verify.message(["wb/a.csv"], root)
    assert msg.startswith("ERROR: 1 raw file(s) differ") and "data/wb/a.csv" in msg
    assert "`dvc pull --force data.dvc`" in msg and "rm -f" not in msg
    assert "python -m compendium.data.manifest --write && dvc add data" in msg


def test_a_corrupt_cache_object_is_detected_and_the_recovery_removes_it_first(tmp_path):
    files = {"wb/a.csv": b"x,y\n1,2\n", "wb/b.csv": b"z\n3\n"}
    root, manifest = _repo(tmp_path, files)
    objects = _dvc_record(root, files)
    objects["wb/a.csv"].write_bytes(b"x,y\n1,3\n")  # the cached copy is corrupt too
    (root / "data" / "wb" / "a.csv").write_bytes(b"x,y\n1,3\n")
    assert verify.corrupt_cache_objects(["wb/a.csv", "wb/b.csv"], root) == [objects["wb/a.csv"]]
    msg = verify.message(["wb/a.csv"], root)
    rel = objects["wb/a.csv"].relative_to(root)
    assert f"`rm -f {rel} data/wb/a.csv && dvc pull --force data.dvc`" in msg


def test_guard_puts_back_the_committed_data_dvc_when_the_data_differ(tmp_path):
    files = {"wb/a.csv": b"x,y\n1,2\n"}
    root, manifest = _repo(tmp_path, files)
    _dvc_record(root, files)
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "data.dvc"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "data"], cwd=root, check=True)
    committed = (root / "data.dvc").read_bytes()
    assert verify.guard(root, manifest) is None
    # what `dvc exp run` does before any stage: re-record data.dvc with the modified bytes
    (root / "data" / "wb" / "a.csv").write_bytes(b"x,y\n1,3\n")
    (root / "data.dvc").write_text("outs:\n- md5: 0123456789abcdef0123456789abcdef.dir\n  path: data\n")
    msg = verify.guard(root, manifest)
    assert "data/wb/a.csv" in msg and "re-recorded" in msg
    assert (root / "data.dvc").read_bytes() == committed
    # an unchanged data.dvc is left alone, and the message does not claim a restore
    assert "re-recorded" not in verify.guard(root, manifest)


def test_acquired_only_files_are_left_to_their_own_manifest(tmp_path):
    """The PWB per-instance results and HITL rows an acquisition brings are not in the release manifest; the
    release check must not call them 'differing' (every stage runs it), while a stray file elsewhere still is."""
    root, manifest = _repo(tmp_path, {"wb/a.csv": b"x\n1\n"})
    (root / ".dvcignore").write_text("__pycache__/\n/data/pwb/results/\n/data/hitl/annotations.*\n")
    (root / "data" / "pwb" / "results").mkdir(parents=True)
    (root / "data" / "pwb" / "results" / "m_baseline.json").write_text("{}")
    (root / "data" / "hitl").mkdir()
    (root / "data" / "hitl" / "annotations.parquet").write_bytes(b"PAR1")
    (root / "data" / "hitl" / "stray.csv").write_text("a\n")
    assert verify.acquired_only(root) == ["pwb/results/", "hitl/annotations.*"]
    assert verify.differing(root / "data", manifest) == ["hitl/stray.csv"]

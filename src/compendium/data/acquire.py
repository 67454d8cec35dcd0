"""Fetch a dataset from its canonical Hugging Face repository (needs network), or accept a copy fetched
elsewhere, verified either way.

    python -m compendium.data.acquire workbank|pwb|hitl [--revision REV] [--timeout S] [--deadline S]
    python -m compendium.data.acquire workbank|pwb|hitl --from DIR_OR_FILE

Steps: (1) probe the hub within ``--timeout`` seconds, changing nothing if it cannot be reached;
(2) a **child process** lists the dataset at ``--revision`` (default ``main``) with its files' checksums
(``dataset_info(files_metadata=True)``), refuses unsafe paths, and downloads the files the project uses into
a temporary folder inside ``data/``; the whole download must finish within ``--deadline`` seconds or the
child is killed (huggingface_hub's worker threads are not daemons, so only ending the process ends them);
(3) every file is checked **as downloaded**, before anything reads it: its size, and the sha256 the hub
publishes for LFS files or the git blob SHA-1 (``sha1(b"blob %d\\0" % len(b) + b)``) for files kept in git,
and the hashes of :data:`compendium.data.catalog.PINS` when the revision is pinned; the raw files are kept
(the HITL parquet is never re-encoded); (4) the tables are validated with the project's schemas and readers;
(5) only then the files replace their counterparts in ``data/`` as one transaction (every rename is undone
if one fails), and ``acquired/<dataset>/manifest.json`` records the commit and every file's sha256.

Every refusal is one sentence and leaves ``data/`` unchanged. Files that only an acquisition brings (PWB
``data/pwb/results/``, HITL ``data/hitl/annotations.*``) are tracked by that local manifest, never by
``data.dvc`` (see :mod:`compendium.data.acquired`); a WORKBank refresh replaces released files, so review
it and then run ``python -m compendium.data.manifest --write`` and ``dvc add data``.

**The download child dies with its parent.** It runs in a session of its own (so a terminal's Ctrl-C reaches
only the parent, which then stops it), and: SIGTERM, SIGHUP (a closed terminal) and SIGINT make the parent
unwind, killing the child's process group and removing the work folder, with one sentence; the child asks
Linux for SIGKILL when its parent dies (``prctl(PR_SET_PDEATHSIG)``, for a parent killed by SIGKILL) and
stops itself past the deadline (``alarm``) anywhere else; and the next acquisition kills an orphaned child it
finds (``child.pid`` in an abandoned ``data/.acquire-*`` folder) before it removes that folder
(:func:`sweep_abandoned`). A server error names the server's status and reason, not the connection.

``--from`` takes a folder laid out as the hub repository (e.g. a ``huggingface-cli download`` or
``snapshot_download(local_dir=...)``) or, for ``hitl``, one annotations file in any accepted layout; the
same validation applies, and the files' hashes are checked against the ``.cache/huggingface`` metadata a
``local_dir`` download leaves behind when it is there.
"""

from __future__ import annotations

import argparse
import contextlib
import fnmatch
import glob
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path, PurePosixPath
from urllib.parse import urlparse

from compendium.pipeline import paths
from compendium.pipeline.cli import visible
from compendium.pipeline.rawdata import sha256_file

from . import acquired as acq_records
from .catalog import DATASETS, PINS
from .errors import DataError

#: suffixes of the annotation files the preferences reader accepts (the raw file keeps its own)
TABLE_SUFFIXES = (".parquet", ".jsonl", ".csv", ".json")
CHILD = "_download-child"
#: the environment variable that tells the child its parent's pid (for the parent-death signal)
PARENT_ENV = "COMPENDIUM_ACQUIRE_PARENT"
CHILD_PID = "child.pid"


class HubUnreachable(RuntimeError):
    """The Hugging Face hub cannot be reached or did not deliver in time: nothing was changed."""


class AcquireError(RuntimeError):
    """The download or the local copy was refused (checksum, path, layout, validation): nothing was changed."""


def hub_endpoint() -> str:
    return os.environ.get("HF_ENDPOINT", "https://huggingface.co").rstrip("/")


def probe_hub(timeout: float = 5.0) -> None:
    """Raise :class:`HubUnreachable` unless a TCP connection to the hub opens within ``timeout`` s."""
    if os.environ.get("HF_HUB_OFFLINE", "0") not in ("0", "", "false", "False"):
        raise HubUnreachable("HF_HUB_OFFLINE is set: not contacting the Hugging Face hub")
    url = urlparse(hub_endpoint())
    host, port = url.hostname, url.port or (443 if url.scheme == "https" else 80)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as exc:
        raise HubUnreachable(f"cannot reach the Hugging Face hub at {hub_endpoint()} ({exc})") from exc


# ----------------------------------------------------------------------------------------------
# Checksums
# ----------------------------------------------------------------------------------------------


def git_blob_sha1(path: Path) -> str:
    """The git blob id of a file: ``sha1(b"blob <size>\\0" + content)`` (what the hub lists as ``blobId``)."""
    h = hashlib.sha1(f"blob {path.stat().st_size}\0".encode())
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def safe_hub_path(name: str) -> bool:
    """A repository path that stays inside the download folder: relative, POSIX, no ``..`` or empty part."""
    if not isinstance(name, str) or not name or "\\" in name or "\0" in name or name.startswith("/"):
        return False
    parts = name.split("/")
    return not any(p in ("..", ".", "") for p in parts) and ":" not in parts[0]


def verify_against_hub(root: Path, files: dict[str, dict], hf_id: str, sha: str) -> dict[str, str]:
    """Check every downloaded file (``root/<hub path>``) against the hub's listing ``files`` (``size``,
    ``blob_id``, ``lfs_sha256``) and the pins of the revision; return ``{hub path: how it was checked}``.
    Raises :class:`AcquireError` naming the first file that does not match."""
    dataset = next((k for k, v in DATASETS.items() if v["hf_id"] == hf_id), None)
    pins = PINS.get(dataset, {}).get(sha, {})
    how = {}
    for name, meta in sorted(files.items()):
        f = root / name
        if not f.is_file():
            raise AcquireError(f"{hf_id}@{sha[:12]}: {name} was listed but not downloaded")
        size = f.stat().st_size
        if meta.get("size") is not None and size != meta["size"]:
            raise AcquireError(
                f"{hf_id}@{sha[:12]}: {name} has {size} bytes, the hub lists {meta['size']}: refused (incomplete or altered)"
            )
        if meta.get("lfs_sha256"):
            got, want, kind = sha256_file(f), meta["lfs_sha256"], "LFS sha256"
        elif meta.get("blob_id"):
            got, want, kind = git_blob_sha1(f), meta["blob_id"], "git blob SHA-1"
        else:
            raise AcquireError(f"{hf_id}@{sha[:12]}: the hub publishes no checksum for {name}: refused unverified")
        if got != want:
            raise AcquireError(
                f"{hf_id}@{sha[:12]}: {name} does not match the hub's {kind} ({got[:12]}... instead of "
                f"{want[:12]}...): the download was altered in transit or by the server; refused"
            )
        how[name] = kind
        if name in pins:
            pinned = sha256_file(f)
            if pinned != pins[name]:
                raise AcquireError(
                    f"{hf_id}@{sha[:12]}: {name} sha256 {pinned[:12]}... differs from the pinned "
                    f"{pins[name][:12]}... (compendium.data.catalog.PINS): refused"
                )
            how[name] += " + pin"
    missing_pins = sorted(set(pins) - set(files))
    if missing_pins:
        raise AcquireError(f"{hf_id}@{sha[:12]}: pinned file(s) {missing_pins[:5]} are not in the download")
    return how


# ----------------------------------------------------------------------------------------------
# Which hub files the project uses, and where they go under data/
# ----------------------------------------------------------------------------------------------


def readme_configs(text: str) -> dict[str, list[str]]:
    """``{config name: [data_files patterns]}`` from a dataset card's YAML front matter (``configs:``)."""
    import yaml

    from compendium.pipeline import yamlfile

    if not text.startswith("---"):
        return {}
    end = text.find("\n---", 3)
    if end < 0:
        return {}
    try:
        meta = yamlfile.loads(text[3:end], "README.md") or {}  # aliases bounded (a bomb is a YAMLError)
    except yaml.YAMLError:
        return {}
    out: dict[str, list[str]] = {}
    for cfg in meta.get("configs") or []:
        if not isinstance(cfg, dict) or "config_name" not in cfg:
            continue
        df = cfg.get("data_files")
        pats: list[str] = []
        for item in df if isinstance(df, list) else [df]:
            if isinstance(item, str):
                pats.append(item)
            elif isinstance(item, dict):
                p = item.get("path")
                pats += p if isinstance(p, list) else [p] if isinstance(p, str) else []
        out[str(cfg["config_name"])] = pats
    return out


def plan(dataset: str, names: list[str], readme: str | None, where: str) -> dict[str, str]:
    """``{hub path: target path under data/}`` for ``dataset`` given the repository's file ``names`` (and
    its README text, for the HITL configs). Raises :class:`AcquireError` when an expected file is absent."""
    spec = DATASETS[dataset]
    out: dict[str, str] = {}
    for src, target in spec.get("hf_files", {}).items():
        hit = sorted(n for n in names if n == src or n.endswith("/" + src))
        if not hit:
            raise AcquireError(f"{where}: expected file {src} is not in the dataset")
        out[hit[0]] = target
    for src, target in spec.get("hf_dirs", {}).items():
        hit = sorted(n for n in names if n.startswith(src.rstrip("/") + "/"))
        if not hit:
            raise AcquireError(f"{where}: expected folder {src}/ is not in the dataset (or is empty)")
        for n in hit:
            out[n] = target + n[len(src.rstrip("/")) :]
    configs = readme_configs(readme) if readme else {}
    for config, stem in spec.get("hf_configs", {}).items():
        pats = configs.get(config)
        if pats:
            hit = sorted({n for n in names for p in pats if fnmatch.fnmatchcase(n, p)})
        else:  # no card: the conventional data/<config>*.<ext> or <config>.<ext>
            hit = sorted(
                n
                for n in names
                if PurePosixPath(n).suffix in TABLE_SUFFIXES
                and (PurePosixPath(n).stem == config or PurePosixPath(n).stem.startswith(config + "-"))
            )
        hit = [n for n in hit if PurePosixPath(n).suffix in TABLE_SUFFIXES]
        if config == "annotations" and not hit:
            raise AcquireError(f"{where}: no data file for config {config!r} (README.md configs: {sorted(configs)})")
        if len(hit) > 1:
            raise AcquireError(
                f"{where}: config {config!r} has {len(hit)} data files {hit[:4]}; the project keeps one raw file "
                "per config"
            )
        for n in hit:
            out[n] = stem + PurePosixPath(n).suffix
    return out


# ----------------------------------------------------------------------------------------------
# The child process: list, check paths, download
# ----------------------------------------------------------------------------------------------


_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _die_with_parent(parent: int, deadline: float) -> bool:
    """In the child, first thing: have the kernel send SIGKILL when the parent dies (Linux's
    ``prctl(PR_SET_PDEATHSIG)``, through ctypes), then check the parent is still the one that started it
    (it may have died before the call: then False, and the child leaves). Elsewhere, and as a backstop, an
    ``alarm`` ends the child a little after the deadline its parent enforces."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if hasattr(signal, "alarm") and deadline > 0:
        signal.alarm(int(deadline) + 30)
    return not parent or os.getppid() == parent


def _http_status(exc: BaseException) -> str | None:
    """``"HTTP 500 Internal Server Error for <url>"`` from the first exception in ``exc``'s chain that carries
    a server response (huggingface_hub wraps a failed file request in "check your connection")."""
    from http import HTTPStatus

    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        resp = getattr(exc, "response", None)
        code = getattr(resp, "status_code", None)
        if isinstance(code, int):
            reason = getattr(resp, "reason", None) or getattr(resp, "reason_phrase", None)
            if not reason:
                try:
                    reason = HTTPStatus(code).phrase
                except ValueError:
                    reason = ""
            url = str(getattr(resp, "url", "") or "")
            return f"HTTP {code} {reason}".strip() + (f" for {url}" if url else "")
        exc = exc.__cause__ or exc.__context__
    return None


def _child(dataset: str, revision: str, work: Path) -> int:
    """Runs in its own process (killed at the deadline). Writes ``work/child.pid`` (once it is bound to die
    with its parent), ``work/hub.json`` and ``work/snap/``."""
    deadline = float(os.environ.get(PARENT_ENV + "_DEADLINE", "0") or 0)
    if not _die_with_parent(int(os.environ.get(PARENT_ENV, "0") or 0), deadline):
        return 3  # the parent is gone already: nobody waits for this download
    (work / CHILD_PID).write_text(str(os.getpid()))
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    try:
        from huggingface_hub import HfApi, hf_hub_download, snapshot_download

        hf_id, endpoint = DATASETS[dataset]["hf_id"], hub_endpoint()
        info = HfApi(endpoint=endpoint).dataset_info(hf_id, revision=revision, files_metadata=True)
        sha = info.sha
        where = f"{hf_id}@{str(sha)[:12]}"
        siblings = list(info.siblings or [])
        bad = [s.rfilename for s in siblings if not safe_hub_path(s.rfilename)]
        if bad:
            raise AcquireError(
                f"{where}: the hub lists an unsafe file path {bad[0]!r} (outside the dataset folder): refused"
            )
        files = {
            s.rfilename: {
                "size": s.size,
                "blob_id": s.blob_id,
                "lfs_sha256": (s.lfs.sha256 if s.lfs is not None else None),
            }
            for s in siblings
        }
        snap = work / "snap"
        readme = None
        if "README.md" in files and DATASETS[dataset].get("hf_configs"):
            readme = Path(
                hf_hub_download(
                    hf_id, "README.md", repo_type="dataset", revision=sha, local_dir=snap, endpoint=endpoint
                )
            ).read_text(errors="replace")
        wanted = plan(dataset, sorted(files), readme, where)
        if readme is not None:
            wanted.setdefault("README.md", "")  # verified like the rest, not kept
        snapshot_download(
            hf_id,
            repo_type="dataset",
            revision=sha,
            local_dir=snap,
            allow_patterns=[glob.escape(n) for n in wanted],
            endpoint=endpoint,
        )
        (work / "hub.json").write_text(
            json.dumps({"sha": sha, "files": {n: files[n] for n in wanted}, "wanted": wanted}, indent=1)
        )
        return 0
    except AcquireError as exc:
        print(str(exc), file=sys.stderr)
        return 3
    except Exception as exc:  # noqa: BLE001 - the child reports one sentence, never a traceback
        status = _http_status(exc)
        if status and status.startswith("HTTP 5"):
            print(
                f"the hub at {hub_endpoint()} answered {status} (a server error, not your connection); try again "
                "later, or download the dataset elsewhere and accept it with --from",
                file=sys.stderr,
            )
            return 3
        msg = " ".join(str(exc).split())[:400]
        print(f"the download from {hub_endpoint()} failed: {type(exc).__name__}: {msg}", file=sys.stderr)
        return 3


def _run_child(dataset: str, revision: str, work: Path, deadline: float) -> None:
    """Run :func:`_child` in a subprocess (own process group), kill it at ``deadline`` seconds."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).resolve().parents[2]), env.get("PYTHONPATH", "")]).rstrip(
        os.pathsep
    )
    env[PARENT_ENV], env[PARENT_ENV + "_DEADLINE"] = str(os.getpid()), str(deadline)
    err = work / "child.stderr"
    with open(err, "wb") as fh:
        proc = subprocess.Popen(
            [sys.executable, "-m", "compendium.data.acquire", CHILD, dataset, revision, str(work)],
            stdout=subprocess.DEVNULL,
            stderr=fh,
            env=env,
            start_new_session=True,
        )
        try:
            rc = proc.wait(timeout=deadline)
        except BaseException as exc:  # the deadline, or Ctrl-C: the child (own session) must not outlive us
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()
            if not isinstance(exc, subprocess.TimeoutExpired):
                raise
            raise HubUnreachable(
                f"the download did not finish within the {deadline:g} s deadline ({hub_endpoint()} accepted the "
                "connection but did not deliver); the download process was stopped"
            ) from None
    if rc != 0:
        lines = [ln for ln in err.read_text(errors="replace").splitlines() if ln.strip()]
        raise AcquireError(lines[-1] if lines else f"the download process ended with status {rc}")


# ----------------------------------------------------------------------------------------------
# A copy fetched elsewhere (--from)
# ----------------------------------------------------------------------------------------------


def _local_dir_metadata(src: Path, name: str) -> dict | None:
    """The ``.cache/huggingface/download/<name>.metadata`` a ``local_dir`` download writes (commit, etag)."""
    m = src / ".cache" / "huggingface" / "download" / (name + ".metadata")
    if not m.is_file():
        return None
    lines = m.read_text(errors="replace").splitlines()
    return {"commit": lines[0].strip(), "etag": lines[1].strip()} if len(lines) >= 2 else None


def _from_local(dataset: str, src: Path, work: Path) -> dict:
    """Copy a local snapshot (folder) or, for ``hitl``, one annotations file into ``work/snap``; return the
    hub-like record (``sha``, ``files`` with the checksums we could establish, ``wanted``)."""
    snap = work / "snap"
    if not src.exists():
        raise AcquireError(f"{src}: no such file or folder")
    if src.is_file():
        if dataset != "hitl" or src.suffix not in TABLE_SUFFIXES:
            raise AcquireError(
                f"{src}: --from takes a folder laid out as the hub dataset"
                + (" or one annotations file (.parquet, .jsonl, .csv, .json)" if dataset == "hitl" else "")
            )
        snap.mkdir(parents=True)
        shutil.copyfile(src, snap / src.name)
        target = "hitl/annotations_real.json" if src.suffix == ".json" else "hitl/annotations" + src.suffix
        wanted = {src.name: target}
        names = [src.name]
    else:
        names = sorted(
            p.relative_to(src).as_posix()
            for p in src.rglob("*")
            if p.is_file() and not p.relative_to(src).as_posix().startswith(".cache/")
        )
        readme = (src / "README.md").read_text(errors="replace") if (src / "README.md").is_file() else None
        wanted = plan(dataset, names, readme, str(src))
        for n in wanted:
            (snap / n).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src / n, snap / n)
    files, commits = {}, set()
    for n in wanted:
        meta = _local_dir_metadata(src, n) if src.is_dir() else None
        rec: dict = {"size": (snap / n).stat().st_size, "blob_id": None, "lfs_sha256": None}
        if meta:
            commits.add(meta["commit"])
            etag = meta["etag"].strip('"')
            rec["lfs_sha256" if len(etag) == 64 else "blob_id"] = etag
        else:  # no record of the hub's checksum: the file is taken as given, and its sha256 recorded
            rec["lfs_sha256"] = sha256_file(snap / n)
            rec["unverified"] = True
        files[n] = rec
    sha = commits.pop() if len(commits) == 1 else "local"
    return {"sha": sha, "files": files, "wanted": wanted, "names": names}


# ----------------------------------------------------------------------------------------------
# Validation, transaction, record
# ----------------------------------------------------------------------------------------------


def _validate(dataset: str, staged: Path) -> list[str]:
    """Parse and validate what the download brought, with the readers the stages use; return the notes on what
    it lacks that the stages would use (HITL annotations without response texts, in either pair of names the
    reader takes: ``response_a`` / ``response_b`` as the hub's card lists them, or ``a_text`` / ``b_text``)."""
    from .load import load_table
    from .schema import ALL_TABLES

    notes = []
    for name, spec in ALL_TABLES.items():
        if spec.relpath.startswith(dataset + "/") and (staged / spec.relpath).exists():
            load_table(name, root=staged, verify=False)
    if dataset == "hitl":
        from ..preferences import rowlevel

        for p in sorted((staged / "hitl").glob("annotations*")):
            prompts = None
            try:
                from . import load_hitl_prompts

                prompts = load_hitl_prompts()
            except (DataError, OSError):
                prompts = None
            norm = rowlevel.normalise_annotations(rowlevel.read_annotations(p), prompts=prompts)
            if norm.attrs["text_columns"] is None:
                notes.append(f"data/{p.relative_to(staged).as_posix()}: {rowlevel.TEXTS_ABSENT}.")
    if dataset == "pwb" and (staged / "pwb" / "results").is_dir():
        from ..pwb import instances

        # the stage reads it so: the checks of the files and of the release (all 7 models x 2 conditions)
        instances.load_hf_results(staged / "pwb" / "results", complete=True, verify=False)
    return notes


def _units(dataset: str, targets: list[str]) -> list[str]:
    """What is replaced as a whole: each acquired-only folder (``pwb/results``), else each file."""
    units = []
    for t in targets:
        folder = next(
            (p for p in acq_records.acquired_paths(dataset) if t.startswith(p.rstrip("/") + "/")),
            None,
        )
        u = folder or t
        if u not in units:
            units.append(u)
    return units


def _group(rel: str) -> str:
    """``hitl/annotations.parquet``, ``hitl/annotations_real.json`` -> ``hitl/annotations``."""
    head, _, name = rel.rpartition("/")
    return f"{head}/{name.split('.')[0].removesuffix('_real')}"


def commit(staged: Path, data_root: Path, units: list[str], remove: list[str], backup: Path):
    """Move ``staged/<unit>`` to ``data_root/<unit>`` for every unit and set ``remove`` aside, as one
    transaction: the current files are first moved into ``backup``; on any error every rename is undone
    (in reverse order) and the error re-raised, so ``data_root`` is as before. Returns the undo function."""
    done: list[tuple[Path, Path]] = []  # (from, to) renames performed, to undo in reverse

    def undo():
        for a, b in reversed(done):
            try:
                os.replace(b, a)
            except OSError:
                pass

    try:
        for rel in [*units, *remove]:
            target = data_root / rel
            if target.exists() or target.is_symlink():
                (backup / rel).parent.mkdir(parents=True, exist_ok=True)
                os.replace(target, backup / rel)
                done.append((target, backup / rel))
        for rel in units:
            target = data_root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(staged / rel, target)
            done.append((staged / rel, target))
    except BaseException:
        undo()
        raise
    return undo


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    try:  # a zombie (dead, not yet reaped) does not run
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def _end_orphan(work: Path, wait: float = 10.0) -> bool:
    """Kill the download child of the abandoned work folder ``work`` if it still runs (its parent was killed
    where no parent-death signal exists, or before the child could ask for one): the process named by
    ``work/child.pid``, only if its command line is this module's child for ``work`` (a pid may have been
    reused), with its process group. Waits until it has gone; True if one was ended."""
    import time

    try:
        pid = int((work / CHILD_PID).read_text())
        args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except (OSError, ValueError):
        return False
    if CHILD.encode() not in args or os.fsencode(work) not in args or not _alive(pid):
        return False
    try:
        os.killpg(pid, signal.SIGKILL)  # the child leads its own session, and so its process group
    except ProcessLookupError:
        return False
    except PermissionError:
        os.kill(pid, signal.SIGKILL)
    end = time.monotonic() + wait
    while _alive(pid) and time.monotonic() < end:
        time.sleep(0.05)
    return True


def sweep_abandoned(data_root: Path, grace: float = 60.0) -> list[Path]:
    """Remove the work folders (``data/.acquire-*``) of acquisitions that were killed (SIGKILL, a power cut)
    before they could clean up: those whose ``owner.pid`` names a process that no longer runs, or, without
    that file, older than ``grace`` seconds (the moment between creating the folder and writing the file).
    A download child still running in one is killed first (:func:`_end_orphan`). A concurrent acquisition's
    folder is left alone. Returns what was removed."""
    import time

    gone = []
    for work in sorted(Path(data_root).glob(".acquire-*")):
        if not work.is_dir() or work.is_symlink():
            continue
        pid_file = work / "owner.pid"
        try:
            abandoned = not _alive(int(pid_file.read_text()))
        except (OSError, ValueError):
            abandoned = time.time() - work.stat().st_mtime > grace
        if abandoned:
            _end_orphan(work)
            shutil.rmtree(work, ignore_errors=True)
            gone.append(work)
    return gone


@contextlib.contextmanager
def _signals_held():
    """Hold SIGINT, SIGTERM and SIGHUP back during the block; they are delivered after it."""
    sigs = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
    old = signal.pthread_sigmask(signal.SIG_BLOCK, sigs)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


class Interrupted(KeyboardInterrupt):
    """SIGTERM or SIGHUP (a closed terminal) received: unwind like Ctrl-C, so the download child is killed
    and the work folder removed."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _raise_interrupted(signum, frame):
    raise Interrupted(signum)


def acquire(
    dataset: str,
    revision: str = "main",
    timeout: float = 5.0,
    data_root: Path | None = None,
    downloader=None,
    deadline: float = 900.0,
    source: Path | None = None,
    acquired_root: Path | None = None,
    notes: list[str] | None = None,
) -> str:
    """Fetch ``dataset`` (or take it from ``source``), verify, validate and move it into ``data/``; return the
    resolved revision. Changes nothing on failure. ``notes``, when given, receives one sentence for each thing
    the acquired files lack that a stage would use (:func:`_validate`; the command prints them).

    ``timeout`` bounds the first connection, ``deadline`` the whole download (seconds). ``downloader`` (for
    tests) replaces the child process: ``downloader(dataset, revision, work)`` must fill ``work/snap`` and
    return the hub record (``sha``, ``files``, ``wanted``)."""
    if dataset not in DATASETS:
        raise ValueError(f"unknown dataset {dataset!r}; choose one of {sorted(DATASETS)}")
    if deadline <= 0:
        raise ValueError(f"deadline must be positive, got {deadline}")
    data_root = Path(data_root) if data_root is not None else paths.DATA
    hf_id = DATASETS[dataset]["hf_id"]
    if source is None:
        probe_hub(timeout)
        os.environ.setdefault("HF_HUB_ETAG_TIMEOUT", str(max(1, int(timeout))))
        os.environ.setdefault("HF_HUB_DOWNLOAD_TIMEOUT", str(max(1, int(timeout))))
    data_root.mkdir(parents=True, exist_ok=True)
    sweep_abandoned(data_root)
    work = Path(tempfile.mkdtemp(prefix=f".acquire-{dataset}-", dir=data_root))
    committed = False
    try:
        (work / "owner.pid").write_text(str(os.getpid()))
        if source is not None:
            hub = _from_local(dataset, Path(source), work)
        elif downloader is not None:
            hub = downloader(dataset, revision, work)
        else:
            _run_child(dataset, revision, work, deadline)
            hub = json.loads((work / "hub.json").read_text())
        sha, wanted = hub["sha"], hub["wanted"]
        bad = [n for n in [*hub["files"], *wanted] if not safe_hub_path(n)]
        if bad:
            raise AcquireError(f"{hf_id}: unsafe file path {bad[0]!r} (outside the dataset folder): refused")
        how = verify_against_hub(work / "snap", hub["files"], hf_id, sha)
        staged = work / "staged"
        for name, target in wanted.items():
            if not target:
                continue
            (staged / target).parent.mkdir(parents=True, exist_ok=True)
            os.replace(work / "snap" / name, staged / target)
        lacking = _validate(dataset, staged)
        targets = sorted(t for t in wanted.values() if t)
        units = _units(dataset, targets)
        groups = {_group(t) for t in targets}
        others = [
            p
            for p in acq_records.acquired_paths(dataset)
            if p not in units and _group(p) in groups and (data_root / p).exists()
        ]
        inv = {t: n for n, t in wanted.items() if t}
        record = {
            "dataset": dataset,
            "hf_id": hf_id,
            "endpoint": hub_endpoint() if source is None else None,
            "source": str(source) if source is not None else None,
            "requested_revision": revision if source is None else None,
            "resolved_revision": sha,
            "files": {
                t: {
                    "sha256": sha256_file(staged / t),
                    "bytes": (staged / t).stat().st_size,
                    "hub_path": inv[t],
                    "checked": "taken as given (no hub checksum available)"
                    if hub["files"][inv[t]].get("unverified")
                    else how[inv[t]],
                }
                for t in targets
            },
        }
        # the record is written beside its place first, so that a write error there changes nothing
        final = acq_records.manifest_path(dataset, acquired_root)
        final.parent.mkdir(parents=True, exist_ok=True)
        tmp = final.with_name(f".{final.name}.tmp{os.getpid()}")
        tmp.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
        try:
            with _signals_held():  # the files and their record go in together: a SIGTERM waits for both
                undo = commit(staged, data_root, units, others, work / "backup")
                try:
                    os.replace(tmp, final)
                except BaseException:
                    undo()
                    raise
                committed = True
        finally:
            tmp.unlink(missing_ok=True)
        if notes is not None:
            notes.extend(lacking)
        return sha
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM/SIGHUP through main's handler
        exc.committed = committed  # so the message says whether data/ changed
        raise
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    from compendium.pipeline.cli import safe_output

    safe_output()  # a terminal without UTF-8 gets escapes, not a UnicodeEncodeError
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == [CHILD]:
        return _child(argv[1], argv[2], Path(argv[3]))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dataset", choices=sorted(DATASETS))
    ap.add_argument("--revision", default="main", help="hub branch, tag or commit (default: main)")
    ap.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for the hub (default 5)")
    ap.add_argument(
        "--deadline",
        type=float,
        default=900.0,
        help="seconds the whole download may take before the download process is killed (default 900)",
    )
    ap.add_argument(
        "--from",
        dest="source",
        type=Path,
        default=None,
        help="take the data from this folder (laid out as the hub dataset) or, for hitl, this annotations file",
    )
    args = ap.parse_args(argv)
    before = {sig: signal.signal(sig, _raise_interrupted) for sig in (signal.SIGTERM, signal.SIGHUP)}
    notes: list[str] = []
    try:
        sha = acquire(
            args.dataset, args.revision, args.timeout, deadline=args.deadline, source=args.source, notes=notes
        )
    except KeyboardInterrupt as exc:
        name = exc.args[0] if isinstance(exc, Interrupted) else "SIGINT"
        code = 128 + getattr(exc, "signum", signal.SIGINT)
        if getattr(exc, "committed", False):
            msg = (
                f"{args.dataset}: interrupted ({name}) just after the acquisition was complete: data/ holds it, "
                f"recorded in {acq_records.manifest_path(args.dataset)}."
            )
        else:
            msg = (
                f"error: {args.dataset}: interrupted ({name}); the download process was stopped and its work folder "
                "removed. Nothing in data/ was changed; run the same command again to acquire it."
            )
        with contextlib.suppress(OSError):  # a closed terminal (SIGHUP) has nowhere to print
            print(msg, file=sys.stderr)
        return code
    except HubUnreachable as exc:
        print(
            f"error: {exc}. Nothing in data/ was changed. Offline, restore the bundled copy with "
            "`dvc pull data.dvc` (the DVC remote ships with the repository).",
            file=sys.stderr,
        )
        return 2
    except (AcquireError, DataError, OSError, ValueError) as exc:
        msg = visible(" ".join(str(exc).split()), inline=True)  # a server's or a file's text, shown visibly
        print(f"error: {args.dataset}: {msg}. Nothing in data/ was changed.", file=sys.stderr)
        return 1
    finally:  # main may run inside another program (the tests): give it its handlers back
        for sig, handler in before.items():
            signal.signal(sig, handler)
    spec = DATASETS[args.dataset]
    origin = str(args.source) if args.source is not None else spec["hf_id"]
    nxt = (
        "Next: review `git diff`/`dvc diff`, then `python -m compendium.data.manifest --write` and `dvc add data`."
        if not spec.get("acquired_paths")
        else f"Recorded in {acq_records.manifest_path(args.dataset)} (not in data.dvc); `dvc repro` re-runs the "
        "stages that read these files."
    )
    rec = acq_records.read_record(args.dataset) or {"files": {}}
    given = sorted(k for k, v in rec["files"].items() if str(v.get("checked", "")).startswith("taken as given"))
    how = (
        "every file checked against the hub's checksums and validated"
        if not given
        else f"validated; {len(given)} file(s) had no hub checksum to compare with and were recorded as given"
    )
    print(f"{args.dataset}: acquired from {origin} at revision {sha}, {how}.\n{nxt}")
    for note in notes:  # what the files lack that a stage would use (their names are the project's or the hub's)
        print(f"note: {visible(note, inline=True)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

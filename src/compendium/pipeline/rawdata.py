"""Is ``data/`` the recorded raw data? One fast check, one message, a recovery that works as printed.

    python -m compendium.data.verify            # exit 0: every raw file matches the manifest
    python -m compendium.data.verify --quiet    # print only when something is wrong

(The command lives in ``compendium.data``; the check is here, outside that package, so that it imports
no pandas: ``make reset`` and every stage run it first, and it takes a few hundredths of a second.)

``dvc repro`` cannot see a changed raw file (the stages depend on the manifest, not on ``data/``, so that a
pipeline run never re-records ``data.dvc``), so every place that runs code checks here first: ``make data``
and ``make reproduce`` (before ``dvc pull``), the ``params`` stage and every stage of the stage runner.
The message names each file that differs and both ways on:

- **restore** the recorded bytes: ``dvc pull --force data.dvc``. Two traps are detected and the printed
  command covers them: a **corrupt DVC cache object** (its bytes no longer match its name, so ``dvc pull``
  would copy the corrupt bytes back and call it up to date): the command first removes the bad cache
  object(s) and the file(s); and a **re-recorded** ``data.dvc`` (``dvc exp run`` commits data-only ``.dvc``
  files before it runs anything, so it saves a modified raw file as new data): :func:`guard` puts back the
  committed ``data.dvc`` (``git show HEAD:data.dvc``) and the command restores the data it records;
- **accept** new data on purpose: ``python -m compendium.data.manifest --write && dvc add data``, then
  commit ``src/compendium/data/manifest.json`` and ``data.dvc`` together.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from pathlib import Path

from compendium.pipeline import paths

MANIFEST = Path(__file__).resolve().parents[1] / "data" / "manifest.json"  # as compendium.data.load records it


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


SKIP = {"README.md", ".gitignore"}


def acquired_only(repo: Path | None = None) -> list[str]:
    """The ``.dvcignore`` patterns under ``/data/``: files only an acquisition brings (the PWB per-instance
    results, the HITL rows). They are not part of the release, so the release manifest does not list them;
    ``acquired/<dataset>/manifest.json`` vouches for them instead (``compendium.data.acquired``)."""
    f = Path(repo if repo is not None else paths.ROOT) / ".dvcignore"
    lines = f.read_text().splitlines() if f.is_file() else []
    return [ln.strip()[len("/data/") :] for ln in lines if ln.strip().startswith("/data/")]


def _is_acquired(rel: str, patterns: list[str]) -> bool:
    import fnmatch

    return any(rel.startswith(p) if p.endswith("/") else fnmatch.fnmatchcase(rel, p) for p in patterns)


ACCEPT = (
    "to accept the new data on purpose: `python -m compendium.data.manifest --write && dvc add data`, then "
    "commit src/compendium/data/manifest.json and data.dvc together"
)


def differing(root: Path | None = None, manifest: Path | None = None) -> list[str]:
    """Paths under ``data/`` (relative) that are modified, missing or unrecorded, compared with the manifest;
    acquired-only files (:func:`acquired_only`) are left to their own manifest."""
    root = Path(root) if root is not None else paths.DATA
    recorded = json.loads(Path(manifest or MANIFEST).read_text())["files"]
    acquired = acquired_only(root.parent)
    found = {
        p.relative_to(root).as_posix(): p
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name not in SKIP and not p.relative_to(root).as_posix().startswith(".")
    }
    found = {rel: p for rel, p in found.items() if not _is_acquired(rel, acquired)}
    bad = []
    for rel in sorted(set(found) | set(recorded)):
        if rel not in found or rel not in recorded:
            bad.append(rel)
            continue
        f = found[rel]
        if (
            f.stat().st_size != recorded[rel].get("bytes", f.stat().st_size)
            or sha256_file(f) != recorded[rel]["sha256"]
        ):
            bad.append(rel)
    return bad


def _md5(p: Path) -> str:
    h = hashlib.md5()
    with open(p, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _cache_object(md5: str, root: Path) -> Path:
    return root / ".dvc" / "cache" / "files" / "md5" / md5[:2] / md5[2:]


def _recorded_dir_md5(text: str) -> str | None:
    for line in text.splitlines():
        line = line.strip().removeprefix("- ")
        if line.startswith("md5:") and line.endswith(".dir"):
            return line.split(":", 1)[1].strip().removesuffix(".dir")
    return None


def corrupt_cache_objects(files: list[str], root: Path | None = None) -> list[Path]:
    """The DVC cache objects of ``files`` (as ``data.dvc`` records them) whose bytes no longer match their
    md5 name: ``dvc pull --force`` would restore those corrupt bytes and report success."""
    root = Path(root) if root is not None else paths.ROOT
    dvc_file = root / "data.dvc"
    dir_md5 = _recorded_dir_md5(dvc_file.read_text()) if dvc_file.exists() else None
    if not dir_md5:
        return []
    listing = _cache_object(dir_md5, root).with_name(dir_md5[2:] + ".dir")
    try:
        entries = {e["relpath"]: e["md5"] for e in json.loads(listing.read_text())}
    except (OSError, ValueError, KeyError, TypeError):
        return []
    bad = []
    for rel in files:
        md5 = entries.get(rel)
        obj = _cache_object(md5, root) if md5 else None
        if obj is not None and obj.is_file() and _md5(obj) != md5:
            bad.append(obj)
    return bad


def committed_data_dvc(root: Path | None = None) -> bytes | None:
    """``data.dvc`` as committed at HEAD (None outside a git checkout)."""
    root = Path(root) if root is not None else paths.ROOT
    p = subprocess.run(["git", "show", "HEAD:data.dvc"], cwd=root, capture_output=True)
    return p.stdout if p.returncode == 0 else None


def message(bad: list[str], root: Path | None = None, restored_record: bool = False) -> str:
    """The documented message: which files differ, and the recovery that works as printed."""
    import shlex

    from compendium.pipeline.cli import visible

    root = Path(root) if root is not None else paths.ROOT
    # a file name is data: shown with its control characters visible, and quoted in a command to copy
    shown = ", ".join(visible(f"data/{b}", inline=True) for b in bad[:5])
    shown += f" and {len(bad) - 5} more" if len(bad) > 5 else ""
    corrupt = corrupt_cache_objects(bad, root)
    if corrupt:
        rm = " ".join(str(p.relative_to(root)) for p in corrupt)
        files = " ".join(visible(shlex.quote(f"data/{b}"), inline=True) for b in bad if (root / "data" / b).exists())
        restore = f"`rm -f {rm} {files} && dvc pull --force data.dvc` (the DVC cache copy is corrupt too)"
    else:
        restore = "`dvc pull --force data.dvc`"
    note = (
        " data.dvc had been re-recorded with the modified data (dvc exp run does that before it runs a stage); "
        "the committed data.dvc was put back."
        if restored_record
        else ""
    )
    return (
        f"ERROR: {len(bad)} raw file(s) differ from the recorded data (src/compendium/data/manifest.json): "
        f"{shown}.{note} Restore the recorded data with {restore}; {ACCEPT}."
    )


def guard(root: Path | None = None, manifest: Path | None = None) -> str | None:
    """The check every stage runs first: None when ``data/`` is the recorded data, else the message. When the
    data differ and ``data.dvc`` differs from HEAD's (re-recorded by ``dvc exp run``), put HEAD's back."""
    root = Path(root) if root is not None else paths.ROOT
    if not (root / "data").is_dir():
        return (
            "ERROR: data/ is missing. Restore the recorded raw data with `dvc pull data.dvc` "
            "(from the repository root)."
        )
    bad = differing(root / "data", manifest)
    if not bad:
        return None
    restored = False
    committed = committed_data_dvc(root)
    dvc_file = root / "data.dvc"
    if committed is not None and dvc_file.exists() and dvc_file.read_bytes() != committed:
        dvc_file.write_bytes(committed)
        restored = True
    return message(bad, root, restored)


def main(argv: list[str] | None = None) -> int:
    from compendium.pipeline.cli import safe_output

    safe_output()  # a terminal without UTF-8 gets escapes, not a UnicodeEncodeError
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quiet", action="store_true", help="print only when something is wrong")
    args = ap.parse_args(argv)
    msg = guard()
    if msg:
        print(msg, file=sys.stderr)
        return 1
    if not args.quiet:
        n = len(json.loads(MANIFEST.read_text())["files"])
        print(f"data/: all {n} recorded raw files verified")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Which claims changed between a git revision and this build: ``python -m compendium.claims diff REV``.

Results are not committed (DVC caches them locally), so the claims table of ``REV`` is found in one of
two ways, tried in this order and named in the output:

1. **DVC cache.** ``REV``'s ``dvc.lock`` names the hash of ``results/claims`` (a DVC directory object).
   If this checkout's DVC cache holds it (it does for every revision reproduced in this checkout, and
   for a queued or applied experiment), ``claims.csv`` is read from the cache: well under a second.
2. **Recompute.** Otherwise ``REV`` is checked out into a temporary git worktree that shares this
   checkout's DVC cache and ``.venv``, its data are restored from the bundled remote and its claims
   stage is reproduced (``dvc repro claims``; DVC's run cache skips the stages it has already run with
   the same inputs, otherwise this takes about as long as a forced ``dvc repro``). The worktree is removed
   afterwards.

For each study it also says whether code, data, parameters or the register changed between ``REV`` and
this checkout (the files each study's stages depend on, from ``dvc.yaml``), so that a changed number can be
traced to its cause.

``python -m compendium.claims diff OLD.json NEW.json`` compares two exported ledgers (``claims.json``, e.g. of
two releases; :mod:`compendium.claims.ledger`) by the same comparison (:func:`compare`), without a checkout:
what changed in between is then not known.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from compendium.pipeline import paths, studies
from compendium.pipeline.cli import visible
from compendium.pipeline.yamlfile import loads as load_text

CLAIMS_OUT = "results/claims"
CLAIMS_CSV = "claims.csv"
# the stages whose results feed each study's claims, and how each study is named (the one list of studies); the
# claims stage itself counts for all
STUDY_STAGES = {s.register: tuple(st.name for st in s.stages) for s in studies.STUDIES if s.register}
STUDY_LABELS = {s.register: s.title for s in studies.STUDIES if s.register}
DATA_FILES = ("data.dvc", "src/compendium/data/manifest.json")


class DiffError(RuntimeError):
    """A revision cannot be compared: the message says why and what to do."""


@dataclass(frozen=True)
class Change:
    claim_id: str
    study: str
    old_value: str
    new_value: str
    old_status: str
    new_status: str

    @property
    def kind(self) -> str:
        if not self.old_status:
            return "added"
        if not self.new_status:
            return "removed"
        return "status" if self.old_status != self.new_status else "value"


@dataclass
class Diff:
    rev: str
    source: str
    seconds: float
    compared: int
    changes: list[Change] = field(default_factory=list)
    #: study -> what changed in between; None when the two sides are files with no checkout to compare
    causes: dict[str, list[str]] | None = field(default_factory=dict)
    #: the chapters with results but no published claims: stage -> "changed" / "unchanged" / "not in REV" / ...
    uncovered: dict[str, str] = field(default_factory=dict)
    #: what ``rev`` is compared with
    against: str = "this build"


def _git(*args: str, cwd: Path | None = None) -> str:
    r = subprocess.run(["git", *args], cwd=cwd or paths.ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        raise DiffError(f"git {' '.join(args)} failed: {r.stderr.strip() or r.stdout.strip()}")
    return r.stdout


def resolve(rev: str) -> str:
    """The full commit id of ``rev``, or :class:`DiffError` naming it."""
    try:
        return _git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}").strip()
    except DiffError:
        raise DiffError(f"'{rev}' is not a commit of this repository (try `git log --oneline` for one)") from None


def read_claims_csv(text: str) -> dict[str, dict[str, str]]:
    """claim id -> row of a ``claims.csv`` text."""
    return {r["claim_id"]: r for r in csv.DictReader(io.StringIO(text))}


def _same_value(a: str, b: str) -> bool:
    if a == b:
        return True
    try:
        x, y = float(a), float(b)
    except ValueError:
        return False
    return x == y or (math.isnan(x) and math.isnan(y))


def compare(old: dict[str, dict[str, str]], new: dict[str, dict[str, str]]) -> list[Change]:
    """Every claim whose reproduced value or status differs between ``old`` and ``new`` (or that only one has),
    sorted by study and claim id. Values equal as numbers (``1.0`` and ``1``) are the same value."""
    out = []
    for cid in sorted(old.keys() | new.keys()):
        o, n = old.get(cid, {}), new.get(cid, {})
        ov, nv = o.get("reproduced", ""), n.get("reproduced", "")
        os_, ns = o.get("status", ""), n.get("status", "")
        if o and n and os_ == ns and _same_value(ov, nv):
            continue
        out.append(Change(cid, (n or o).get("study", ""), ov, nv, os_, ns))
    return sorted(out, key=lambda c: (c.study, c.claim_id))


def uncovered(commit: str) -> dict[str, str]:
    """The chapters outside the claims' scope (no published claims: e.g. robustness, HUMANE at scale, the data)
    and whether their results differ between ``commit`` and this build: their ``results/<stage>`` hashes in
    ``commit``'s ``dvc.lock`` and in this checkout's (which records this build)."""
    covered = {st for stages in STUDY_STAGES.values() for st in stages} | {"claims"}
    old_lock = _git("show", f"{commit}:dvc.lock")
    new_lock = (paths.ROOT / "dvc.lock").read_text() if (paths.ROOT / "dvc.lock").is_file() else ""
    out = {}
    for st in studies.ALL_STAGES:
        if st.name in covered or st.notebook is None:
            continue
        o, n = _lock_out_hash(old_lock, f"results/{st.name}"), _lock_out_hash(new_lock, f"results/{st.name}")
        if o is None and n is None:
            continue
        out[st.name] = (
            "not in " + commit[:10]
            if o is None
            else "not built here"
            if n is None
            else ("unchanged" if o == n else "changed")
        )
    return out


def _lock_out_hash(lock_text: str, out: str = CLAIMS_OUT) -> str | None:
    lock = load_text(lock_text) or {}
    for stage in (lock.get("stages") or {}).values():
        for o in stage.get("outs") or []:
            if o.get("path") == out:
                return o.get("md5")
    return None


def _cache_object(cache: Path, md5: str) -> Path:
    return cache / "files" / "md5" / md5[:2] / md5[2:]


def from_cache(lock_text: str, cache: Path) -> str | None:
    """``claims.csv`` of the run that ``lock_text`` (a ``dvc.lock``) records, read from the DVC cache ``cache``,
    or None when the lock has no claims output or the cache lacks one of its objects."""
    dir_md5 = _lock_out_hash(lock_text)
    if not dir_md5 or not dir_md5.endswith(".dir"):
        return None
    listing = _cache_object(cache, dir_md5)
    if not listing.is_file():
        return None
    for entry in json.loads(listing.read_text()):
        if entry.get("relpath") == CLAIMS_CSV:
            obj = _cache_object(cache, entry["md5"])
            return obj.read_text(encoding="utf-8") if obj.is_file() else None
    return None


def _cache_dir() -> Path:
    """This checkout's DVC cache: ``[cache] dir`` of ``.dvc/config.local`` or ``.dvc/config`` (relative to
    ``.dvc/``), else ``.dvc/cache``; read directly, since starting ``dvc cache dir`` costs a few seconds."""
    import configparser

    for name in ("config.local", "config"):
        cfg = configparser.ConfigParser(strict=False, interpolation=None)
        f = paths.ROOT / ".dvc" / name
        if f.is_file():
            try:
                cfg.read_string(f.read_text())
            except configparser.Error:
                continue
            d = cfg.get("cache", "dir", fallback="").strip().strip("'\"")
            if d:
                return (paths.ROOT / ".dvc" / d).resolve()
    return paths.ROOT / ".dvc" / "cache"


def _ancestors(dvc_yaml: dict, target: str) -> list[str]:
    """The stages ``target`` depends on, itself included, from a ``dvc.yaml`` (outputs matched to deps by path)."""
    stages = dvc_yaml.get("stages", {}) or {}
    outs = {}
    for name, spec in stages.items():
        for o in (spec or {}).get("outs", []) or []:
            outs[str(next(iter(o)) if isinstance(o, dict) else o)] = name
    seen, todo = [], [target]
    while todo:
        st = todo.pop()
        if st in seen or st not in stages:
            continue
        seen.append(st)
        for d in _stage_deps(dvc_yaml, st):
            todo += [n for o, n in outs.items() if _touches(d, o) or _touches(o, d)]
    return seen


class Interrupted(DiffError):
    """The user (Ctrl-C) or the system (SIGTERM, SIGHUP) stopped the comparison."""

    exit_code = 130


def _on_signal(signum, _frame):
    import signal

    name = {signal.SIGTERM: "SIGTERM", signal.SIGHUP: "SIGHUP"}.get(signum, f"signal {signum}")
    exc = Interrupted(f"stopped by {name}")
    exc.exit_code = 128 + signum
    raise exc


def _run_streamed(cmd: list[str], cwd: Path, env: dict, n_stages: int, log) -> tuple[int, str]:
    """Run ``cmd`` in a process group of its own, saying "stage k of N: name" as DVC starts each stage. Any
    exception while it runs (Ctrl-C's KeyboardInterrupt, :class:`Interrupted` from SIGTERM or SIGHUP) ends the
    whole group -- DVC and the stage it runs -- before it propagates. Returns (exit code, the output's last lines)."""
    import signal

    proc = subprocess.Popen(
        cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
    )
    tail: list[str] = []
    k = 0
    try:
        for line in proc.stdout:
            tail = (tail + [line.rstrip()])[-20:]
            if line.startswith("Running stage '"):
                k += 1
                log(f"claims diff: stage {k} of {n_stages}: {line.split(chr(39))[1]}")
            elif line.startswith("Stage '") and "skipping run" in line:
                k += 1
                log(f"claims diff: stage {k} of {n_stages}: {line.split(chr(39))[1]} (from the run cache)")
        proc.wait()
    except BaseException:
        for sig, wait in ((signal.SIGTERM, 20), (signal.SIGKILL, 10)):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, sig)
            try:
                proc.wait(timeout=wait)
                break
            except subprocess.TimeoutExpired:
                continue
        raise
    return proc.returncode, "\n".join(tail[-5:])


def recompute(commit: str, cache: Path, log=print) -> str:
    """Reproduce ``commit``'s claims stage in a temporary worktree sharing the DVC cache; its claims.csv. The
    stages are announced one by one; Ctrl-C, SIGTERM or SIGHUP end the reproduction's processes, and the
    worktree is removed however the function ends."""
    import signal

    tmp = Path(tempfile.mkdtemp(prefix="claims-diff-"))
    wt = tmp / "rev"
    n = len(_ancestors(load_text(_git("show", f"{commit}:dvc.yaml")) or {}, "claims"))
    log(
        f"claims diff: reproducing {commit[:10]} in a temporary worktree ({wt}): up to {n} stages, "
        "as long as a full `dvc repro` when none is cached ..."
    )
    old = {sig: signal.signal(sig, _on_signal) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        _git("worktree", "add", "--detach", "--quiet", str(wt), commit)
        venv = paths.ROOT / ".venv"
        if venv.is_dir():
            (wt / ".venv").symlink_to(venv)
        dvc = [sys.executable, "-m", "dvc"]
        env = {k: v for k, v in os.environ.items() if k not in ("COMPENDIUM_ROOT", "COMPENDIUM_RESULTS")}
        for cmd in (
            [*dvc, "cache", "dir", "--local", str(cache)],
            [*dvc, "pull", "-q", "data.dvc"],
            [*dvc, "repro", "claims"],
        ):
            code, tail = _run_streamed(cmd, wt, env, n, log)
            if code != 0:
                raise DiffError(f"reproducing {commit[:10]} failed at `{' '.join(cmd[2:])}`:\n{tail}")
        return (wt / CLAIMS_OUT / CLAIMS_CSV).read_text(encoding="utf-8")
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
        subprocess.run(["git", "worktree", "remove", "--force", str(wt)], cwd=paths.ROOT, capture_output=True)
        subprocess.run(["git", "worktree", "prune"], cwd=paths.ROOT, capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)


def _stage_deps(dvc_yaml: dict, stage: str) -> list[str]:
    return [str(d) for d in (dvc_yaml.get("stages", {}).get(stage, {}) or {}).get("deps", [])]


def _touches(changed: str, dep: str) -> bool:
    return changed == dep or changed.startswith(dep.rstrip("/") + "/")


def causes(commit: str) -> dict[str, list[str]]:
    """study -> what changed between ``commit`` and this checkout among the inputs of its stages:
    ``code`` (notebooks, package modules), ``data`` (the raw-data record and manifest), ``parameters``
    (the study's sections of ``params.yaml``), ``register`` (``published/``)."""
    changed = [p for p in _git("diff", "--name-only", commit, "--").splitlines() if p]
    from yaml import YAMLError

    try:  # aliases bounded: an old commit's params.yaml is a branch's file too
        dvc_yaml = load_text((paths.ROOT / "dvc.yaml").read_text(), "dvc.yaml") or {}
        old_params = load_text(_git("show", f"{commit}:params.yaml"), f"{commit}:params.yaml") or {}
        new_params = load_text(paths.PARAMS.read_text(), "params.yaml") or {}
    except YAMLError as exc:
        raise DiffError(" ".join(str(exc).split())[:400]) from None
    out = {}
    for study, stages in STUDY_STAGES.items():
        found = set()
        for stage in (*stages, "claims"):
            deps = _stage_deps(dvc_yaml, stage)
            for f in changed:
                if f in DATA_FILES or f.startswith("data/"):
                    found.add("data")
                elif f.startswith("published/") and any(_touches(f, d) for d in deps):
                    found.add("register")
                elif f != "params.yaml" and any(_touches(f, d) for d in deps):
                    found.add("code")
        if any(old_params.get(s) != new_params.get(s) for s in stages):
            found.add("parameters")
        out[study] = sorted(found)
    return out


def diff(rev: str, log=print, recompute_always: bool = False) -> Diff:
    """Compare the claims of ``rev`` with this checkout's ``results/claims/claims.csv``."""
    commit = resolve(rev)
    now = paths.RESULTS / "claims" / CLAIMS_CSV
    if not now.is_file():
        raise DiffError(f"{now} does not exist: run `dvc repro` first, then compare")
    t0 = time.perf_counter()
    cache = _cache_dir()
    text = None if recompute_always else from_cache(_git("show", f"{commit}:dvc.lock"), cache)
    source = "DVC cache"
    if text is None:
        text, source = recompute(commit, cache, log=log), "recomputed in a temporary worktree"
    old, new = read_claims_csv(text), read_claims_csv(now.read_text(encoding="utf-8"))
    d = Diff(rev, source, time.perf_counter() - t0, len(old.keys() & new.keys()), compare(old, new))
    d.causes = causes(commit)
    d.uncovered = uncovered(commit)
    return d


def diff_files(old: Path, new: Path) -> Diff:
    """Compare two exported ledgers (``claims.json``, or ``claims.csv``) without a checkout: the same comparison
    as :func:`diff` (:func:`compare`); what changed in between is not known from the files alone."""
    from .ledger import LedgerError, read_any

    t0 = time.perf_counter()
    try:
        a, b = read_any(Path(old)), read_any(Path(new))
    except LedgerError as exc:
        raise DiffError(str(exc)) from None
    d = Diff(str(old), "file", time.perf_counter() - t0, len(a.keys() & b.keys()), compare(a, b), causes=None)
    d.against = str(new)
    return d


def _short(v: str, width: int = 24) -> str:
    v = v if v else "–"
    return v if len(v) <= width else v[: width - 1] + "…"


def render(d: Diff) -> str:
    kinds = {k: sum(c.kind == k for c in d.changes) for k in ("value", "status", "added", "removed")}
    lines = [
        f"claims diff {visible(d.rev, inline=True)} → {visible(d.against, inline=True)}: {d.compared:,} claims in both; "
        f"{kinds['status']} changed status, {kinds['value']} changed value only, "
        f"{kinds['added']} added, {kinds['removed']} removed "
        + (f"({d.rev} {d.source}, {d.seconds:.1f} s)" if d.causes is not None else f"({d.seconds:.1f} s)"),
    ]
    if not d.changes:
        lines.append("No claim changed.")
    for study, label in STUDY_LABELS.items():
        rows = [c for c in d.changes if c.study == study]
        if d.causes is None:
            lines.append(f"\n{label}: {len(rows)} claims changed")
        else:
            what = ", ".join(d.causes.get(study, [])) or "nothing"
            lines.append(f"\n{label}: {len(rows)} claims changed; changed in between: {what}")
        for c in rows:  # a file's text is shown visibly: an exported ledger may come from anywhere
            status = c.new_status if c.old_status == c.new_status else f"{c.old_status or '–'} → {c.new_status or '–'}"
            cid, ov, nv = (visible(x, inline=True) for x in (c.claim_id, c.old_value, c.new_value))
            lines.append(f"  {cid:<48} {_short(ov):>24} → {_short(nv):<24} {visible(status, inline=True)}")
    if d.uncovered:
        changed = [st for st, how in d.uncovered.items() if how == "changed"]
        lines.append(
            "\nNot covered (no published claims, so no claim can show what moved): "
            + ", ".join(f"{st} ({how})" for st, how in d.uncovered.items())
            + (
                f". Their results changed in {', '.join(changed)}: compare those chapters' results/<stage>/ by hand."
                if changed
                else "."
            )
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """``python -m compendium.claims ...``: see :mod:`compendium.claims.cli` (kept here for callers of
    ``diff.main``)."""
    from .cli import main as cli_main

    return cli_main(argv)

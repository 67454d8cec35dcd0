"""Build the Jupyter Book (render only) and check that the result is offline-clean.

    python -m compendium.book build    # jupyter-book build --all -W -n --keep-going book/, then check
    python -m compendium.book check    # only the offline check of book/_build/html

The build never executes notebooks (``execute_notebooks: off``): it renders what the DVC stages
stored in ``book/executed/``, and refuses to start if one of them holds an error output. ``--all``
rebuilds every page, so no stale page survives from a previous build. Warnings are errors. The check
fails if any page loads a script, stylesheet, font or image from another host (the book must render
with no network).

The book is built aside, in a folder of its own per build (``book/_build/.staging.<random>``), completed
there with :func:`write_provenance` (``_static/provenance.js``: commit, interpreter, stage times, facts of
the machine and the moment, which DVC must not hash, ``.dvcignore``, read by the Reproducibility page)
and the RO-Crate (``ro-crate-metadata.json``), and only then swapped into ``book/_build/html`` in one
atomic exchange (:func:`compendium.stage._swap`): a failed, interrupted or killed build leaves the last
good book in place, and a swapped-in book is always complete. One build at a time: a second
``make book`` waits for the first (a file lock, ``book/_build/.lock``).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from . import paths

HTML = paths.BOOK / "_build" / "html"
_REMOTE = re.compile(r"""<(script|link|img|iframe)\b[^>]*?\b(src|href)=["'](https?:)?//[^"']+["']""", re.I)
_ALLOWED_LINK_RELS = re.compile(r"""rel=["'](canonical|author|license)["']""", re.I)


def remote_assets(html_dir: Path = HTML) -> list[tuple[str, str]]:
    """(page, tag) for every asset a built page would fetch from another host."""
    hits = []
    for page in sorted(html_dir.rglob("*.html")):
        for m in _REMOTE.finditer(page.read_text(errors="replace")):
            tag = m.group(0)
            if m.group(1).lower() == "link" and (
                "stylesheet" not in tag.lower() and "preload" not in tag.lower() or _ALLOWED_LINK_RELS.search(tag)
            ):
                continue
            hits.append((str(page.relative_to(html_dir)), tag[:160]))
    return hits


def failed_chapters(executed_dir: Path | None = None) -> list[str]:
    """One line per executed notebook that holds an error output (a stage that failed half-way)."""
    import nbformat

    from .stage import STAGES

    executed_dir = Path(executed_dir) if executed_dir is not None else paths.BOOK / "executed"
    stage_of = {st.notebook: st.name for st in STAGES.values()}
    problems = []
    for nb_path in sorted(executed_dir.glob("*.ipynb")):
        stage = stage_of.get(nb_path.stem, "?")
        try:
            nb = nbformat.read(nb_path, as_version=4)
        except Exception as exc:  # noqa: BLE001 - a truncated or hand-edited notebook: name it
            problems.append(
                f"{nb_path.relative_to(paths.ROOT) if nb_path.is_relative_to(paths.ROOT) else nb_path} is not a "
                f"readable notebook ({type(exc).__name__}); re-run its stage with `dvc repro -f {stage}`"
            )
            continue
        for k, cell in enumerate(nb.cells):
            errs = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
            if errs:
                problems.append(
                    f"{nb_path.relative_to(paths.ROOT) if nb_path.is_relative_to(paths.ROOT) else nb_path}"
                    f" cell {k} holds an error ({errs[0].get('ename')}: {errs[0].get('evalue')}); "
                    f"re-run its stage with `dvc repro {stage}`"
                )
                break
    return problems


def build() -> int:
    from .stage import StageError, exclusive, recover

    build_dir = paths.BOOK / "_build"
    try:
        with exclusive("book", build_dir / ".lock"):
            recover(HTML)  # a swap killed between its renames (platforms without an atomic exchange)
            return _build_locked(build_dir)
    except StageError as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 1


def _build_locked(build_dir: Path) -> int:
    import tempfile

    from .stage import _remove, _swap, signals_deferred

    broken = failed_chapters()
    if broken:
        print(
            "ERROR: the book was not built, a chapter holds an error output:\n  "
            + "\n  ".join(broken)
            + "\nThe last good book is unchanged.",
            file=sys.stderr,
        )
        return 1
    for old in build_dir.glob(".staging*"):  # builds that were killed or failed (the lock is held)
        _remove(old)
    staging = Path(tempfile.mkdtemp(prefix=".staging.", dir=build_dir))
    t0 = time.perf_counter()
    print("building the book (render only, warnings are errors) ...", flush=True)
    jb = Path(sys.executable).with_name("jupyter-book")
    if not jb.exists():
        print(
            f"ERROR: {jb} is missing: the environment is incomplete; run `make setup`, then `make book`. "
            f"The last good book in {HTML} is unchanged.",
            file=sys.stderr,
        )
        return 1
    proc = subprocess.run(
        [
            str(jb),
            "build",
            str(paths.BOOK),
            "--all",
            "-W",
            "-n",
            "--keep-going",
            "--path-output",
            str(staging),
        ],
        cwd=paths.ROOT,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    out = proc.stdout
    new_html = staging / "_build" / "html"
    lines = [ln for ln in out.splitlines() if ln.strip()]
    for ln in lines:
        if "WARNING" in ln or "ERROR" in ln or "reading sources" in ln and ln.endswith("100%"):
            print(ln)
    if proc.returncode != 0 or not (new_html / "index.html").exists():
        print("\n".join(lines[-40:]), file=sys.stderr)
        print(
            f"ERROR: the book build failed (exit {proc.returncode}); the last good book in {HTML} is unchanged.",
            file=sys.stderr,
        )
        return proc.returncode or 1
    rc = check(new_html)
    if rc != 0:
        print(
            f"ERROR: the new book failed the offline check; the last good book in {HTML} is unchanged.", file=sys.stderr
        )
        return rc
    seconds = time.perf_counter() - t0
    # the book is complete before it is swapped in: provenance and RO-Crate are written in the new folder
    write_provenance(new_html, book_seconds=seconds)
    from .fair import write_crate

    try:
        write_crate(new_html)  # ro-crate-metadata.json: datasets, licences, checksums, notebooks (deterministic)
    except ValueError as exc:
        print(f"ERROR: {exc}\nThe last good book in {HTML} is unchanged.", file=sys.stderr)
        return 1
    with signals_deferred():
        _swap(new_html, HTML)
    shutil.rmtree(staging)
    print(f"book built in {seconds:.1f} s: {HTML / 'index.html'}")
    return 0


PROVENANCE_JS = Path("_static") / "provenance.js"


def write_provenance(html_dir: Path = HTML, book_seconds: float | None = None) -> Path:
    """Write ``_static/provenance.js``: the commit, interpreter, platform and stage times of this build.

    These facts differ between machines and runs, so they stay out of every file DVC hashes (the file is
    listed in ``.dvcignore``); the Reproducibility page loads them with ``<script src>`` (which, unlike
    ``fetch()``, also works when the book is opened from disk)."""
    import json

    from . import reproducibility as r

    times = {
        row.stage: (None if row.seconds != row.seconds or row.seconds is None else float(row.seconds))
        for row in r.stage_times().itertuples()
    }
    facts = {
        **r.git_state(),
        **r.environment(),
        "stage_seconds": times,
        "book_seconds": round(book_seconds, 1) if book_seconds else None,
    }
    out = html_dir / PROVENANCE_JS
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("window.COMPENDIUM_PROVENANCE = " + json.dumps(facts, indent=1, sort_keys=True) + ";\n" + _FILL_JS)
    return out


_FILL_JS = """document.addEventListener("DOMContentLoaded", function () {
  var p = window.COMPENDIUM_PROVENANCE;
  document.querySelectorAll("[data-provenance]").forEach(function (el) {
    var key = el.getAttribute("data-provenance"), v = p[key];
    if (key === "commit" && v) { v = v.slice(0, 12); }
    if (key === "stage_seconds") {
      var rows = Object.keys(v).filter(function (s) { return v[s] !== null; })
        .map(function (s) { return s + ": " + v[s].toFixed(1) + " s"; });
      v = rows.join("; ");
    }
    if (v !== undefined && v !== null) { el.textContent = v; }
  });
});
"""


def check(html_dir: Path = HTML) -> int:
    hits = remote_assets(html_dir)
    for page, tag in hits:
        print(f"remote asset in {page}: {tag}", file=sys.stderr)
    if hits:
        print(f"{len(hits)} remote asset(s): the book would not render offline", file=sys.stderr)
        return 1
    print(f"offline check: {len(list(html_dir.rglob('*.html')))} pages load no remote assets")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["build"]:
        import signal

        from .stage import _raise_interrupt

        for sig in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, _raise_interrupt)
        try:
            return build()
        except KeyboardInterrupt:
            print(
                f"ERROR: the book build was interrupted; {HTML} is complete (the last good book, or the new one "
                "if it was being swapped in). Run `make book` to build it again.",
                file=sys.stderr,
            )
            return 130
        except OSError as exc:
            print(
                f"ERROR: the book build could not write {exc.filename or 'its files'}: {exc.strerror or exc}; "
                f"the last good book in {HTML} is unchanged. Free some space or fix the permissions, then run "
                "`make book`.",
                file=sys.stderr,
            )
            return 1
    if argv == ["check"]:
        return check()
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())

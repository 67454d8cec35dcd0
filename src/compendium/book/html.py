"""Build the Jupyter Book (render only) and check that the result is offline-clean.

    python -m compendium.book build           # incremental when it can: the DVC `book` stage (dvc repro, dvc exp run)
    python -m compendium.book build --fresh   # a new Sphinx environment, every page read: make book, CI, releases
    python -m compendium.book check           # only the offline check of book/_build/html

The build never executes notebooks (``execute_notebooks: off``): it renders what the DVC stages
stored in ``book/executed/``, and refuses to start if one of them holds an error output. Warnings are
errors and references are checked (``-W -n --keep-going``, as ``jupyter-book build`` would). The check
fails if any page loads a script, stylesheet, font or image from another host (the book must render
with no network).

Incremental builds (the exercise loop, ``dvc exp run -S workbank.cutoff=3.5``): Sphinx reads again only
the pages whose source changed since the last good build (by Sphinx's file times and by content, so a
file restored with an old time is read too) and reuses the doctrees of the others, but it **writes every
page** into an empty folder (``force_all``): every reference is resolved again, so a changed title shows
on every page that names it or lists it in its table of contents, a dangling reference fails every build
until it is fixed, and no page or file of an earlier build survives. The doctrees are reused only if they
belong to the book in ``_build/html`` and were made with the same ``_config.yml``, ``_toc.yml``,
``references.bib``, Sphinx extensions (``compendium.book.sphinx_*``) and installed packages
(:func:`reusable_state`); otherwise the build is fresh, and says why.

Crash safety. The book is built aside, in ``book/_build/.staging`` (a fixed path: myst-nb writes the
notebooks' images to ``<output>/../jupyter_execute`` and the doctrees name them by that path), with a
copy of the last good doctrees, never the doctrees themselves. It is completed there with
:func:`write_provenance` (``_static/provenance.js``: commit, interpreter, stage times, facts of the
machine and the moment, which DVC must not hash, ``.dvcignore``, read by the Reproducibility page) and
the RO-Crate (``ro-crate-metadata.json``). On success the new doctrees (with the notebooks' images) are
moved to a generation of their own, ``book/_build/.doctrees/<build id>``, and the new book, whose
``.buildinfo`` names that id, is swapped into ``book/_build/html`` in one atomic exchange
(:func:`compendium.pipeline.stage._swap`). That exchange is the single commit point: before it the old book names
the old generation, after it the new book names the new one, so a failed, interrupted or killed build at
any moment leaves the last good book and the doctrees that made it; the other generations are removed
by the next build. One build at a time: a second ``make book`` waits for the first (a file lock,
``book/_build/.lock``).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

from compendium.pipeline import paths

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
    from compendium.pipeline.stage import STAGES

    executed_dir = Path(executed_dir) if executed_dir is not None else paths.BOOK / "executed"
    stage_of = {st.notebook: st.name for st in STAGES.values()}
    problems = []
    for nb_path in sorted(executed_dir.glob("*.ipynb")):
        stage = stage_of.get(nb_path.stem, "?")
        try:
            nb = json.loads(nb_path.read_bytes())  # plain JSON: nbformat's validation took 0.2 s of each build
            if not isinstance(nb, dict) or nb.get("nbformat") != 4 or not isinstance(nb.get("cells"), list):
                import nbformat

                nb = nbformat.read(nb_path, as_version=4)
        except Exception as exc:  # noqa: BLE001 - a truncated or hand-edited notebook: name it
            problems.append(
                f"{nb_path.relative_to(paths.ROOT) if nb_path.is_relative_to(paths.ROOT) else nb_path} is not a "
                f"readable notebook ({type(exc).__name__}); re-run its stage with `dvc repro -f {stage}`"
            )
            continue
        for k, cell in enumerate(nb["cells"]):
            errs = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
            if errs:
                problems.append(
                    f"{nb_path.relative_to(paths.ROOT) if nb_path.is_relative_to(paths.ROOT) else nb_path}"
                    f" cell {k} holds an error ({errs[0].get('ename')}: {errs[0].get('evalue')}); "
                    f"re-run its stage with `dvc repro {stage}`"
                )
                break
    return problems


#: what, besides the pages, decides how Sphinx reads them: a change of any of these makes the build fresh
_READ_CONFIG = ("_config.yml", "_toc.yml", "references.bib")
_READ_CODE = (
    "html.py",
    "../chapter/display.py",
    "fair.py",
)  # this module (the driver), compendium.chapter.display (PNG alt text) and fair (the landing page's BibTeX)
_READ_PACKAGES = (
    "sphinx",
    "docutils",
    "jupyter-book",
    "myst-nb",
    "myst-parser",
    "sphinx-book-theme",
    "pydata-sphinx-theme",
    "sphinx-external-toc",
    "sphinx-multitoc-numbering",
    "sphinxcontrib-bibtex",
    "pybtex",
    "sphinx-design",
    "sphinx-togglebutton",
    "sphinx-copybutton",
    "sphinx-comments",
    "linkify-it-py",
    "nbformat",
)
_BUILD_ID = re.compile(r"^compendium-build: ([0-9a-f]{32})$", re.M)


def fingerprint(book_dir: Path | None = None) -> str:
    """SHA-256 of everything but the pages that decides what Sphinx reads from them: the book's
    configuration, table of contents and bibliography, the Sphinx extensions of this package and this
    driver, the interpreter and the versions of the Sphinx stack. Doctrees made under another fingerprint
    are not reused."""
    from importlib import metadata

    book_dir = Path(book_dir) if book_dir is not None else paths.BOOK
    h = hashlib.sha256(sys.version.encode())
    here = Path(__file__).parent
    files = [book_dir / f for f in _READ_CONFIG] + sorted(here.glob("sphinx_*.py")) + [here / f for f in _READ_CODE]
    for f in files:
        h.update(f"\0{f.name}\0".encode())
        h.update(f.read_bytes() if f.is_file() else b"<missing>")
    for dist in _READ_PACKAGES:
        try:
            version = metadata.version(dist)
        except metadata.PackageNotFoundError:
            version = "-"
        h.update(f"\0{dist}=={version}".encode())
    return h.hexdigest()


def html_build_id(html_dir: Path) -> str | None:
    """The build id that ``html_dir/.buildinfo`` names (the generation of doctrees that made this book)."""
    try:
        m = _BUILD_ID.search((html_dir / ".buildinfo").read_text(errors="replace"))
    except OSError:
        return None
    return m.group(1) if m else None


def reusable_state(book_dir: Path | None = None, fp: str | None = None) -> tuple[Path | None, str]:
    """(the doctrees generation to build on, '') or (None, why the build must be fresh); ``fp``: this
    build's :func:`fingerprint`."""
    book_dir = Path(book_dir) if book_dir is not None else paths.BOOK
    html = book_dir / "_build" / "html"
    build_id = html_build_id(html)
    if not (html / "index.html").exists():
        return None, "no book in _build/html yet"
    if build_id is None:
        return None, "the book in _build/html names no doctrees (built before incremental builds, or restored)"
    gen = book_dir / "_build" / ".doctrees" / build_id
    try:
        meta = json.loads((gen / "build.json").read_text())
    except (OSError, ValueError):
        return None, f"the doctrees of the book in _build/html ({build_id[:8]}) are missing or unreadable"
    if meta.get("build_id") != build_id or not (gen / "doctrees" / "environment.pickle").is_file():
        return None, f"the doctrees of the book in _build/html ({build_id[:8]}) are incomplete"
    if meta.get("fingerprint") != (fp or fingerprint(book_dir)):
        return None, (
            "the book's configuration, table of contents, bibliography, Sphinx extensions or packages changed "
            "since the last build"
        )
    return gen, ""


def build(fresh: bool = False, book_dir: Path | None = None, finish=None) -> int:
    """Build the book in ``book_dir`` (default: the project's ``book/``) and swap it into ``_build/html``.

    ``fresh``: a new Sphinx environment, every page read. Otherwise the doctrees of the last good build
    are reused when :func:`reusable_state` allows it. ``finish(html_dir, seconds)`` completes the new book
    before the swap (default :func:`_finish`: provenance and RO-Crate); it returns 0 or an exit status."""
    from compendium.pipeline.stage import StageError, exclusive, recover

    book_dir = Path(book_dir) if book_dir is not None else paths.BOOK
    build_dir = book_dir / "_build"
    try:
        with exclusive("book", build_dir / ".lock"):
            recover(build_dir / "html")  # a swap killed between its renames (platforms without an atomic exchange)
            return _build_locked(book_dir, fresh, _finish if finish is None else finish)
    except StageError as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 1


#: what :func:`_finish` imports (pandas for the stage times, the RO-Crate library): about 0.7 s, imported in a thread
#: while Sphinx builds the book in its own process, on the other core, instead of after it
FINISH_IMPORTS = ("compendium.book.reproducibility", "compendium.book.fair", "rocrate.rocrate", "rocrate.model")


def _preload(modules) -> threading.Thread:
    """A thread importing ``modules`` (a failure is left for the code that needs the module to meet). Not a daemon:
    on a path that returns without joining it (a failed build), the interpreter waits for it before exiting, so no
    import is cut off half-way."""

    def run():
        for name in modules:
            with contextlib.suppress(Exception):
                importlib.import_module(name)

    thread = threading.Thread(target=run, name="compendium-book-preload")
    thread.start()
    return thread


def _finish(html_dir: Path, seconds: float) -> int:
    """The project book's last files, written in the new folder before the swap: provenance, RO-Crate."""
    write_provenance(html_dir, book_seconds=seconds)
    from compendium.book.fair import write_crate

    try:
        write_crate(html_dir)  # ro-crate-metadata.json: datasets, licences, checksums, notebooks (deterministic)
    except ValueError as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 1
    return 0


def _build_locked(book_dir: Path, fresh: bool, finish) -> int:
    import uuid

    from compendium.pipeline.stage import _remove, _swap, signals_deferred

    build_dir = book_dir / "_build"
    html = build_dir / "html"
    generations = build_dir / ".doctrees"
    broken = failed_chapters(book_dir / "executed")
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
    fp = fingerprint(book_dir)
    state, why = (None, "--fresh") if fresh else reusable_state(book_dir, fp)
    keep = html_build_id(html)  # the last good book's doctrees stay until a new book replaces it
    if generations.is_dir():  # generations no book names: a build killed after moving its doctrees in
        for gen in generations.iterdir():
            if gen.name != keep:
                _remove(gen)
    t0 = time.perf_counter()
    # a fixed path: the doctrees name the notebooks' images by it (myst-nb: <output>/../jupyter_execute)
    staging = build_dir / ".staging"
    staging.mkdir(parents=True)
    if state is not None:
        # a copy (with the files' times, which Sphinx compares): the build changes its doctrees in place
        shutil.copytree(state / "doctrees", staging / "doctrees")
        if (state / "jupyter_execute").is_dir():
            shutil.copytree(state / "jupyter_execute", staging / "jupyter_execute")
        print("building the book (incremental: pages whose source changed are read, every page is written) ...")
    else:
        print(f"building the book (fresh: {why}; render only, warnings are errors) ...", flush=True)
    jb = Path(sys.executable).with_name("jupyter-book")
    if not jb.exists():
        print(
            f"ERROR: {jb} is missing: the environment is incomplete; run `make setup`, then `make book`. "
            f"The last good book in {html} is unchanged.",
            file=sys.stderr,
        )
        return 1
    cmd = [sys.executable, "-m", "compendium.book", "sphinx", str(book_dir), str(staging)]
    preload = _preload(FINISH_IMPORTS if finish is _finish else ())  # while Sphinx runs, not before: no GIL contention
    proc = subprocess.run(
        cmd + (["--fresh"] if state is None else []),
        cwd=paths.ROOT,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    out = proc.stdout
    new_html = staging / "html"
    lines = [ln for ln in out.splitlines() if ln.strip()]
    for ln in lines:
        if (
            "WARNING" in ln
            or "ERROR" in ln
            or "reading sources" in ln
            and ln.endswith("100%")
            or re.search(r"\d+ added, \d+ changed, \d+ removed", ln)
        ):
            print(ln)
    if proc.returncode != 0 or not (new_html / "index.html").exists():
        print("\n".join(lines[-40:]), file=sys.stderr)
        print(
            f"ERROR: the book build failed (exit {proc.returncode}); the last good book in {html} is unchanged.",
            file=sys.stderr,
        )
        return proc.returncode or 1
    rc = check(new_html)
    if rc != 0:
        print(
            f"ERROR: the new book failed the offline check; the last good book in {html} is unchanged.", file=sys.stderr
        )
        return rc
    seconds = time.perf_counter() - t0
    preload.join()
    # the book is complete before it is swapped in: provenance and RO-Crate are written in the new folder
    rc = finish(new_html, seconds)
    if rc:
        print(f"The last good book in {html} is unchanged.", file=sys.stderr)
        return rc
    # the new doctrees become a generation of their own, named by the new book's .buildinfo; the swap of
    # the book is the one step that moves from the old pair (book, doctrees) to the new one
    build_id = uuid.uuid4().hex
    gen_new = staging / "state"
    gen_new.mkdir()
    (staging / "doctrees").rename(gen_new / "doctrees")
    if (staging / "jupyter_execute").is_dir():
        (staging / "jupyter_execute").rename(gen_new / "jupyter_execute")
    (gen_new / "build.json").write_text(
        json.dumps({"build_id": build_id, "fingerprint": fp, "fresh": state is None}) + "\n"
    )
    info = new_html / ".buildinfo"
    info.write_text((info.read_text() if info.exists() else "") + f"compendium-build: {build_id}\n")
    generations.mkdir(exist_ok=True)
    with signals_deferred():
        gen_new.rename(generations / build_id)
        _swap(new_html, html)
    shutil.rmtree(staging)
    for gen in generations.iterdir():  # the doctrees of the book just replaced
        if gen.name != build_id:
            _remove(gen)
    print(f"book built in {seconds:.1f} s ({'fresh' if state is None else 'incremental'}): {html / 'index.html'}")
    return 0


def _scan_pybtex_plugins_once() -> None:
    """pybtex finds each plugin (a style, a parser, a backend) with ``importlib.metadata.entry_points(group=...,
    name=...)`` at every use, and every call reads the metadata of every installed distribution again: 49 scans
    and about 0.4 s of each book build, for entry points that cannot change while the build runs. Its module's
    ``entry_points`` becomes a selection from one scan (same plugins, same book)."""
    import pybtex.plugin

    every = pybtex.plugin.entry_points()  # importlib.metadata's (or its backport's), as pybtex imported it

    def entry_points(**params):
        return every.select(**params)

    pybtex.plugin.entry_points = entry_points


def sphinx_build(book_dir: Path, staging: Path, fresh: bool) -> int:
    """Sphinx through Jupyter Book's own ``build_sphinx`` (what ``jupyter-book build -W -n --keep-going``
    calls), writing every page (``force_all``) into ``staging/html`` with the doctrees in
    ``staging/doctrees``: a new environment if ``fresh``, else the copied one, whose pages are read again
    where their source changed (by time, and by content: :mod:`compendium.book.sphinx_incremental`). Runs in a
    process of its own."""
    import jupyter_book.sphinx as jbs
    from sphinx.util.console import nocolor

    if not sys.stdout.isatty():
        nocolor()  # what sphinx-build does; jupyter-book's build_sphinx does not
    base = jbs.Sphinx

    class _App(base):  # the extension must be set up before build_sphinx calls build()
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.setup_extension("compendium.book.sphinx_incremental")

    jbs.Sphinx = _App
    _scan_pybtex_plugins_once()
    config = book_dir / "_config.yml"
    result = jbs.build_sphinx(
        book_dir,
        staging / "html",
        use_external_toc=True,
        noconfig=True,
        path_config=str(config) if config.exists() else None,
        confoverrides={
            "external_toc_path": (book_dir / "_toc.yml").as_posix(),
            "latex_individualpages": False,
            "nitpicky": True,
        },
        doctreedir=staging / "doctrees",
        builder="html",
        warningiserror=True,
        keep_going=True,
        freshenv=fresh,
        force_all=True,
    )
    if isinstance(result, BaseException):
        return 1
    return int(result or 0)


PROVENANCE_JS = Path("_static") / "provenance.js"


def write_provenance(html_dir: Path = HTML, book_seconds: float | None = None) -> Path:
    """Write ``_static/provenance.js``: the commit, interpreter, platform and stage times of this build.

    These facts differ between machines and runs, so they stay out of every file DVC hashes (the file is
    listed in ``.dvcignore``); the Reproducibility page loads them with ``<script src>`` (which, unlike
    ``fetch()``, also works when the book is opened from disk)."""
    import json

    from compendium.book import reproducibility as r

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
    from compendium.pipeline.cli import safe_output

    safe_output()  # a terminal without UTF-8 gets escapes, not a UnicodeEncodeError
    argv = sys.argv[1:] if argv is None else argv
    if argv in (["build"], ["build", "--fresh"]):
        import signal

        from compendium.pipeline.stage import _raise_interrupt

        for sig in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, _raise_interrupt)
        try:
            return build(fresh=argv[1:] == ["--fresh"])
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
    if len(argv) in (3, 4) and argv[0] == "sphinx" and argv[3:] in ([], ["--fresh"]):
        return sphinx_build(Path(argv[1]).resolve(), Path(argv[2]).resolve(), fresh=argv[3:] == ["--fresh"])
    if argv == ["check"]:
        return check()
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())

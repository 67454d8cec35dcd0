"""Build the Jupyter Book (render only) and check that the result is offline-clean.

    python -m compendium.book build    # jupyter-book build --all -W -n --keep-going book/, then check
    python -m compendium.book check    # only the offline check of book/_build/html

The build never executes notebooks (``execute_notebooks: off``): it renders what the DVC stages
stored in ``book/executed/``. ``--all`` rebuilds every page, so no stale page survives from a previous
build. Warnings are errors. The check fails if any page loads a script, stylesheet, font or image
from another host (the book must render with no network).
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
            if m.group(1).lower() == "link" and ("stylesheet" not in tag.lower() and "preload" not in tag.lower()
                                                  or _ALLOWED_LINK_RELS.search(tag)):
                continue
            hits.append((str(page.relative_to(html_dir)), tag[:160]))
    return hits


def build() -> int:
    build_dir = paths.BOOK / "_build"
    if build_dir.exists():
        shutil.rmtree(build_dir)  # no stale pages or doctrees from earlier builds
    t0 = time.perf_counter()
    print("building the book (render only, warnings are errors) ...", flush=True)
    proc = subprocess.run([str(Path(sys.executable).with_name("jupyter-book")), "build", str(paths.BOOK), "--all",
                           "-W", "-n", "--keep-going"], cwd=paths.ROOT, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = proc.stdout
    lines = [ln for ln in out.splitlines() if ln.strip()]
    for ln in lines:
        if "WARNING" in ln or "ERROR" in ln or "reading sources" in ln and ln.endswith("100%"):
            print(ln)
    if proc.returncode != 0 or not (HTML / "index.html").exists():
        print("\n".join(lines[-40:]), file=sys.stderr)
        print(f"book build FAILED (exit {proc.returncode})", file=sys.stderr)
        return proc.returncode or 1
    rc = check()
    print(f"book built in {time.perf_counter() - t0:.1f} s: {HTML / 'index.html'}")
    return rc


def check() -> int:
    hits = remote_assets()
    for page, tag in hits:
        print(f"remote asset in {page}: {tag}", file=sys.stderr)
    if hits:
        print(f"{len(hits)} remote asset(s): the book would not render offline", file=sys.stderr)
        return 1
    print(f"offline check: {len(list(HTML.rglob('*.html')))} pages load no remote assets")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["build"]:
        return build()
    if argv == ["check"]:
        return check()
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())

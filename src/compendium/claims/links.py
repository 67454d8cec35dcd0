"""The trail from a claim to its code, its test and its raw data: where each link of the claims chapter points.

The claims tables are raw HTML (Sphinx roles do not resolve there), so their links are relative URLs computed
here, from the claims page (``executed/05_claims.html``):

- a function (``compendium.pwb.instances.layer_paired_effects``) or a test
  (``tests/pwb/test_pwb_instances.py::test_irr_on_complete_triples_only``) links to the book's own
  highlighted copy of its file, ``code/<path>.html``, at the object's anchor (its qualified name,
  ``Class.method`` for a method); :mod:`compendium.book.sphinx_sources` writes those pages, with the same
  anchors (:func:`objects`);
- a raw file (``workbank/domain_worker_desires.csv``, as the data chapter names it) links to its row of the
  data chapter's file table (:func:`data_anchor`); a file that only the Hugging Face hub holds (not in
  ``src/compendium/data/manifest.json``: the PWB per-instance results, the preference study's rows) links to
  its dataset's row of the table of what is here and what is hub-only (:func:`hub_anchor`);
- a study's replication report links to the book's copy, ``reports/<study>/`` (:func:`report_href`), which
  :func:`compendium.book.reports.publish` writes from the claims stage's ``results/claims/reports/``.

Plain functions of the repository's files: no study is imported (the claims stage reads the studies'
``provenance.py`` and the data manifest by path), and this module imports nothing of the claims check, so the
book's extension loads it on its own, without pandas (:mod:`compendium.book.sphinx_sources`).
"""

from __future__ import annotations

import ast
import json
import re
from functools import cache
from pathlib import Path

from compendium.pipeline import paths

#: the folder of the book's source pages, under the book's root (book/_build/html/code/<path>.html)
SOURCE_DIR = "code"
#: the claims page's folder, relative to the book's root, and the data chapter's page
CLAIMS_DIR = "executed"
DATA_PAGE = "executed/00_data.html"
MANIFEST = Path("src") / "compendium" / "data" / "manifest.json"
#: the replication reports' folder under the book's root (``reports/<study>/``), and the files of each, in the
#: order the claims page lists them: the page, its Markdown, ReScience C's metadata, the original's BibTeX entry
REPORTS_DIR = "reports"
REPORT_FILES = ("report.html", "report.md", "metadata.yaml", "references.bib")
_TEST = re.compile(r"^(tests/[A-Za-z0-9_/.-]+\.py)(?:::([A-Za-z0-9_:.\[\]-]+))?$")


def _digest(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def data_anchor(file: str) -> str:
    """The HTML id of a raw file's row in the data chapter's file table (``file`` as it names it, under data/).

    A digest of the name, not the name: a file name is data, and no text from data reaches an HTML attribute
    (a file named ``<img src=x onerror=...>.csv`` would otherwise put its words in the row's id)."""
    return "data-file-" + _digest(file)


def hub_anchor(dataset: str) -> str:
    """The HTML id of a dataset's row in the data chapter's table of what is here and what only the hub has
    (a digest of the dataset's name, as :func:`data_anchor`)."""
    return "data-hub-" + _digest(dataset)


def _root(root: Path | None) -> Path:
    return Path(root) if root is not None else paths.ROOT


@cache
def _released(root: Path) -> frozenset[str]:
    try:
        return frozenset(json.loads((root / MANIFEST).read_text())["files"])
    except (OSError, ValueError, KeyError, TypeError):
        return frozenset()


def released_files(root: Path | None = None) -> frozenset[str]:
    """The raw files this repository holds (``src/compendium/data/manifest.json``; names under data/)."""
    return _released(_root(root))


def data_link(file: str, root: Path | None = None) -> tuple[str, str]:
    """(label, href from the claims page) of a raw file: its row of the data chapter's file table if the
    repository holds it, else its dataset's hub-only row (a folder such as ``pwb/results/`` too)."""
    page = Path(DATA_PAGE).relative_to(CLAIMS_DIR).as_posix()
    released = released_files(root)
    if file in released:
        return file, f"{page}#{data_anchor(file)}"
    inside = sorted(f for f in released if file.endswith("/") and f.startswith(file))
    if inside:  # a folder the repository holds: its first file's row
        return f"{file} ({len(inside)} files)", f"{page}#{data_anchor(inside[0])}"
    return f"{file} (Hugging Face hub only)", f"{page}#{hub_anchor(file.split('/')[0])}"


@cache
def _module_path(root: Path, dotted: str) -> tuple[str, str] | None:
    parts = dotted.split(".")
    if parts[0] != "compendium":
        return None
    for k in range(len(parts), 1, -1):  # a module of the package, never its bare __init__
        rel = Path("src", *parts[:k])
        for cand in (rel.with_suffix(".py"), rel / "__init__.py"):
            if (root / cand).is_file():
                return cand.as_posix(), ".".join(parts[k:])
    return None


def source_target(name: str, root: Path | None = None) -> tuple[str, str] | None:
    """(file relative to the repository, anchor) of a function, class, module or test, or None if its file
    does not exist. ``compendium.pwb.instances.d_pooled`` -> ``("src/compendium/pwb/instances.py",
    "d_pooled")``; ``tests/a/test_b.py::TestC::test_d`` -> ``("tests/a/test_b.py", "TestC.test_d")``. The
    anchor is '' for a whole module or file."""
    name = (name or "").strip()
    m = _TEST.match(name)
    if m:
        if not (_root(root) / m.group(1)).is_file():
            return None
        return m.group(1), (m.group(2) or "").split("[")[0].replace("::", ".")
    return _module_path(_root(root), name)


def source_page(file: str) -> str:
    """The book page of a repository file, relative to the book's root."""
    return f"{SOURCE_DIR}/{file}.html"


def code_href(name: str, root: Path | None = None) -> str | None:
    """The link from the claims page to ``name``'s source in the book (None if its file does not exist)."""
    t = source_target(name, root)
    if t is None:
        return None
    file, anchor = t
    return f"../{source_page(file)}" + (f"#{anchor}" if anchor else "")


def report_href(study: str, file: str = "report.html") -> str:
    """The link from the claims page to a file of ``study``'s replication report in the book (:data:`REPORTS_DIR`;
    ``file`` one of :data:`REPORT_FILES`)."""
    if file not in REPORT_FILES:
        raise ValueError(f"{file!r} is not a file of a replication report ({', '.join(REPORT_FILES)})")
    return f"../{REPORTS_DIR}/{study}/{file}"


def split_functions(text: str) -> list[str]:
    """The function names of a provenance entry's first part (``f / g`` names two)."""
    return [f.strip() for f in (text or "").split(" / ") if f.strip()]


def objects(source: str) -> dict[str, tuple[int, int]]:
    """``{qualified name: (first line, last line)}`` of every function and class of a Python source (a
    decorated one from its first decorator): the anchors of its source page."""
    out: dict[str, tuple[int, int]] = {}

    def walk(node, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + child.name
                first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                out.setdefault(name, (first, child.end_lineno or child.lineno))
                walk(child, name + ".")

    walk(ast.parse(source), "")
    return out


_CODE_HREF = re.compile(r'href="\.\./' + SOURCE_DIR + r'/([^"#]+)\.html(?:#[^"]*)?"')


def linked_files(claims_html: str) -> list[str]:
    """The repository files a claims page links to (the source pages the book must hold), sorted."""
    return sorted(set(_CODE_HREF.findall(claims_html)))

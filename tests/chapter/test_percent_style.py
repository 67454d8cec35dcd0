"""The book writes every percentage it computes one way, "47.5 %" (compendium.chapter.numbers), issue 33.

Two scans that fail on a percentage written the other way ("47.5%", Python's ``f"{p:.0%}"``):

- the package's string literals and f-strings (not docstrings or comments: they are code, not the book's text),
  the text every chapter's tables, phrases, captions, alt texts and figures are made of;
- the chapters' MyST text (``notebooks/*.md``, ``book/*.md``) and their code cells.

A quotation of a paper keeps the paper's "46.1%": in the prose it stands in quotation marks; in the package a
line that holds one says so with a ``# verbatim`` comment, and :data:`VERBATIM_FILES` names the few files whose
``%`` is not a percentage of the book's at all (CSS, a line of Sphinx's output).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from compendium.pipeline import paths

PKG = paths.ROOT / "src" / "compendium"

#: files whose "100%" is no percentage of the book's text, with the reason
VERBATIM_FILES = {
    "pwb/paper_printed.py": "the paper's printed sentences, quoted verbatim",
    "book/html.py": "Sphinx's own progress line ('... 100%'), matched, not written",
    "book/pdf.py": "CSS (width: 100%)",
    "book/reports.py": "CSS (width: 100%)",
    "book/sphinx_sources.py": "CSS (width: 100%)",
}

#: a number written straight against its percent sign, in a piece of literal text
_TIGHT = re.compile(r"\d%(?!%)")
#: a str.format template with Python's percent type ("{:.1%}"), or printf's "%.1f%%" (matplotlib's fmt)
_FORMAT_PERCENT = re.compile(r"\{[^{}]*:[^{}]*%\}|%[-+ #0]*\d*(?:\.\d+)?[dfg]%%")


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def tight_percents(source: str) -> list[tuple[int, str]]:
    """(line, text) of every percentage the code writes without the book's space: a literal "47.5%", a replacement
    field followed by "%" (``f"{x:.1f}%"``), Python's percent type (``f"{p:.0%}"``, ``"{:.1%}".format``) and
    printf's ``"%.1f%%"``. Docstrings, and lines marked ``# verbatim``, are left out."""
    tree = ast.parse(source)
    lines = source.splitlines()
    skip = _docstrings(tree)
    out: list[tuple[int, str]] = []

    def verbatim(node: ast.AST) -> bool:
        return any("# verbatim" in lines[i - 1] for i in range(node.lineno, (node.end_lineno or node.lineno) + 1))

    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr) and not verbatim(node):
            parts = node.values
            for i, part in enumerate(parts):
                if isinstance(part, ast.FormattedValue):
                    spec = part.format_spec
                    text = "".join(v.value for v in (spec.values if spec else []) if isinstance(v, ast.Constant))
                    if text.endswith("%"):
                        out.append((node.lineno, f"{{…:{text}}}"))
                    nxt = parts[i + 1] if i + 1 < len(parts) else None
                    if isinstance(nxt, ast.Constant) and str(nxt.value).startswith("%"):
                        out.append((node.lineno, "{…}%"))
                elif isinstance(part, ast.Constant) and (
                    _TIGHT.search(str(part.value)) or _FORMAT_PERCENT.search(str(part.value))
                ):
                    out.append((node.lineno, str(part.value)))
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in skip
            and not verbatim(node)
            and (_TIGHT.search(node.value) or _FORMAT_PERCENT.search(node.value))
        ):
            out.append((node.lineno, node.value))
    # a format spec and an f-string's literal parts are nodes of their own too: one entry a line
    return sorted(dict(sorted(out, reverse=True)).items())


def test_the_scan_finds_each_way_of_writing_it_tight():
    src = '''
def f(p, x):
    """The paper's 46.1% (a docstring: not the book's text)."""
    a = f"{p:.0%} of draws"
    b = f"{x:.1f}% of tasks"
    c = "{:.1%}".format(p)
    d = "in 95% of replicates"
    e = "%.1f%%"
    g = "the printed 13.3%"  # verbatim: the paper's label
    h = f"{x:.1f} % of tasks"
    return a, b, c, d, e, g, h
'''
    found = tight_percents(src)
    assert [ln for ln, _ in found] == [4, 5, 6, 7, 8], found


@pytest.mark.parametrize("path", sorted(p.relative_to(PKG).as_posix() for p in PKG.rglob("*.py")), ids=lambda p: p)
def test_the_package_writes_every_percentage_with_the_books_space(path):
    if path in VERBATIM_FILES:
        return
    found = tight_percents((PKG / path).read_text())
    assert not found, (
        f"src/compendium/{path}: {found}: write a percentage with compendium.chapter.numbers (percent, share) or "
        "'{x:.1f} %'; a quotation of a paper keeps its own form on a line marked '# verbatim'"
    )


_QUOTED = re.compile(r'"[^"\n]*(?:\n[^"\n]*)?"|“[^”]*”', re.S)
_CODE_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```", re.S | re.M)


def prose_tight_percents(text: str) -> list[str]:
    """The percentages a chapter's MyST text writes tight: "95%", a glued value followed by "%"
    (``{glue:text}`x:.1f`%``) and a glued share formatted by Python (``{glue:text}`x:.0%``), outside quotation
    marks (a quotation keeps its "46.1%")."""
    prose = _CODE_CELL.sub("", text)
    prose = re.sub(r"\{glue:[a-z]+\}`[^`]*`", "{glue}`x`", prose)  # a role's content is no text of the page
    prose = _QUOTED.sub('""', prose)
    found = [m.group(0) for m in re.finditer(r"(?:\d|`)%", prose)]
    found += [m.group(0) for m in re.finditer(r"\{glue:text\}`[^`]*%`", text)]
    return found


CHAPTERS = sorted(paths.NOTEBOOKS.glob("*.md")) + sorted(paths.BOOK.glob("*.md"))


@pytest.mark.parametrize("md", CHAPTERS, ids=lambda p: p.name)
def test_every_chapter_writes_its_percentages_with_the_books_space(md: Path):
    text = md.read_text()
    assert not prose_tight_percents(text), f"{md.name}: {prose_tight_percents(text)}"
    for cell in _CODE_CELL.findall(text):
        code = "\n".join(ln for ln in cell.splitlines() if not ln.lstrip().startswith(("%", "!", ":")))
        assert not tight_percents(code), f"{md.name}: {tight_percents(code)}"


def test_the_prose_scan_keeps_quotations_and_finds_the_rest():
    text = (
        'the paper\'s "workers want automation\nfor 46.1% of tasks"; {glue:text}`a:.1f`% and 95% of\n'
        "{glue:text}`b:.0%` but {glue:text}`c:.1f` % and “59%” stay"
    )
    assert prose_tight_percents(text) == ["`%", "5%", "{glue:text}`b:.0%`"]

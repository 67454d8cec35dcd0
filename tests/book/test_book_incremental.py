"""compendium.book's incremental build: reads only changed pages, writes every page, swaps doctrees with the book.

Each test builds a small Jupyter Book of its own (four pages, a labelled table, {ref}, {numref} and {doc}
references across pages) through the same code path as the project's book (``compendium.book.build``:
Sphinx in a process of its own, built aside, swapped in), with the project's numref extension.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from compendium import book

pytest.importorskip("jupyter_book")

CONFIG = """\
title: "Test book"
author: "Test"
only_build_toc_files: true
exclude_patterns: [_build]
execute:
  execute_notebooks: "off"
sphinx:
  extra_extensions: [compendium.book.sphinx_numref_cache]
  config:
    numfig: true
    html_theme_options:
      show_toc_level: 2
"""
TOC = """\
format: jb-book
root: intro
chapters:
  - file: alpha
  - file: beta
  - file: gamma
"""
PAGES = {
    "intro.md": "# Introduction\n\nThe first chapter is {doc}`alpha`.\n",
    "alpha.md": (
        "(alpha)=\n# Alpha chapter\n\nSome text.\n\n"
        "```{table} Numbers\n:name: tbl-alpha\n\n| x | y |\n|---|---|\n| 1 | 2 |\n```\n"
    ),
    "beta.md": "# Beta chapter\n\nSee {ref}`alpha` and {numref}`tbl-alpha`; also {doc}`alpha`.\n",
    "gamma.md": "# Gamma chapter\n\nNothing about the others.\n",
}


def _no_finish(html_dir: Path, seconds: float) -> int:
    return 0


@pytest.fixture
def small_book(tmp_path):
    src = tmp_path / "book"
    src.mkdir()
    (src / "_config.yml").write_text(CONFIG)
    (src / "_toc.yml").write_text(TOC)
    for name, text in PAGES.items():
        (src / name).write_text(text)
    return src


def _build(src: Path, capsys, fresh: bool = False) -> tuple[int, str]:
    rc = book.build(fresh=fresh, book_dir=src, finish=_no_finish)
    out = capsys.readouterr()
    return rc, out.out + out.err


def _text(page: Path) -> str:
    """A page's visible text, one space between words (what a reader sees, not the markup)."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(page.read_text(), "html.parser")
    for tag in soup(["script", "style"]):
        tag.decompose()
    return " ".join(soup.get_text(" ").split())


def _files(html: Path) -> dict[str, bytes]:
    return {p.relative_to(html).as_posix(): p.read_bytes() for p in sorted(html.rglob("*")) if p.is_file()}


def _generations(src: Path) -> list[str]:
    return sorted(p.name for p in (src / "_build" / ".doctrees").iterdir())


def test_a_changed_title_shows_on_every_page_that_names_it(small_book, capsys):
    rc, out = _build(small_book, capsys)
    assert rc == 0, out
    assert "(fresh:" in out
    page = small_book / "alpha.md"
    page.write_text(page.read_text().replace("# Alpha chapter", "# Renamed chapter"))
    rc, out = _build(small_book, capsys)
    assert rc == 0, out
    assert "(incremental)" in out and "0 added, 1 changed, 0 removed" in out  # only alpha.md was read
    html = small_book / "_build" / "html"
    # beta.html (not changed) references the chapter by {ref} and {doc}; intro.html by {doc}
    assert _text(html / "beta.html").count("Renamed chapter") >= 2
    assert "Renamed chapter" in _text(html / "intro.html")
    for name in ("intro", "alpha", "beta", "gamma"):  # the table of contents of every page
        text = _text(html / f"{name}.html")
        assert "Renamed chapter" in text and "Alpha chapter" not in text, name
    assert "Table 1" in _text(html / "beta.html")  # the {numref} into the unread page still resolves


def test_a_dangling_reference_fails_every_build_until_it_is_fixed(small_book, capsys):
    rc, out = _build(small_book, capsys)
    assert rc == 0, out
    html = small_book / "_build" / "html"
    good = _files(html)
    gens = _generations(small_book)
    # the label goes from alpha.md; beta.md, which refers to it, is not changed (so not read again)
    page = small_book / "alpha.md"
    page.write_text(page.read_text().replace("(alpha)=\n", ""))
    for attempt in (1, 2):  # the retry is incremental too, and must fail the same way
        rc, out = _build(small_book, capsys)
        assert rc != 0, f"attempt {attempt} passed with a dangling reference:\n{out}"
        assert "alpha" in out and "WARNING" in out
        assert "(incremental" in out
        assert _files(html) == good  # the last good book is untouched ...
        assert _generations(small_book) == gens  # ... and so are the doctrees that made it
    page.write_text(PAGES["alpha.md"])
    rc, out = _build(small_book, capsys)
    assert rc == 0, out


def test_a_dangling_reference_in_a_changed_page_fails_again_on_retry(small_book, capsys):
    assert _build(small_book, capsys)[0] == 0
    page = small_book / "gamma.md"
    page.write_text(page.read_text() + "\nSee {ref}`nowhere`.\n")
    assert _build(small_book, capsys)[0] != 0
    rc, out = _build(small_book, capsys)
    assert rc != 0, out
    assert "nowhere" in out


def test_the_incremental_book_equals_a_fresh_build(small_book, capsys):
    assert _build(small_book, capsys)[0] == 0
    page = small_book / "alpha.md"
    page.write_text(page.read_text().replace("# Alpha chapter", "# Renamed chapter").replace("| 1 |", "| 3 |"))
    (small_book / "gamma.md").write_text("# Gamma chapter\n\nNow about {numref}`tbl-alpha`.\n")
    rc, out = _build(small_book, capsys)
    assert rc == 0 and "(incremental)" in out, out
    html = small_book / "_build" / "html"
    incremental = _files(html)
    rc, out = _build(small_book, capsys, fresh=True)
    assert rc == 0 and "(fresh)" in out, out
    fresh = _files(html)
    assert sorted(incremental) == sorted(fresh)  # the same files, no stale one
    # .buildinfo names each build's doctrees (its own id); every other file is byte-identical
    differ = [f for f in fresh if f != ".buildinfo" and incremental[f] != fresh[f]]
    assert differ == []
    assert "Renamed chapter" in _text(html / "alpha.html") and "Table 1" in _text(html / "gamma.html")


def test_a_file_put_back_with_an_old_time_is_read_again(small_book, capsys):
    """Sphinx compares file times; `dvc checkout` or `cp -p` can restore a different file with an old time."""
    assert _build(small_book, capsys)[0] == 0
    page = small_book / "gamma.md"
    page.write_text("# Gamma chapter\n\nRestored text.\n")
    os.utime(page, (946684800, 946684800))  # 2000-01-01: older than the doctrees
    rc, out = _build(small_book, capsys)
    assert rc == 0 and "(incremental)" in out and "1 changed" in out, out
    assert "Restored text." in _text(small_book / "_build" / "html" / "gamma.html")


def test_the_doctrees_change_only_with_the_book(small_book, capsys, monkeypatch):
    from compendium.pipeline import stage

    assert _build(small_book, capsys)[0] == 0
    html = small_book / "_build" / "html"
    first = book.html_build_id(html)
    assert _generations(small_book) == [first]
    good = _files(html)
    # killed at the commit point: the new doctrees were moved in, the book was not swapped
    (small_book / "gamma.md").write_text("# Gamma chapter\n\nChanged.\n")

    def killed(new, dest):
        raise KeyboardInterrupt

    monkeypatch.setattr(stage, "_swap", killed)
    with pytest.raises(KeyboardInterrupt):
        book.build(book_dir=small_book, finish=_no_finish)
    capsys.readouterr()
    monkeypatch.undo()
    assert _files(html) == good and book.html_build_id(html) == first
    assert first in _generations(small_book) and len(_generations(small_book)) == 2
    state, why = book.reusable_state(small_book)
    assert state is not None and state.name == first, why
    # the next build starts from the book's own doctrees, and leaves only the new pair
    rc, out = _build(small_book, capsys)
    assert rc == 0 and "(incremental)" in out, out
    second = book.html_build_id(html)
    assert second != first and _generations(small_book) == [second]
    assert "Changed." in _text(html / "gamma.html")
    # doctrees that no book names are never used: the build is fresh and says why
    (small_book / "_build" / ".doctrees" / second).rename(small_book / "_build" / ".doctrees" / ("0" * 32))
    rc, out = _build(small_book, capsys)
    assert rc == 0 and "fresh: the doctrees of the book in _build/html" in out, out
    assert _generations(small_book) == [book.html_build_id(html)]


def test_a_changed_configuration_makes_the_build_fresh(small_book, capsys):
    assert _build(small_book, capsys)[0] == 0
    cfg = small_book / "_config.yml"
    cfg.write_text(cfg.read_text().replace('title: "Test book"', 'title: "Another title"'))
    rc, out = _build(small_book, capsys)
    assert rc == 0, out
    assert re.search(r"fresh: the book's configuration", out), out

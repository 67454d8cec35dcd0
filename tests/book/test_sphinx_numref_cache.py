"""compendium.book.sphinx_numref_cache: numbered references unpickle each target page once, and resolve as before."""

from pathlib import Path

import pytest

sphinx = pytest.importorskip("sphinx")


def _build(tmp_path: Path, extensions: list[str]) -> tuple[str, int]:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

    src = tmp_path / "src"
    src.mkdir(parents=True)
    (src / "conf.py").write_text(f"extensions = {extensions!r}\nnumfig = True\n")
    (src / "index.rst").write_text("Index\n=====\n\n.. toctree::\n\n   a\n   b\n")
    (src / "a.rst").write_text(
        "A\n=\n\n.. _tbl-x:\n\n.. table:: A table\n\n   ===  ===\n   x    y\n   ===  ===\n   1    2\n   ===  ===\n"
    )
    (src / "b.rst").write_text("B\n=\n\n" + "".join(f"See :numref:`tbl-x` ({k}).\n\n" for k in range(20)))
    calls = []
    real = BuildEnvironment.get_doctree

    def counting(self, docname):
        calls.append(docname)
        return real(self, docname)

    BuildEnvironment.get_doctree = counting
    try:
        app = Sphinx(
            str(src),
            str(src),
            str(tmp_path / "out"),
            str(tmp_path / "doctrees"),
            "html",
            status=None,
            warning=None,
            freshenv=True,
        )
        app.build()
    finally:
        BuildEnvironment.get_doctree = real
    return (tmp_path / "out" / "b.html").read_text(), calls.count("a")


def test_numref_loads_the_target_page_once_and_renders_the_same(tmp_path):
    from sphinx.domains.std import StandardDomain

    original = StandardDomain._resolve_numref_xref
    plain_html, plain_calls = _build(tmp_path / "plain", [])
    try:
        fast_html, fast_calls = _build(tmp_path / "fast", ["compendium.book.sphinx_numref_cache"])
    finally:
        StandardDomain._resolve_numref_xref = original
    assert plain_calls >= 20  # one unpickling per reference without the extension
    assert fast_calls <= plain_calls - 19
    assert fast_html.count("Table 1") == plain_html.count("Table 1") == 20

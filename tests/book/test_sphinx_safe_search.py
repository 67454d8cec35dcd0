"""The search page's script sets result titles and descriptions as text (compendium.book.sphinx_safe_search)."""

from pathlib import Path

import pytest
import sphinx

from compendium.book.sphinx_safe_search import SearchPatchError, patch_searchtools

SEARCHTOOLS = Path(sphinx.__file__).parent / "themes" / "basic" / "static" / "searchtools.js"


def test_installed_searchtools_is_patched_to_text_content():
    js = SEARCHTOOLS.read_text(encoding="utf-8")
    assert "linkEl.innerHTML = title;" in js  # what Sphinx ships: titles parsed as HTML
    out = patch_searchtools(js)
    assert "linkEl.textContent = title;" in out and "linkEl.innerHTML" not in out
    assert ".innerHTML =" not in out
    assert patch_searchtools(out) == out  # idempotent (a rebuild over a patched copy)


def test_an_unknown_searchtools_fails_the_build_with_a_message():
    with pytest.raises(SearchPatchError, match="a Sphinx release other than 7.4"):
        patch_searchtools("const x = 1;")
    js = patch_searchtools(SEARCHTOOLS.read_text(encoding="utf-8")) + "\nel.innerHTML = summary;"
    with pytest.raises(SearchPatchError, match="still uses innerHTML"):
        patch_searchtools(js)


def test_the_built_book_uses_the_patched_script():
    from compendium.pipeline import paths

    built = paths.ROOT / "book" / "_build" / "html" / "_static" / "searchtools.js"
    if not built.exists():
        pytest.skip("the book is not built (make reproduce)")
    js = built.read_text(encoding="utf-8")
    assert "linkEl.textContent = title;" in js and "linkEl.innerHTML" not in js

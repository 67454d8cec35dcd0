"""The browser check's accessibility rules: content images need real alt text; axe findings are split into
WCAG A/AA violations (fail) and best-practice findings (reported)."""

from compendium.book.browsercheck import alt_problem, axe_source, split_axe, static_problems


def _site(tmp_path, main, outside=""):
    (tmp_path / "img.png").write_bytes(b"\x89PNG")
    (tmp_path / "a.html").write_text(f"<html><body>{outside}<main>{main}</main></body></html>")
    return tmp_path


def test_content_images_without_real_alt_text_are_problems(tmp_path):
    site = _site(
        tmp_path,
        "<img src='img.png'><img src='img.png' alt=' '><img src='img.png' alt='img.png'>"
        "<img src='img.png' alt='../_images/f55a97a3.png'>"
        "<img src='img.png' alt='Bar chart: 46.1 % of tasks have desire above 3.'>",
        outside="<img src='img.png' alt=''>",
    )
    probs = [p for p in static_problems(site) if "alt" in p]
    assert len(probs) == 4, probs
    assert any("without alt text" in p for p in probs) and any("empty alt" in p for p in probs)
    assert sum("is a file name" in p for p in probs) == 2


def test_alt_problem_accepts_descriptions_mentioning_files():
    from bs4 import BeautifulSoup

    img = BeautifulSoup("<img src='x.png' alt='Heatmap of results/pwb tables: 7 models.'>", "html.parser").img
    assert alt_problem(img) is None


def test_split_axe_fails_only_on_wcag_a_and_aa():
    result = {
        "violations": [
            {"id": "region", "tags": ["cat.keyboard", "best-practice"]},
            {"id": "color-contrast", "tags": ["cat.color", "wcag2aa", "wcag143"]},
            {"id": "label-content-name-mismatch", "tags": ["cat.semantics", "wcag21a", "wcag253"]},
            {"id": "color-contrast-enhanced", "tags": ["cat.color", "wcag2aaa", "wcag146"]},
        ]
    }
    wcag, other = split_axe(result)
    assert [v["id"] for v in wcag] == ["color-contrast", "label-content-name-mismatch"]
    assert [v["id"] for v in other] == ["region", "color-contrast-enhanced"]


def test_axe_source_names_the_make_target_when_missing(tmp_path, monkeypatch):
    import pytest

    monkeypatch.setenv("AXE_CORE", str(tmp_path / "nope.js"))
    with pytest.raises(FileNotFoundError, match="make node_modules"):
        axe_source()

"""The book's chrome (compendium.book.sphinx_chrome, book/_static/chrome.js; issue 33): figures link their full
size, the download menu offers only what the book holds, the footer links the PDF, the CHANGELOG and the
repository, BibTeX beside "Cite as", and the repository link and launch buttons come from CITATION.cff's
repository-code alone (none while it is unset)."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
from bs4 import BeautifulSoup
from docutils import nodes

from compendium.book import sphinx_chrome as chrome

needs_chromium = pytest.mark.skipif(
    not (shutil.which("chromium") or shutil.which("chromium-browser")),
    reason="no Chromium installed (`make chromium`; CI installs it before the tests)",
)

# --- the repository and the launch buttons: one setting, and nothing without it


def test_no_repository_no_launch_buttons_and_no_repository_link():
    assert chrome.launch_links(None, "notebooks/10_pwb.md") == []
    assert chrome.launch_links("", "notebooks/10_pwb.md") == []
    assert chrome.header_buttons(None, "notebooks/10_pwb.md") == []
    assert "Source repository" not in chrome.footer_links("", None, changelog=True)


def test_launch_links_have_the_shapes_binder_and_colab_read():
    gh = "https://github.com/example-org/compendium"
    assert chrome.launch_links(gh, "notebooks/10_pwb.md") == [
        ("Binder", "https://mybinder.org/v2/gh/example-org/compendium/HEAD?urlpath=tree/notebooks/10_pwb.md")
    ]  # Colab opens no MyST .md notebook: no Colab button for the chapters
    assert chrome.launch_links(gh, "book/x.ipynb") == [
        ("Binder", "https://mybinder.org/v2/gh/example-org/compendium/HEAD?urlpath=tree/book/x.ipynb"),
        ("Colab", "https://colab.research.google.com/github/example-org/compendium/blob/HEAD/book/x.ipynb"),
    ]
    assert chrome.launch_links("https://gitlab.com/group/sub/repo", "notebooks/a b.md") == [
        ("Binder", "https://mybinder.org/v2/gl/group%2Fsub%2Frepo/HEAD?urlpath=tree/notebooks/a%20b.md")
    ]
    assert chrome.launch_links("https://git.example.org/team/repo", "notebooks/10_pwb.md") == [
        (
            "Binder",
            "https://mybinder.org/v2/git/https%3A%2F%2Fgit.example.org%2Fteam%2Frepo/HEAD"
            "?urlpath=tree/notebooks/10_pwb.md",
        )
    ]


def test_header_buttons_for_a_repository():
    gh = "https://github.com/example-org/compendium"
    repo_button, launch = chrome.header_buttons(gh, "notebooks/10_pwb.md")
    assert repo_button == {
        "type": "link",
        "url": gh,
        "tooltip": "Source repository",
        "icon": "fab fa-github",
        "label": "source-repository-button",
    }
    assert launch["type"] == "group" and launch["label"] == "launch-buttons"
    assert [b["text"] for b in launch["buttons"]] == ["Binder"]
    assert launch["buttons"][0]["url"] == (
        "https://mybinder.org/v2/gh/example-org/compendium/HEAD?urlpath=tree/notebooks/10_pwb.md"
    )
    assert launch["buttons"][0]["icon"] == "_static/images/logo_binder.svg"  # the theme's own, offline
    # a page without a notebook (the landing page) gets the repository link only
    assert chrome.header_buttons(gh, None) == [repo_button]
    assert chrome.header_buttons("https://codeberg.org/o/r", None)[0]["icon"] == "fas fa-code-branch"


# --- downloads: what the built book holds; the PDF only through chrome.js


_THEME_DOWNLOADS = [
    {"type": "link", "url": "../_sources/executed/10_pwb.ipynb", "text": ".ipynb", "label": "download-source-button"},
    {"type": "javascript", "javascript": "window.print()", "text": ".pdf", "label": "download-pdf-button"},
]


def test_download_menu_offers_the_myst_source_the_notebook_and_the_book_pdf():
    menu = chrome.download_buttons(_THEME_DOWNLOADS, "../", "notebooks/10_pwb.md", copied=True)
    assert [(b["type"], b.get("url"), b["text"]) for b in menu] == [
        ("link", "../_sources/notebooks/10_pwb.md", ".md"),
        ("link", "../_sources/executed/10_pwb.ipynb", ".ipynb"),
        ("javascript", None, ".pdf"),
    ]
    # the theme's "print this page" is gone; the PDF entry is a button chrome.js turns into a link, never a link
    # to a file that may not be there
    assert menu[-1]["javascript"] == "compendiumPdf()" and "window.print()" not in str(menu)
    # sources not copied into the book (html_copy_source off): no link to them
    assert [b["text"] for b in chrome.download_buttons(_THEME_DOWNLOADS, "../", None, copied=False)] == [".pdf"]


def test_the_pdf_is_looked_for_where_make_pdf_writes_it():
    from compendium.book import html, pdf

    assert chrome.pdf_paths("") == ("../pdf/book.pdf", "../pdf/book-pdf.js")
    assert chrome.pdf_paths("../") == ("../../pdf/book.pdf", "../../pdf/book-pdf.js")
    assert (html.HTML.parent / "pdf" / "book.pdf") == pdf.PDF and pdf.PDF_INFO.parent == pdf.PDF.parent


def test_footer_links_the_pdf_the_changelog_and_the_repository():
    soup = BeautifulSoup(chrome.footer_links("../", "https://github.com/o/r", changelog=True), "html.parser")
    span = soup.find("span", class_="compendium-pdf")
    assert span["data-compendium-pdf"] == "../../pdf/book.pdf"
    assert span["data-compendium-pdf-info"] == "../../pdf/book-pdf.js"
    assert span.find("a") is None  # no link before chrome.js found the PDF
    assert [(a.get_text(), a["href"]) for a in soup.find_all("a")] == [
        ("Changelog", "../changelog.html"),
        ("Source repository", "https://github.com/o/r"),
    ]
    assert BeautifulSoup(chrome.footer_links("", None, changelog=False), "html.parser").find("a") is None


# --- the CHANGELOG page


def test_changelog_is_markdown_whose_raw_html_is_text():
    out = chrome.changelog_html(
        '# Changelog\n\n*d*<sub>pooled</sub> <img src=x onerror=alert(1)> `<span class="x">`\n\n'
        "<div onclick=pwn()>block</div>\n\n[the README](README.md), [DVC](https://dvc.org) ![a plot](plot.png)\n",
        highlight=lambda code, lang: f'<div class="highlight"><pre>{code}</pre></div>',
    )
    soup = BeautifulSoup(out, "html.parser")
    assert [t.name for t in soup.find_all(True)] == ["h1", "p", "em", "sub", "code", "p", "a"]
    assert "<img src=x onerror=alert(1)>" in soup.get_text() and "<div onclick=pwn()>" in soup.get_text()
    assert [a["href"] for a in soup.find_all("a")] == ["https://dvc.org"]  # a file of the repository: text only
    assert "the README" in soup.get_text() and "a plot" in soup.get_text()


# --- figures at full size


def test_every_figure_image_links_to_its_file_in_images():
    img = nodes.image(uri="../jupyter_execute/fig.png", candidates={"image/png": "../jupyter_execute/fig.png"})
    fig = nodes.figure("", img, nodes.caption(text="Fig. 1"))
    plain = nodes.image(uri="other.png", candidates={"*": "other.png"})  # not in a figure: left alone
    remote = nodes.image(uri="https://x.org/a.png", candidates={"?": "https://x.org/a.png"})
    doc = nodes.document(None, None)
    doc += [fig, plain, nodes.figure("", remote)]
    app = SimpleNamespace(
        builder=SimpleNamespace(name="html", format="html", get_target_uri=lambda d: d + ".html"),
        env=SimpleNamespace(images={"../jupyter_execute/fig.png": ({"executed/10_pwb"}, "abc 1.png")}),
    )
    assert chrome.link_figures(app, doc, "executed/10_pwb") == 1
    ref = img.parent
    assert isinstance(ref, nodes.reference) and ref.parent is fig
    assert ref["refuri"] == "../_images/abc%201.png" and chrome.FULLSIZE in ref["classes"]
    assert not isinstance(plain.parent, nodes.reference) and not isinstance(remote.parent, nodes.reference)
    assert chrome.link_figures(app, doc, "executed/10_pwb") == 0  # already linked
    # the single page the PDF is printed from: no link (its relative addresses would be dead in the PDF)
    fresh = nodes.document(None, None)
    fresh += nodes.figure(
        "", nodes.image(uri="../jupyter_execute/fig.png", candidates={"image/png": "../jupyter_execute/fig.png"})
    )
    app.builder.name = "singlehtml"
    assert chrome.link_figures(app, fresh, "executed/10_pwb") == 0


# --- chrome.js: the PDF is linked when make pdf wrote it, and said to be not built otherwise

_JS = (Path(chrome.__file__).parents[3] / "book" / "_static" / "chrome.js").read_text()


def _pdf_state(tmp_path, built: bool):
    from playwright.sync_api import sync_playwright

    from compendium.book import browsercheck as bc

    html = tmp_path / "_build" / "html"
    (html / "executed").mkdir(parents=True)
    (html / "chrome.js").write_text(_JS)
    pdf_dir = tmp_path / "_build" / "pdf"
    pdf_dir.mkdir()
    if built:
        (pdf_dir / "book.pdf").write_bytes(b"%PDF-1.4\n")
        (pdf_dir / "book-pdf.js").write_text(
            'window.COMPENDIUM_PDF = {"bytes": 2500000, "file": "book.pdf", "pages": 130};\n'
        )
    footer = chrome.footer_links("../", None, changelog=False)
    (html / "executed" / "page.html").write_text(
        "<!doctype html><html><head><meta charset='utf-8'><script src='../chrome.js'></script></head><body>"
        "<ul><li><button onclick='compendiumPdf()' class='btn btn-sm btn-download-pdf-button dropdown-item'>"
        "<span class='btn__text-container'>.pdf</span></button></li></ul>" + footer + "</body></html>"
    )
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=bc.chromium_path(), headless=True, args=bc.CHROMIUM_ARGS)
        page = b.new_page()
        page.goto((html / "executed" / "page.html").as_uri(), wait_until="load")
        page.wait_for_function("() => document.querySelector('[data-compendium-pdf-state]')")
        out = page.evaluate(
            """() => ({
            text: document.querySelector('.compendium-pdf').textContent,
            links: [...document.querySelectorAll('a')].map(a => [a.textContent, a.href]),
            button: (b => b ? [b.disabled, b.textContent.trim()] : null)(document.querySelector('button'))})"""
        )
        b.close()
    return out, pdf_dir


@needs_chromium
def test_the_pdf_is_linked_once_make_pdf_wrote_it(tmp_path):
    out, pdf_dir = _pdf_state(tmp_path, built=True)
    target = (pdf_dir / "book.pdf").as_uri()
    assert out["text"] == "The whole book as one PDF (130 pages, 2.5 MB)"
    assert out["links"] == [[".pdf", target], ["The whole book as one PDF", target]]
    assert out["button"] is None  # the menu's entry became a link


@needs_chromium
def test_a_pdf_not_built_is_said_so_and_never_linked(tmp_path):
    out, _ = _pdf_state(tmp_path, built=False)
    assert out["links"] == []
    assert out["text"] == ("The PDF of the whole book is not built: make pdf writes it to book/_build/pdf/book.pdf.")
    assert out["button"] == [True, ".pdf (not built)"]


# --- a small book built with the extension, CITATION.cff's repository-code unset and set

_CFF = """\
cff-version: 1.2.0
message: Cite it.
title: "A <b>bold</b> & {braced} compendium"
authors:
  - {family-names: Doe, given-names: Jane}
version: 1.2.3
date-released: "2026-01-02"
license: MIT
"""
_CONFIG = """\
title: "Test book"
author: "Test"
only_build_toc_files: true
exclude_patterns: [_build]
execute:
  execute_notebooks: "off"
sphinx:
  extra_extensions: [compendium.book.sphinx_chrome]
  config:
    compendium_citation: {cff}
    compendium_changelog: {changelog}
    html_theme_options:
      use_download_button: true
      navbar_persistent: []
"""
_TOC = "format: jb-book\nroot: intro\nchapters:\n  - file: executed/10_pwb\n"


def _small_book(tmp_path, repository: str | None) -> Path:
    pytest.importorskip("jupyter_book")
    from compendium import book

    src = tmp_path / "book"
    (src / "executed").mkdir(parents=True)
    cff = tmp_path / "CITATION.cff"
    cff.write_text(_CFF + (f"repository-code: {repository}\n" if repository else ""))
    changelog = tmp_path / "CHANGELOG.md"
    changelog.write_text("# Changelog\n\n## 1.2.3\n\n- A <script>alert(1)</script> fix.\n")
    (src / "_config.yml").write_text(_CONFIG.format(cff=cff, changelog=changelog))
    (src / "_toc.yml").write_text(_TOC)
    (src / "intro.md").write_text("# Intro\n\n**Cite as:** Doe (2026).\n\n```{citation-bibtex}\n```\n")
    # a chapter page named as the compendium's: its MyST notebook is notebooks/10_pwb.md of the repository
    (src / "executed" / "10_pwb.md").write_text("# A chapter\n\nText.\n")
    assert book.build(fresh=True, book_dir=src, finish=lambda html, seconds: 0) == 0
    return src / "_build" / "html"


def _everything(html: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(html.rglob("*.html")))


def test_a_book_without_repository_code_shows_no_repository_and_no_launch_button(tmp_path):
    html = _small_book(tmp_path, None)
    text = _everything(html)
    for absent in ("mybinder.org", "colab.research.google.com", "source-repository-button", "launch-buttons"):
        assert absent not in text, absent
    page = BeautifulSoup((html / "executed" / "10_pwb.html").read_text(encoding="utf-8"), "html.parser")
    menu = page.select(".dropdown-download-buttons .dropdown-item")
    assert [(m.name, m.get("href"), m.get_text(strip=True)) for m in menu] == [
        ("a", "../_sources/notebooks/10_pwb.md", ".md"),
        ("a", "../_sources/executed/10_pwb.md", ".md"),
        ("button", None, ".pdf"),
    ]
    for m in menu:  # every download link points at a file of the built book
        if m.get("href"):
            assert (html / "executed" / m["href"]).resolve().is_file(), m["href"]
    assert page.select_one(".compendium-links a[href='../changelog.html']") is not None
    # the CHANGELOG page: its raw HTML is text
    changelog = (html / "changelog.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in changelog and "<script>alert(1)" not in changelog
    # BibTeX beside "Cite as", from the CITATION.cff, its markup escaped for LaTeX and for HTML
    intro = BeautifulSoup((html / "intro.html").read_text(encoding="utf-8"), "html.parser")
    bib = intro.select_one(".compendium-bibtex pre").get_text()
    assert bib.startswith("@software{doe2026,") and "author  = {Doe, Jane}" in bib
    assert r"title   = {{A <b>bold</b> \& \{braced\} compendium}}" in bib
    assert "<b>bold</b>" not in (html / "intro.html").read_text(encoding="utf-8")  # shown as text, not markup


def test_a_book_with_repository_code_links_it_and_launches_the_chapter_on_binder(tmp_path):
    repo = "https://github.com/example-org/compendium"
    html = _small_book(tmp_path, repo)
    chapter = BeautifulSoup((html / "executed" / "10_pwb.html").read_text(encoding="utf-8"), "html.parser")
    launch = chapter.select(".dropdown-launch-buttons a")
    assert [(a.get_text(strip=True), a["href"]) for a in launch] == [
        ("Binder", "https://mybinder.org/v2/gh/example-org/compendium/HEAD?urlpath=tree/notebooks/10_pwb.md")
    ]
    assert launch[0].img["src"] == "../_static/images/logo_binder.svg"
    assert (html / "_static" / "images" / "logo_binder.svg").is_file()
    assert chapter.select_one("a.btn-source-repository-button")["href"] == repo
    assert chapter.select_one(".compendium-links a[href='https://github.com/example-org/compendium']") is not None
    intro = BeautifulSoup((html / "intro.html").read_text(encoding="utf-8"), "html.parser")
    assert intro.select_one("a.btn-source-repository-button")["href"] == repo
    assert intro.select(".dropdown-launch-buttons") == []  # the landing page has no notebook to launch
    assert (
        "url     = {https://github.com/example-org/compendium}" in intro.select_one(".compendium-bibtex pre").get_text()
    )

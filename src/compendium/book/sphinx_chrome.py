"""Sphinx extension: the book's chrome, what a reader of a Jupyter Book expects around the pages (issue 33).

- **Figures at full size.** Every image of a figure links to its PNG in ``_images/`` (``doctree-resolved``,
  :func:`link_figures`), as Sphinx links a scaled image: the page shows it at the column's width, a click opens it
  at its own. No script, nothing fetched.
- **Downloads.** The theme's download menu offers only what the built book holds, all offline: a chapter's MyST
  source (``notebooks/NN_name.md``, copied into ``_sources/notebooks/``), the executed notebook or the page's
  Markdown source (Sphinx's ``_sources/``) and the PDF of the whole book in place of the theme's "print this page".
  The PDF is where ``make pdf`` writes it (``book/_build/pdf/book.pdf``, :data:`compendium.book.pdf.PDF`), which
  is outside the HTML book and may not exist, or appear after the book was built: ``book/_static/chrome.js``
  loads the small ``book-pdf.js`` that :mod:`compendium.book.pdf` writes beside a PDF that passed its checks,
  and only then turns the menu entry and the footer's mention into links; otherwise they say it is not built.
- **Links.** The footer of every page links the PDF (as above), the CHANGELOG (rendered into ``changelog.html``
  by :func:`changelog_html`: Markdown without raw HTML but ``<sub>``/``<sup>``, links only to web addresses) and
  the repository.
- **The repository and the launch buttons** come from one setting, ``repository-code`` in ``CITATION.cff``
  (:func:`compendium.book.fair.repository_url`, the field the FAIR metadata read too): with it, a repository
  button in every page's header and the footer's link, and on each chapter a Binder button opening the chapter's
  notebook in the repository (:func:`launch_links`; Colab opens only ``.ipynb`` files, and the chapters are MyST
  ``.md`` notebooks, so no Colab button is made for them). Without it (today) none of them: no address is
  invented.
- **BibTeX** beside "Cite as" on the landing page: the ``citation-bibtex`` directive shows
  :func:`compendium.book.fair.bibtex` of ``CITATION.cff`` as a code block (text, escaped by the HTML writer).

Every string that comes from a file (a file name, the repository address, the CHANGELOG) is escaped for HTML
here (the theme's templates do not escape). One search box per page is the theme's configuration
(``navbar_persistent: []`` in ``book/_config.yml``); the browser check (:mod:`compendium.book.browsercheck`)
counts the search boxes and the figures' links. Enabled in ``book/_config.yml`` (``sphinx.config.extensions``).
"""

from __future__ import annotations

import html
import os
import posixpath
import re
import shutil
from pathlib import Path
from urllib.parse import quote, urlsplit

from docutils import nodes
from sphinx.util.docutils import SphinxDirective
from sphinx.util.osutil import relative_uri

BINDER = "https://mybinder.org"
COLAB = "https://colab.research.google.com"
#: the repository's default branch, whatever its name: Binder and GitHub both resolve ``HEAD``
REF = "HEAD"
#: the rendered CHANGELOG, at the book's root
CHANGELOG_PAGE = "changelog"
FULLSIZE = "compendium-fullsize"


def _e(text: str) -> str:
    return html.escape(str(text), quote=True)


# --------------------------------------------------------------------------- the repository and launch buttons


def repository_parts(repo: str) -> tuple[str, str, str]:
    """(host, owner, name) of a repository address (:func:`compendium.book.fair.repository_url`); owner may hold
    a GitLab group's subgroups (``group/sub``); ('host', '', '') when the path has fewer than two parts."""
    parts = urlsplit(repo)
    segs = [s for s in parts.path.split("/") if s]
    if len(segs) < 2:
        return parts.netloc.lower(), "", ""
    return parts.netloc.lower(), "/".join(segs[:-1]), segs[-1]


def launch_links(repo: str | None, source: str) -> list[tuple[str, str]]:
    """(service, address) of the launch buttons of a page whose notebook is ``source`` in the repository
    (``notebooks/10_pwb.md``); [] without a repository.

    Binder builds the repository's default branch and opens the notebook in the classic interface (jupytext,
    in the environment, opens a MyST ``.md`` notebook as a notebook): ``/v2/gh/<owner>/<repo>`` on GitHub,
    ``/v2/gl/<group%2Frepo>`` on GitLab, ``/v2/git/<address>`` elsewhere. Colab opens only an ``.ipynb`` file
    from GitHub, so it gets a button only for such a notebook."""
    if not repo:
        return []
    host, owner, name = repository_parts(repo)
    path = quote(source)
    if host == "github.com" and owner and "/" not in owner:
        binder = f"{BINDER}/v2/gh/{quote(owner)}/{quote(name)}/{REF}"
    elif host == "gitlab.com" and owner:
        binder = f"{BINDER}/v2/gl/{quote(owner + '/' + name, safe='')}/{REF}"
    else:
        binder = f"{BINDER}/v2/git/{quote(repo, safe='')}/{REF}"
    links = [("Binder", f"{binder}?urlpath={quote('tree/' + source)}")]
    if host == "github.com" and owner and "/" not in owner and source.endswith(".ipynb"):
        links.append(("Colab", f"{COLAB}/github/{quote(owner)}/{quote(name)}/blob/{REF}/{path}"))
    return links


def repository_icon(repo: str) -> str:
    host = repository_parts(repo)[0]
    return {"github.com": "fab fa-github", "gitlab.com": "fab fa-gitlab"}.get(host, "fas fa-code-branch")


_LAUNCH_ICONS = {"Binder": "_static/images/logo_binder.svg", "Colab": "_static/images/logo_colab.png"}


def header_buttons(repo: str | None, source: str | None) -> list[dict]:
    """The theme's header buttons (``context["header_buttons"]`` entries) for the repository and, on a page
    whose notebook is ``source``, its launch buttons; [] without a repository. Values escaped for HTML."""
    if not repo:
        return []
    out = [
        {
            "type": "link",
            "url": _e(repo),
            "tooltip": "Source repository",
            "icon": repository_icon(repo),
            "label": "source-repository-button",
        }
    ]
    links = launch_links(repo, source) if source else []
    if links:
        out.append(
            {
                "type": "group",
                "tooltip": "Launch this chapter's notebook",
                "icon": "fas fa-rocket",
                "label": "launch-buttons",
                "buttons": [
                    {
                        "type": "link",
                        "text": service,
                        "tooltip": f"Open {_e(source)} on {service}",
                        "icon": _LAUNCH_ICONS[service],
                        "url": _e(url),
                    }
                    for service, url in links
                ],
            }
        )
    return out


# --------------------------------------------------------------------------- downloads and the footer's links


def pdf_paths(root: str) -> tuple[str, str]:
    """(the PDF, its ``book-pdf.js``) relative to a page ``root`` below the HTML book's root (``""`` or
    ``"../"``): where ``make pdf`` writes them, seen from ``book/_build/html``."""
    from compendium.book import html as book_html, pdf

    rel = Path(os.path.relpath(pdf.PDF, book_html.HTML)).as_posix()
    info = Path(os.path.relpath(pdf.PDF_INFO, book_html.HTML)).as_posix()
    return root + rel, root + info


def download_buttons(theme_buttons: list[dict], root: str, md_source: str | None, copied: bool) -> list[dict]:
    """The download menu: the chapter's MyST source (``md_source``, when it was copied into the book), the
    theme's entry for the page's source in ``_sources`` (kept only if Sphinx copies sources: ``copied``), and the
    PDF of the whole book (a button ``book/_static/chrome.js`` turns into a link once it finds the PDF) in place
    of the theme's "print this page"."""
    out = []
    if md_source:
        out.append(
            {
                "type": "link",
                "url": _e(root + "_sources/" + quote(md_source)),
                "text": ".md",
                "tooltip": f"The chapter's MyST notebook, {_e(md_source)}",
                "icon": "fas fa-file",
                "label": "download-myst-button",
            }
        )
    if copied:
        out += [b for b in theme_buttons if b.get("type") == "link" and "/_sources/" in "/" + b.get("url", "")]
    out.append(
        {
            "type": "javascript",
            "javascript": "compendiumPdf()",
            "text": ".pdf",
            "tooltip": "The whole book as one PDF (make pdf)",
            "icon": "fas fa-file-pdf",
            "label": "download-pdf-button",
        }
    )
    return out


def footer_links(root: str, repo: str | None, changelog: bool) -> str:
    """The footer's links (HTML): the PDF of the whole book (a mention that ``book/_static/chrome.js`` turns
    into a link, or into "not built"), the CHANGELOG and, when set, the repository."""
    pdf, info = pdf_paths(root)
    items = [
        f'<span class="compendium-pdf" data-compendium-pdf="{_e(pdf)}" data-compendium-pdf-info="{_e(info)}">'
        "The PDF of the whole book: <code>make pdf</code> writes it to <code>book/_build/pdf/book.pdf</code>."
        "</span>"
    ]
    if changelog:
        items.append(f'<a href="{_e(root + CHANGELOG_PAGE + ".html")}">Changelog</a>')
    if repo:
        items.append(f'<a href="{_e(repo)}">Source repository</a>')
    return '<p class="compendium-links">' + " · ".join(items) + "</p>"


# --------------------------------------------------------------------------- the CHANGELOG page

#: the raw tags the CHANGELOG may use, as they read once escaped
_ALLOWED_TAGS = re.compile(r"&lt;/?(sub|sup)&gt;")


def changelog_html(text: str, highlight=None) -> str:
    """The CHANGELOG (Markdown) as HTML for the book: CommonMark with tables; raw HTML is shown as text except
    the tags ``<sub>``, ``</sub>``, ``<sup>``, ``</sup>`` (exactly, no attributes); a link or image to anything
    but a web address (a file of the repository, which the book does not hold) keeps only its text; a fenced
    block is ``highlight(code, lang)`` (the book's Pygments, so it wraps like the chapters' code) when given."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": True}).enable("table")

    def web(href: str) -> bool:
        return href.startswith(("https://", "http://", "mailto:", "#"))

    def drop_local_links(state) -> None:
        for tok in state.tokens:
            if tok.type != "inline" or not tok.children:
                continue
            kids, dropped = [], []
            for child in tok.children:
                if child.type == "link_open":
                    keep = web(child.attrGet("href") or "")
                    dropped.append(not keep)
                    if keep:
                        kids.append(child)
                elif child.type == "link_close":
                    if not dropped.pop():
                        kids.append(child)
                elif child.type == "image" and not web(child.attrGet("src") or ""):
                    alt = child.copy()
                    alt.type, alt.tag, alt.children = "text", "", None
                    alt.content = "".join(c.content for c in (child.children or []))
                    kids.append(alt)
                else:
                    kids.append(child)
            tok.children = kids

    md.core.ruler.push("compendium_local_links", drop_local_links)

    def raw_as_text(renderer, tokens, idx, options, env):
        return _ALLOWED_TAGS.sub(lambda m: html.unescape(m.group(0)), html.escape(tokens[idx].content, quote=False))

    md.add_render_rule("html_inline", raw_as_text)
    md.add_render_rule("html_block", raw_as_text)
    if highlight is not None:

        def fence(renderer, tokens, idx, options, env):
            tok = tokens[idx]
            lang = (tok.info or "").split()[0] if tok.info else ""
            return highlight(tok.content, lang)

        md.add_render_rule("fence", fence)
        md.add_render_rule("code_block", lambda renderer, tokens, idx, options, env: highlight(tokens[idx].content, ""))
    return md.render(text)


def _lexer_name(lang: str) -> str:
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        get_lexer_by_name(lang)
    except ClassNotFound:
        return "text"
    return lang


def _collect_changelog(app):
    """The CHANGELOG as the page ``changelog.html`` (the HTML book only, not the PDF's single page)."""
    if app.builder.name != "html" or not Path(app.config.compendium_changelog).is_file():
        return
    text = Path(app.config.compendium_changelog).read_text(encoding="utf-8")

    def highlight(code: str, lang: str) -> str:
        lang = _lexer_name(lang or "text")
        block = app.builder.highlighter.highlight_block(code, lang)
        return f'<div class="highlight-{_e(lang)} notranslate">{block}</div>\n'

    body = changelog_html(text, highlight)
    yield CHANGELOG_PAGE, {"title": "Changelog", "body": body, "display_toc": False}, "page.html"


# --------------------------------------------------------------------------- figures at full size


def link_figures(app, doctree, docname: str) -> int:
    """Wrap every figure's image in a link to its file in ``_images/`` (the name Sphinx gives it there); returns
    how many. An image already inside a link, or not a file of the book (a web address), is left alone. The HTML
    book only: the single page the PDF is printed from (``singlehtml``) keeps its images unlinked."""
    if app.builder.name != "html":
        return 0
    imgpath = relative_uri(app.builder.get_target_uri(docname), "_images")
    n = 0
    for fig in doctree.findall(nodes.figure):
        for img in list(fig.findall(nodes.image)):
            if isinstance(img.parent, nodes.reference):
                continue
            candidates = img.get("candidates", {})
            uri = img["uri"] if "*" in candidates or not candidates else next(iter(candidates.values()))
            if "?" in candidates or uri not in app.env.images:
                continue
            ref = nodes.reference(
                "",
                "",
                refuri=posixpath.join(imgpath, quote(app.env.images[uri][1])),
                internal=True,
                reftitle="Open the figure at full size",
                classes=[FULLSIZE],
            )
            img.replace_self(ref)
            ref.append(img)
            n += 1
    return n


# --------------------------------------------------------------------------- the page context


def _notebook_sources() -> dict[str, str]:
    """executed page -> the chapter's MyST notebook in the repository (``executed/10_pwb`` ->
    ``notebooks/10_pwb.md``), for the notebooks that exist."""
    from compendium.pipeline import paths, studies

    out = {}
    for st in studies.ALL_STAGES:
        if st.notebook and (paths.NOTEBOOKS / f"{st.notebook}.md").is_file():
            out[f"executed/{st.notebook}"] = f"notebooks/{st.notebook}.md"
    return out


def _repository(app) -> str | None:
    from compendium.book import fair

    path = Path(app.config.compendium_citation)
    return fair.repository_url(fair.load_cff(path), path) if path.is_file() else None


def _builder_inited(app) -> None:
    app._compendium_chrome = {
        "repo": _repository(app),
        "sources": _notebook_sources(),
        "changelog": Path(app.config.compendium_changelog).is_file(),
    }


def _page_context(app, pagename, templatename, context, doctree) -> None:
    if app.builder.format != "html":
        return
    state = app._compendium_chrome
    root = "../" * pagename.count("/")
    source = state["sources"].get(pagename)
    buttons = context.get("header_buttons")
    if buttons is not None:
        md_source = None
        if source:  # the chapter's MyST notebook, copied into the book so that the menu's link holds
            dest = Path(app.outdir) / "_sources" / source
            dest.parent.mkdir(parents=True, exist_ok=True)
            from compendium.pipeline import paths

            shutil.copyfile(paths.ROOT / source, dest)
            md_source = source
        for group in buttons:
            if group.get("label") == "download-buttons":
                group["buttons"] = download_buttons(
                    group["buttons"], root, md_source, bool(app.config.html_copy_source)
                )
        buttons.extend(header_buttons(state["repo"], source))
    extra = context.get("theme_extra_footer") or ""
    context["theme_extra_footer"] = extra + footer_links(root, state["repo"], state["changelog"])


# --------------------------------------------------------------------------- BibTeX beside "Cite as"


class CitationBibtex(SphinxDirective):
    """``{citation-bibtex}``: the compendium's BibTeX entry from ``CITATION.cff`` (the landing page)."""

    has_content = False

    def run(self):
        from compendium.book import fair

        path = Path(self.config.compendium_citation)
        self.env.note_dependency(str(path))
        text = fair.bibtex(fair.load_cff(path), path)
        intro = nodes.paragraph()
        intro += nodes.strong(text="BibTeX")
        intro += [
            nodes.Text(" (from "),
            nodes.literal(text="CITATION.cff"),
            nodes.Text(", as the Zenodo and CodeMeta records):"),
        ]
        block = nodes.literal_block(text, text, language="bibtex")
        box = nodes.container(classes=["compendium-bibtex"])
        box += [intro, block]
        return [box]


def setup(app):
    from compendium.pipeline import paths

    app.add_config_value("compendium_citation", str(paths.ROOT / "CITATION.cff"), "env")
    app.add_config_value("compendium_changelog", str(paths.ROOT / "CHANGELOG.md"), "env")
    app.add_directive("citation-bibtex", CitationBibtex)
    app.connect("builder-inited", _builder_inited)
    app.connect("doctree-resolved", link_figures)
    app.connect("html-page-context", _page_context, priority=600)  # after the theme's buttons (501)
    app.connect("html-collect-pages", _collect_changelog)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

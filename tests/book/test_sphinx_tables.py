"""Wide tables in the margin, paths that break, prose with a width (compendium.book.sphinx_tables).

How they look at 1280 px is the browser check's (tests/book/test_browsercheck.py: a table cut at the edge)."""

from bs4 import BeautifulSoup
from docutils.core import publish_doctree, publish_from_doctree

from compendium.book import sphinx_tables as st


def _cells(*rows, head=True):
    return [[(head and k == 0, [c]) for c in row] for k, row in enumerate(rows)]


def test_the_one_line_width_counts_characters_padding_and_least_widths():
    # "abcdefghij": 10 x 0.55 + 0.9 = 6.4 em; a header cell at least 6 em, a body cell at least 4.5 em
    assert st.column_widths(_cells(["x", "abcdefghij"], ["y", "z"])) == [6.0, 6.4]
    assert st.one_line_em(_cells(["x", "abcdefghij"], ["y", "z"])) == 12.4
    # a cell of several lines (a claims cell: paper, ours, status) is as wide as its longest line
    assert st.column_widths([[(False, ["2.48", "1.930", "≠ differs"])]]) == [max(4.5, 9 * 0.55 + 0.9)]


def test_a_table_is_wide_above_the_text_column():
    nine = ["column number"] * 9  # the claims Table 1.1 has nine columns of about 10 characters
    assert st.is_wide(_cells(nine, ["1,292"] * 9))  # 9 x (13 x 0.55 + 0.9) = 72.5 em
    assert not st.is_wide(_cells(["study", "n"], ["Pro-Worker AI Benchmark", "165"]))
    assert not st.is_wide([])


def test_column_kinds_find_paths_and_hashes_and_prose():
    body = [
        ["worker_desires", "workbank/domain_worker_desires.csv", "5731", "worker ratings: one row per (worker, task)"],
        [
            "claude_usage",
            "workbank/external/usage_from_anthropic.csv",
            "3514",
            "Anthropic Economic Index: share of Claude.ai conversations",
        ],
        ["company_years", "workbank/external/company_to_year_mapping.csv", "1633", "YC company batch year"],
    ]
    assert st.column_kinds(body) == [None, st.TOKEN, None, st.PROSE]
    assert st.column_kinds([["sha256:" + "ab" * 32], [""], ["short"]]) == [st.TOKEN]  # 1 of 2 non-empty cells
    assert st.column_kinds([]) == []


_RST = """\
.. table:: Files

   ==================  ==================================================  ====  ===========================================
   table               file                                                rows  description
   ==================  ==================================================  ====  ===========================================
   worker_desires      workbank/domain_worker_desires.csv                  5731  worker ratings: one row per (worker, task)
   company_years       workbank/external/company_to_year_mapping.csv       1633  YC company batch year and more words here
   pwn                 data/hitl/<img/src=x/onerror=pwn()>/long_name.csv   1     a file name from data, shown as text here
   ==================  ==================================================  ====  ===========================================
"""


def test_a_docutils_table_is_marked_and_its_paths_break_after_each_slash_as_text():
    doctree = publish_doctree(_RST, settings_overrides={"report_level": 5})
    table = doctree.next_node(lambda n: n.tagname == "table")
    st.mark_table(table)
    html = publish_from_doctree(doctree, writer_name="html5").decode()
    soup = BeautifulSoup(html, "html.parser")
    t = soup.find("table")
    assert "full-width" in t["class"]  # 18 + 50 + 4 + 43 characters: about 66 em
    rows = t.find_all("tr")
    assert [c.get("class") for c in rows[1].find_all("td")] == [None, [st.TOKEN], None, [st.PROSE]]
    assert [c.get("class") for c in rows[0].find_all("th")][1] == ["head", st.TOKEN]
    assert "workbank/<wbr/>external/<wbr/>company_to_year_mapping.csv" in str(rows[2]).replace("<wbr>", "<wbr/>")
    # a file name from data: its text is the same, escaped; the only elements added are <wbr>
    cell = rows[3].find_all("td")[1]
    assert cell.get_text() == "data/hitl/<img/src=x/onerror=pwn()>/long_name.csv"
    assert {e.name for e in cell.find_all(True)} == {"p", "wbr"} and soup.find("img") is None


def test_a_narrow_docutils_table_is_left_alone():
    doctree = publish_doctree(".. table:: Small\n\n   ===  ===\n   a    b\n   ===  ===\n   1    2\n   ===  ===\n")
    table = doctree.next_node(lambda n: n.tagname == "table")
    st.mark_table(table)
    assert "full-width" not in table["classes"]


_CLAIMS = (
    '<style>.cl-wrap{overflow-x:auto}</style>\n<div class="cl-wrap"><table class="cl">\n<thead><tr><th>paper<br><b>ours</b></th>'
    + "".join(f"<th>Dimension {k}</th>" for k in range(10))
    + "</tr></thead>\n<tbody><tr><th>GLM 5.1</th>"
    + '<td class="n differs">2.48<br><b>1.930</b><br><small>&lt;img src=x&gt; differs</small></td>' * 10
    + "</tr></tbody></table></div>\n"
)


def test_a_wide_table_in_html_gets_the_class_and_nothing_else_changes():
    out = st.mark_html_tables(_CLAIMS)
    assert out == _CLAIMS.replace('<table class="cl">', '<table class="cl full-width">', 1)
    assert st.mark_html_tables(out) == out  # once only
    small = '<div><table id="t"><tr><td>1</td></tr></table></div>'
    assert st.mark_html_tables(small) == small and st.mark_html_tables("<p>no table</p>") == "<p>no table</p>"
    # a wide table without a class gets one, inside a table whose own cells are narrow (left as it is)
    nested = "<table><tr><td>" + _CLAIMS.split("\n", 1)[1].replace(' class="cl"', "") + "</td></tr></table>"
    marked = st.mark_html_tables(nested)
    assert marked == nested.replace('<div class="cl-wrap"><table>', '<div class="cl-wrap"><table class="full-width">')
    assert marked.startswith("<table><tr>")


def test_html_text_is_measured_by_its_lines():
    p = st._Tables()
    p.feed(_CLAIMS)
    rows = p.tables[0]["rows"]
    assert rows[1][1] == (False, ["2.48", "1.930", "<img src=x> differs"])


_WIDE_HTML = "<table><tr>" + "".join(f"<th>column number {k}</th>" for k in range(9)) + "</tr></table>"


def test_raw_html_is_marked_once_when_read_and_html_that_arrives_later_when_resolved(monkeypatch):
    """The claims tables (raw HTML) are marked when their page is read and flagged, so a build that resolves the page
    again does not parse them again; raw HTML put on the page after it was read (glued from another notebook by a
    post-transform) is marked when the page is resolved, as every table was before."""
    from docutils import nodes

    doctree = publish_doctree("text\n")
    doctree += nodes.raw("", _WIDE_HTML, format="html")
    parsed = []
    real = st.mark_html_tables
    monkeypatch.setattr(st, "mark_html_tables", lambda html: parsed.append(html) or real(html))
    st._mark_read(None, doctree)
    assert len(parsed) == 1
    (raw,) = doctree.findall(nodes.raw)
    assert 'class="full-width"' in raw.astext() and raw[st.MARKED]
    later = nodes.raw("", _WIDE_HTML.replace("column", "col"), format="html")
    doctree += later
    st._mark(None, doctree, "page")
    assert len(parsed) == 2 and parsed[1].startswith("<table><tr><th>col number")  # only the later one
    assert all('class="full-width"' in r.astext() for r in doctree.findall(nodes.raw))
    assert st.MARKED not in publish_from_doctree(doctree, writer_name="html5").decode()  # not written out


def test_the_data_chapters_row_ids_are_made_from_the_cells_text_without_the_wbr_markup():
    """sphinx_sources makes a file row's id from its first cell; the <wbr> after each '/' is not part of it, whichever
    handler runs first, and a cell of two paragraphs reads as docutils reads it."""
    from docutils import nodes

    from compendium.book import sphinx_sources

    rst = """\
.. table:: Files

   ================================================  ====  ===========================================
   file                                              rows  description
   ================================================  ====  ===========================================
   workbank/domain_worker_desires.csv                5731  worker ratings: one row per (worker, task)
   workbank/external/company_to_year_mapping.csv     1633  YC company batch year and more words here
   hitl/SOURCES.md                                   1     where the preference study's files come from
   ================================================  ====  ===========================================
"""
    doctree = publish_doctree(rst, settings_overrides={"report_level": 5})
    table = doctree.next_node(nodes.table)
    before = [sphinx_sources._text(r.next_node(nodes.entry)) for r in table.findall(nodes.row)]
    assert "workbank/domain_worker_desires.csv" in before
    st.mark_table(table)
    after = [sphinx_sources._text(r.next_node(nodes.entry)) for r in table.findall(nodes.row)]
    firsts = [r.next_node(nodes.entry).astext() for r in table.findall(nodes.row)]
    assert after == before and "workbank/<wbr>domain_worker_desires.csv" in firsts  # astext() would differ
    entry = nodes.entry("", nodes.paragraph(text="a/b"), nodes.paragraph(text="c"))
    assert sphinx_sources._text(entry) == entry.astext() == "a/b\n\nc"

"""The replication reports as PDF (issue 36): report.md rendered without raw HTML and printed offline."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from compendium.book import pdf, reports
from compendium.claims.report import write_reports


def test_the_markdown_is_rendered_with_its_tables_and_without_raw_html():
    page = reports.report_html("# \\[Re\\] A <b>study</b>\n\n| a | b |\n|---|---|\n| 1 | <script>x</script> |\n", "t")
    assert "<h1>[Re] A &lt;b&gt;study&lt;/b&gt;</h1>" in page
    assert "<table>" in page and "<td>1</td>" in page
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "http" not in page.split("<body>")[0]  # nothing loaded from the network


def test_every_report_of_the_ledger_prints_as_a_pdf_whose_first_page_has_its_title(tmp_path):
    if shutil.which("pdftotext") is None:
        pytest.fail("poppler's pdftotext is missing: `make chromium` installs it")
    written = write_reports(tmp_path)
    pdfs = reports.write_pdfs(tmp_path)
    assert [p.parent.name for p in pdfs] == sorted(written)
    checked = 0
    for p in pdfs:
        first = subprocess.run(["pdftotext", "-l", "1", str(p), "-"], capture_output=True, text=True).stdout
        title = (p.parent / "report.md").read_text(encoding="utf-8").splitlines()[0]
        assert first.lstrip().startswith(title[2:].replace("\\", "")[:30]), (p, first[:200])
        assert pdf.page_count(p) >= 1
        # a table's words and counts print whole: a column of counts is as wide as "5,731" ("5,73 / 1" before)
        md = (p.parent / "report.md").read_text(encoding="utf-8")
        cells = {c.strip() for line in md.splitlines() if line.startswith("|") for c in line.strip("|").split("|")}
        counts = {c for c in cells if re.fullmatch(r"\d{1,3}(,\d{3})+", c)}
        whole = subprocess.run(["pdftotext", str(p), "-"], capture_output=True, text=True).stdout.split()
        assert not counts - set(whole), (p, sorted(counts - set(whole)))
        checked += len(counts)
    assert checked  # WORKBank's data files have thousands of rows


def test_a_folder_without_reports_is_refused_with_the_command_that_writes_them(tmp_path, capsys):
    assert reports.main([str(tmp_path)]) == 1
    assert "python -m compendium.claims report" in capsys.readouterr().err

"""The replication reports as PDF (issue 36): report.md rendered without raw HTML and printed offline."""

from __future__ import annotations

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
    for p in pdfs:
        first = subprocess.run(["pdftotext", "-l", "1", str(p), "-"], capture_output=True, text=True).stdout
        title = (p.parent / "report.md").read_text(encoding="utf-8").splitlines()[0]
        assert first.lstrip().startswith(title[2:].replace("\\", "")[:30]), (p, first[:200])
        assert pdf.page_count(p) >= 1


def test_a_folder_without_reports_is_refused_with_the_command_that_writes_them(tmp_path, capsys):
    assert reports.main([str(tmp_path)]) == 1
    assert "python -m compendium.claims report" in capsys.readouterr().err

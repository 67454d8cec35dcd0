"""FAIR metadata from CITATION.cff: .zenodo.json and codemeta.json are current, the RO-Crate validates offline."""

import json
import shutil

import pytest
import yaml

from compendium.book import fair
from compendium.pipeline import paths

CFF_TEXT = """\
cff-version: 1.2.0
message: Cite it.
title: A test compendium
type: software
abstract: It tests.
authors:
  - {family-names: Doe, given-names: Jane, orcid: "https://orcid.org/0000-0002-1825-0097"}
  - name: The team
version: 1.2.3
date-released: "2026-01-02"
license: MIT
keywords: [a, b]
references:
  - type: article
    title: "Is it?"
    authors: [{family-names: Roe, given-names: Ann}]
    year: 2025
    identifiers: [{type: other, value: "arXiv:2506.06576"}]
"""


def test_committed_zenodo_and_codemeta_are_current():
    """CI: regenerate with `python -m compendium.book.fair write` after editing CITATION.cff."""
    assert fair.stale() == [], "run: python -m compendium.book.fair write"


def test_zenodo_and_codemeta_from_a_hand_written_cff(tmp_path):
    (tmp_path / "CITATION.cff").write_text(CFF_TEXT)
    cff = fair.load_cff(tmp_path / "CITATION.cff")
    z = fair.zenodo(cff)
    assert z["creators"] == [{"name": "Doe, Jane", "orcid": "0000-0002-1825-0097"}, {"name": "The team"}]
    assert (z["title"], z["version"], z["publication_date"], z["license"], z["description"]) == (
        "A test compendium",
        "1.2.3",
        "2026-01-02",
        "MIT",
        "It tests.",
    )
    assert z["related_identifiers"] == [
        {
            "identifier": "arXiv:2506.06576",
            "relation": "references",
            "scheme": "arxiv",
            "resource_type": "publication-article",
        }
    ]
    assert z["references"] == ["Ann Roe (2025). Is it? arXiv:2506.06576"]
    fair.validate(z, fair.ZENODO_SCHEMA, "zenodo")
    c = fair.codemeta(cff)
    assert c["author"][0] == {
        "@type": "Person",
        "familyName": "Doe",
        "givenName": "Jane",
        "@id": "https://orcid.org/0000-0002-1825-0097",
    }
    assert c["author"][1] == {"@type": "Organization", "name": "The team"}
    assert c["license"] == "https://spdx.org/licenses/MIT" and c["datePublished"] == "2026-01-02"
    assert c["referencePublication"][0]["@id"] == "https://arxiv.org/abs/2506.06576"
    fair.validate(c, fair.CODEMETA_SCHEMA, "codemeta")


def test_bad_citation_files_give_clear_errors(tmp_path):
    cff = yaml.safe_load(CFF_TEXT)
    del cff["date-released"]
    (tmp_path / "a.cff").write_text(yaml.safe_dump(cff))
    with pytest.raises(fair.CitationError, match="date-released"):
        fair.load_cff(tmp_path / "a.cff")
    cff["date-released"] = "29 Nov 2026"
    (tmp_path / "b.cff").write_text(yaml.safe_dump(cff))
    with pytest.raises(fair.CitationError, match="YYYY-MM-DD"):
        fair.load_cff(tmp_path / "b.cff")
    z = fair.zenodo(fair.load_cff(_write(tmp_path, CFF_TEXT)))
    z["upload_type"] = "code"
    with pytest.raises(fair.CitationError, match="upload_type"):
        fair.validate(z, fair.ZENODO_SCHEMA, "zenodo")


# --- BibTeX beside "Cite as" and the repository address, from the same CITATION.cff (issue 33)


def test_bibtex_entry_from_a_hand_written_cff(tmp_path):
    cff = fair.load_cff(_write(tmp_path, CFF_TEXT))
    assert fair.bibtex(cff) == (
        "@software{doe2026,\n"
        "  author  = {Doe, Jane and {The team}},\n"
        "  title   = {{A test compendium}},\n"
        "  year    = {2026},\n"
        "  month   = jan,\n"
        "  date    = {2026-01-02},\n"
        "  version = {1.2.3}\n"
        "}\n"
    )


def test_bibtex_escapes_latex_and_names_the_repository_when_set():
    cff = yaml.safe_load(CFF_TEXT)
    cff["title"] = "100% {sure} & cheap: a_b #1 ~ ^ \\ $x$"
    cff["authors"] = [
        {"name": "The compendium team"},
        {"family-names": "Beethoven", "name-particle": "van", "given-names": "Ludwig", "name-suffix": "Jr"},
    ]
    cff["repository-code"] = "https://github.com/example-org/compendium/"
    cff["doi"] = "10.5281/zenodo.1"
    bib = fair.bibtex(cff)
    assert bib.startswith("@software{compendium2026,\n")
    assert "  author  = {{The compendium team} and van Beethoven, Jr, Ludwig},\n" in bib
    assert (
        r"  title   = {{100\% \{sure\} \& cheap: a\_b \#1 \textasciitilde{} \textasciicircum{} \textbackslash{} \$x\$}},"
        in bib
    )
    assert "  doi     = {10.5281/zenodo.1},\n" in bib and bib.endswith(
        "  url     = {https://github.com/example-org/compendium}\n}\n"
    )
    bare = bib.replace("\\{", "").replace("\\}", "")  # the braces BibTeX reads as braces: balanced
    assert bare.count("{") == bare.count("}")


def test_the_committed_citation_gives_bibtex_without_a_url():
    """repository-code is unset today: the entry has no url, and no repository address is made up."""
    cff = fair.load_cff()
    assert fair.repository_url(cff) is None
    bib = fair.bibtex(cff)
    assert "url" not in bib and "http" not in bib
    assert f"version = {{{cff['version']}}}" in bib


@pytest.mark.parametrize(
    "value,expected",
    [
        (None, None),
        ("", None),
        ("  ", None),
        ("https://github.com/o/r", "https://github.com/o/r"),
        ("https://github.com/o/r.git", "https://github.com/o/r"),
        ("https://gitlab.com/group/sub/repo/", "https://gitlab.com/group/sub/repo"),
    ],
)
def test_repository_url_is_the_field_or_none(value, expected):
    cff = yaml.safe_load(CFF_TEXT)
    if value is not None:
        cff["repository-code"] = value
    assert fair.repository_url(cff) == expected


@pytest.mark.parametrize(
    "value",
    [
        "http://github.com/o/r",
        "https://github.com",
        "javascript:alert(1)",
        'https://github.com/o/r"><script>',
        "https://github.com/o/r?x=1",
        "github.com/o/r",
        "https://github.com/o/r/ tree",
    ],
)
def test_a_repository_code_that_is_no_https_repository_address_is_refused(tmp_path, value):
    cff = yaml.safe_load(CFF_TEXT)
    cff["repository-code"] = value
    with pytest.raises(fair.CitationError, match=r"CITATION.cff: repository-code .* is not the https:// address"):
        fair.repository_url(cff, tmp_path / "CITATION.cff")


def _write(tmp_path, text):
    p = tmp_path / "ok.cff"
    p.write_text(text)
    return p


def test_licences_are_stated_as_recorded_not_resolved():
    from compendium.data import catalog

    wb = fair._licence_entities(catalog.DATASETS["workbank"]["licence"])
    assert [i for i, _ in wb] == ["#licence-none-declared"]
    assert "none declared" in wb[0][1]["description"]
    pwb = dict(fair._licence_entities(catalog.DATASETS["pwb"]["licence"]))
    assert "#licence-conflict-pwb" in pwb and "CC BY-NC-SA 4.0" in pwb["#licence-conflict-pwb"]["description"]
    assert {"https://spdx.org/licenses/CC-BY-NC-SA-4.0", "https://spdx.org/licenses/CC-BY-4.0"} <= set(pwb)
    assert [i for i, _ in fair._licence_entities("CC BY 4.0")] == ["https://spdx.org/licenses/CC-BY-4.0"]


@pytest.fixture
def book(tmp_path):
    html = tmp_path / "html"
    (html / "_sources" / "executed").mkdir(parents=True)
    (html / "executed").mkdir()
    (html / "_static").mkdir()
    (html / "index.html").write_text("<html><head><title>Home &amp; more</title></head></html>")
    (html / "executed" / "10_pwb.html").write_text("<html><head><title>PWB</title></head></html>")
    (html / "_static" / "x.html").write_text("theme")
    (html / "_sources" / "executed" / "10_pwb.ipynb").write_text('{"cells": []}')
    manifest = tmp_path / "manifest.json"
    manifest.write_text(
        json.dumps(
            {
                "files": {
                    "pwb/config.yaml": {"sha256": "ab" * 32, "bytes": 10, "rows": None},
                    "workbank/a.csv": {"sha256": "cd" * 32, "bytes": 20, "rows": 3},
                    "hitl/p.json": {"sha256": "ef" * 32, "bytes": 30, "rows": 50},
                }
            }
        )
    )
    (tmp_path / "CITATION.cff").write_text(CFF_TEXT)
    return html, tmp_path / "CITATION.cff", manifest


def test_crate_describes_data_licences_checksums_notebooks_and_pages(book):
    html, cff, manifest = book
    out = fair.write_crate(html, cff, manifest)
    assert fair.validate_crate(html) == []
    data = json.loads(out.read_text())
    g = {e["@id"]: e for e in data["@graph"]}
    root = g["./"]
    assert root["datePublished"] == "2026-01-02" and root["license"] == {"@id": "https://spdx.org/licenses/MIT"}
    wb = g["https://huggingface.co/datasets/SALT-NLP/WORKBank"]
    assert wb["license"] == {"@id": "#licence-none-declared"}
    assert g["#data/workbank/a.csv"]["sha256"] == "cd" * 32 and g["#data/workbank/a.csv"]["contentSize"] == "20"
    pwb = g["https://huggingface.co/datasets/angelo-leone/pro-worker-ai-benchmark"]
    assert {"@id": "#licence-conflict-pwb"} in pwb["license"]
    nb = g["_sources/executed/10_pwb.ipynb"]
    assert nb["encodingFormat"] == "application/x-ipynb+json" and len(nb["sha256"]) == 64
    assert g["index.html"]["name"] == "Home & more" and "_static/x.html" not in g
    assert g["#software"]["@type"] == "SoftwareSourceCode"


def test_crate_is_deterministic_and_never_uses_the_clock(book, monkeypatch):
    html, cff, manifest = book
    first = fair.write_crate(html, cff, manifest).read_bytes()
    import rocrate.model.root_dataset as rd

    monkeypatch.setattr(rd, "iso_now", lambda: "2099-12-31T00:00:00+00:00")
    assert fair.write_crate(html, cff, manifest).read_bytes() == first
    assert b"2099" not in first


def test_crate_validation_catches_broken_crates(book, tmp_path):
    html, cff, manifest = book
    fair.write_crate(html, cff, manifest)
    broken = tmp_path / "broken"
    shutil.copytree(html, broken)
    data = json.loads((broken / fair.CRATE_NAME).read_text())
    root = next(e for e in data["@graph"] if e["@id"] == "./")
    del root["license"]
    root["favouriteColour"] = "blue"
    root["mentions"].append({"@id": "#nowhere"})
    (broken / fair.CRATE_NAME).write_text(json.dumps(data))
    (broken / "_sources" / "executed" / "10_pwb.ipynb").write_text("changed")
    text = "\n".join(fair.validate_crate(broken))
    assert "root dataset lacks license" in text
    assert "'favouriteColour' is not in the RO-Crate context" in text
    assert "refers to undescribed #nowhere" in text
    assert "10_pwb.ipynb: sha256 differs" in text
    assert fair.validate_crate(tmp_path / "empty") == [f"{tmp_path / 'empty' / fair.CRATE_NAME} missing"]


def test_the_built_book_has_a_valid_crate():
    html = paths.BOOK / "_build" / "html"
    if not (html / fair.CRATE_NAME).exists():
        pytest.skip("book not built")
    assert fair.validate_crate(html) == []


def test_a_github_address_with_a_branch_or_folder_is_refused(tmp_path):
    """Binder and Colab read https://github.com/<owner>/<repo>; a deeper address would launch nothing."""
    cff = yaml.safe_load(CFF_TEXT)
    cff["repository-code"] = "https://github.com/o/r/tree/main"
    with pytest.raises(
        fair.CitationError, match=r"not a GitHub repository's address.*https://github.com/<owner>/<repo>"
    ):
        fair.repository_url(cff, tmp_path / "CITATION.cff")
    cff["repository-code"] = "https://gitlab.com/group/sub/repo"  # GitLab's groups nest: allowed
    assert fair.repository_url(cff) == "https://gitlab.com/group/sub/repo"

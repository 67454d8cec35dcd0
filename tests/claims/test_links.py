"""Where the claims chapter's links point (compendium.claims.links) and that every name the studies'
provenance gives resolves to a definition in its file (a renamed function or test fails here, not as a dead
link in the book)."""

from __future__ import annotations

from pathlib import Path

from compendium import claims
from compendium.claims import links
from compendium.pipeline import paths


def test_source_target_of_functions_methods_modules_and_tests():
    assert links.source_target("compendium.pwb.instances.layer_paired_effects") == (
        "src/compendium/pwb/instances.py",
        "layer_paired_effects",
    )
    assert links.source_target("compendium.pwb.build.PwbResult.weights") == (
        "src/compendium/pwb/build.py",
        "PwbResult.weights",
    )
    assert links.source_target("compendium.claims") == ("src/compendium/claims/__init__.py", "")
    assert links.source_target("compendium.nosuchroom.f") is None
    assert links.source_target("tests/pwb/test_pwb_instances.py::test_panel_rule[x-1]") == (
        "tests/pwb/test_pwb_instances.py",
        "test_panel_rule",
    )
    assert links.source_target("tests/a/test_b.py::TestC::test_d", root=Path("/nonexistent")) is None
    assert links.source_target("numpy.mean") is None and links.code_href("compendium.nosuchroom.f") is None
    assert links.code_href("tests/pwb/test_pwb_instances.py::test_panel_rule") == (
        "../code/tests/pwb/test_pwb_instances.py.html#test_panel_rule"
    )


def test_data_links_go_to_the_file_row_a_folder_first_file_or_the_hub_row(tmp_path):
    (tmp_path / "src/compendium/data").mkdir(parents=True)
    (tmp_path / "src/compendium/data/manifest.json").write_text(
        '{"files": {"pwb/config.yaml": {}, "pwb/prompts/b.yaml": {}, "pwb/prompts/a.yaml": {}}}'
    )
    anchor = links.data_anchor
    assert links.data_link("pwb/config.yaml", tmp_path) == (
        "pwb/config.yaml",
        f"00_data.html#{anchor('pwb/config.yaml')}",
    )
    assert links.data_link("pwb/prompts/", tmp_path) == (
        "pwb/prompts/ (2 files)",
        f"00_data.html#{anchor('pwb/prompts/a.yaml')}",
    )
    assert links.data_link("pwb/results/", tmp_path) == (
        "pwb/results/ (Hugging Face hub only)",
        f"00_data.html#{links.hub_anchor('pwb')}",
    )
    import hashlib

    digest = hashlib.sha256(b"workbank/external/M2024_bls_wage_data.csv").hexdigest()[:16]
    assert links.data_anchor("workbank/external/M2024_bls_wage_data.csv") == f"data-file-{digest}"


def test_objects_give_qualified_names_from_the_first_decorator_to_the_end():
    src = "import x\n\n@dec\n@dec2\ndef f():\n    def inner():\n        pass\n    return 1\n\n\nclass C:\n    def m(self):\n        return 2\n"
    assert links.objects(src) == {"f": (3, 8), "f.inner": (6, 7), "C": (11, 13), "C.m": (12, 13)}


def test_linked_files_reads_the_code_links_of_a_page():
    page = (
        '<a href="../code/src/compendium/a.py.html#f">f</a> <a href="../code/tests/t.py.html">t</a> <a href="x.html">'
    )
    assert links.linked_files(page) == ["src/compendium/a.py", "tests/t.py"]


def test_every_provenance_name_and_raw_file_exists():
    """Each function, test and raw file of the studies' provenance.py resolves: a file, and a definition
    of that name in it (so every link of the claims chapter lands)."""
    prov, problems = claims.load_provenance()
    assert not problems
    data = claims.load_data_files()
    released = links.released_files()
    names = set()
    for study in prov:
        assert data[study], study
        for text in prov[study].values():
            fns, test = claims.split_provenance(text)
            assert test, text
            names |= set(links.split_functions(fns)) | {test}
        for files in data[study].values():
            for f in files:
                hub = f.startswith(("pwb/results/", "hitl/annotations"))
                assert hub or f in released or any(r.startswith(f) for r in released if f.endswith("/")), f
    for name in sorted(names):
        target = links.source_target(name)
        assert target is not None, name
        file, anchor = target
        assert anchor in links.objects((paths.ROOT / file).read_text(encoding="utf-8")), name


def test_no_dispatcher_is_named_for_a_claim_that_needs_data():
    prov, _ = claims.load_provenance()
    table = claims.check(
        claims.load_published(), {}, {}, provenance=prov, levels=claims.register_levels(), tables=claims.load_tables()
    )
    nd = table[table["status"] == "needs_data"]
    assert len(nd) > 100
    assert not nd["provenance"].str.contains(r"\.register_values ").any(), sorted(
        nd.loc[nd["provenance"].str.contains("register_values"), "claim_id"]
    )[:5]


def test_row_anchors_carry_no_text_of_the_file_name():
    from compendium.claims import links

    a = links.data_anchor("hitl/<img src=x onerror=pwn()>.csv")
    assert a.startswith("data-file-") and "pwn" not in a and "img" not in a
    assert a == links.data_anchor("hitl/<img src=x onerror=pwn()>.csv") != links.data_anchor("hitl/other.csv")
    assert "pwb" not in links.hub_anchor("pwb")

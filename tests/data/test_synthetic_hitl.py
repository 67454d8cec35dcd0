"""compendium.data.synthetic_hitl: every layout reads back through the preferences reader and aggregates
exactly to the published pair and per-category counts; seeded (same seed, same bytes); the hub layouts have the
dataset card's columns (response texts as ``response_a`` / ``response_b``), the export the authors' names
(``a_text`` / ``b_text``), and from a card-shaped file every row-level claim of the register is computed."""

from __future__ import annotations

import pytest

from compendium import data
from compendium.data import acquire, synthetic_hitl
from compendium.data.errors import DataValidationError
from compendium.pipeline import paths, yamlfile
from compendium.preferences import build, register, rowlevel

HUB_LAYOUTS = [layout for layout in synthetic_hitl.LAYOUTS if layout != "export"]


@pytest.mark.parametrize("layout", synthetic_hitl.LAYOUTS)
def test_each_layout_aggregates_to_the_published_counts(tmp_path, layout):
    f = synthetic_hitl.write_release(tmp_path / layout, seed=4, layout=layout)
    norm = rowlevel.normalise_annotations(rowlevel.read_annotations(f), prompts=data.load_hitl_prompts())
    assert len(norm) == 1507 and rowlevel.n_participants(norm) == 305
    assert rowlevel.compare_with_published(rowlevel.aggregate_pair_counts(norm), data.load_hitl_pair_counts())[
        "match"
    ].all()
    by_cat = rowlevel.aggregate_pair_counts(norm, by=("category",))
    assert rowlevel.compare_with_published(by_cat, data.load_hitl_pair_counts_by_category(), by=("category",))[
        "match"
    ].all()
    if layout != "export":  # the card's configs name the file the acquisition keeps
        readme = (tmp_path / layout / "README.md").read_text()
        plan = acquire.plan("hitl", [f.relative_to(tmp_path / layout).as_posix(), "README.md"], readme, "x")
        assert plan == {f.relative_to(tmp_path / layout).as_posix(): f"hitl/annotations.{layout}"}


def test_same_seed_same_bytes_other_seed_other_rows(tmp_path):
    a = synthetic_hitl.write_release(tmp_path / "a", seed=7, layout="csv").read_bytes()
    b = synthetic_hitl.write_release(tmp_path / "b", seed=7, layout="csv").read_bytes()
    c = synthetic_hitl.write_release(tmp_path / "c", seed=8, layout="csv").read_bytes()
    assert a == b and a != c


def test_cli_writes_the_release(tmp_path, capsys):
    assert synthetic_hitl.main([str(tmp_path / "out"), "--layout", "jsonl", "--seed", "2"]) == 0
    assert (tmp_path / "out" / "data" / "annotations-00000-of-00001.jsonl").exists()
    assert "seed 2, layout jsonl" in capsys.readouterr().out


@pytest.mark.parametrize("category", ["personal_advice", "a_new_category"])
def test_a_prompt_whose_category_changed_is_named_with_the_file_and_the_field(monkeypatch, category):
    """Was: a bare AssertionError in the evaluate stage (the counts could not be dealt to the categories)."""
    released = data.load_hitl_prompts

    def changed():
        p = released()
        p.loc[p["id"] == "cw03", "category"] = category
        return p

    monkeypatch.setattr(data, "load_hitl_prompts", changed)
    with pytest.raises(DataValidationError) as e:
        synthetic_hitl.make_study_rows(seed=1)
    assert str(e.value).startswith(
        f"data/hitl/prolific_prompts.json: prompt 'cw03': field 'category' is {category!r}, but the released "
        "per-category counts (data/hitl/published_pair_counts_by_category.csv) give "
    )
    assert "'creative_writing' 8" in str(e.value)
    assert str(e.value).endswith(
        "set its category back to 'creative_writing', or restore the released data with `dvc pull --force data.dvc`"
    )


def test_the_hub_layout_has_the_cards_columns_and_the_export_the_authors_names(tmp_path):
    """Was: the hub layout wrote the response texts as a_text / b_text, the authors' export's names, where the
    hub's dataset card lists response_a / response_b (issue 37). Same seed, same rows and texts in every layout."""
    card = [
        *("participant_id", "scenario_id", "prompt_id", "axis", "prompt", "a_model", "b_model"),
        *("a_recipe_name", "b_recipe_name", "a_provenance", "b_provenance", "response_a", "response_b"),
    ]
    files = {
        layout: synthetic_hitl.write_release(tmp_path / layout, seed=5, layout=layout)
        for layout in synthetic_hitl.LAYOUTS
    }
    raw = {layout: rowlevel.read_annotations(f) for layout, f in files.items()}
    for layout in HUB_LAYOUTS:
        assert list(raw[layout].columns) == [*card, "choice_canonical", "comment"], layout
        assert list(raw[layout].columns) == list(synthetic_hitl.CARD_COLUMNS)
    export = raw["export"]
    assert {"a_text", "b_text"} <= set(export.columns) and not {"response_a", "response_b"} & set(export.columns)
    assert list(export["a_text"]) == list(raw["parquet"]["response_a"])
    assert list(export["b_text"]) == list(raw["parquet"]["response_b"])
    hub = raw["parquet"]
    assert (hub["axis"] == [" vs ".join(sorted(p)) for p in zip(hub["a_model"], hub["b_model"])]).all()
    prompts = data.load_hitl_prompts()
    assert (hub["prompt"] == hub["prompt_id"].map(dict(zip(prompts["id"], prompts["text"])))).all()
    assert set(hub["a_recipe_name"]) == set(synthetic_hitl.RECIPE_NAMES.values())


def _row_level_claims() -> list[str]:
    return [c["id"] for c in yamlfile.load(paths.PUBLISHED / "hitl.yaml")["claims"] if c["level"] == "row_level"]


@pytest.mark.parametrize("layout", ["parquet", "csv"])
def test_every_row_level_claim_is_computed_from_a_card_shaped_file(tmp_path, layout):
    """The preferences build on the file the generator writes in the hub card's layout: the reader takes the
    response texts from response_a / response_b, and no row-level claim of the register (the two length ratios
    among them) is left without a value or named in ``missing``."""
    f = synthetic_hitl.write_release(tmp_path, seed=1, layout=layout)
    ann = rowlevel.read_annotations(f)
    assert {"response_a", "response_b"} <= set(ann.columns) and "a_text" not in ann.columns
    inputs = build.Inputs(
        counts=data.load_hitl_pair_counts(),
        by_category=data.load_hitl_pair_counts_by_category(),
        prompts=data.load_hitl_prompts(),
        themes=data.load_hitl_comment_themes(),
        scenario_votes=data.load_hitl_scenario_votes(),
        annotations=ann,
    )
    sections = build.data_sections(inputs)
    assert sections.rows.rows.attrs["text_columns"] == ["response_a", "response_b"]
    values, missing = register.register_values(sections)
    row_level = _row_level_claims()
    assert len(row_level) == 72
    assert [k for k in row_level if values.get(k) is None] == []
    assert [k for k in row_level if k in missing] == []
    for k in ("hitl.length.ratio_agree", "hitl.length.ratio_disagree"):
        assert isinstance(values[k], float) and values[k] > 0, k

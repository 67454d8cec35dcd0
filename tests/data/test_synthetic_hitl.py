"""compendium.data.synthetic_hitl: every layout reads back through the preferences reader and aggregates
exactly to the published pair and per-category counts; seeded (same seed, same bytes)."""

from __future__ import annotations

import pytest

from compendium import data
from compendium.data import acquire, synthetic_hitl
from compendium.data.errors import DataValidationError
from compendium.preferences import rowlevel


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

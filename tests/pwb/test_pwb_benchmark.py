"""compendium.pwb.benchmark: the appendix tables built from the benchmark's YAML files."""

import pytest

import compendium.data as d
from compendium.pwb import benchmark as B

L1_FILES = [
    "anti_sycophancy",
    "appropriate_reliance",
    "cognitive_forcing",
    "complementarity",
    "contrastive_explanation",
    "draft_annotation",
    "ethical_surfacing",
    "metacognitive_calibration",
    "skill_preservation",
    "uncertainty_transparency",
]
L2_FILES = [
    "calibration_across_domains",
    "creative_collaboration",
    "ethical_blindspot",
    "sycophantic_agreement_trap",
    "teaching_moment",
]


@pytest.fixture(scope="module")
def yamls():
    return {
        "rubrics": d.load_pwb_yaml("rubrics/dimension_rubrics.yaml"),
        "config": d.load_pwb_config(),
        "l1": {f: d.load_pwb_yaml(f"prompts/layer1_behavioral/{f}.yaml") for f in L1_FILES},
        "l2": [d.load_pwb_yaml(f"prompts/layer2_scenarios/{f}.yaml") for f in L2_FILES],
        "l3": d.load_pwb_yaml("prompts/layer3_adversarial/stress_tests.yaml"),
    }


def test_dimension_table_and_anchors(yamls):
    dims = B.dimension_table(yamls["rubrics"], yamls["config"])
    assert len(dims) == 11
    assert dims["in_pwi"].sum() == 8
    assert dims.loc[dims.in_pwi, "weight_v2_1"].sum() == pytest.approx(0.80)
    assert dims.set_index("dimension").loc["adversarial_resilience", "layer"] == "Layer 3"
    anchors = B.rubric_anchors(yamls["rubrics"])
    assert len(anchors) == 44 and set(anchors["label"]) == {"Strong", "Partial", "Weak", "Fail"}


def test_prompt_inventory_counts(yamls):
    inv = B.prompt_inventory(yamls["l1"], yamls["l2"], yamls["l3"])
    by_layer = B.prompt_counts(inv, "layer").set_index("layer")["prompts"]
    assert by_layer.to_dict() == {1: 200, 2: 5, 3: 40}
    per_dim = B.prompt_counts(inv[inv.layer == 1], "dimension")
    assert (per_dim["prompts"] == 20).all() and len(per_dim) == 10
    assert B.prompt_counts(inv, ["layer", "domain"])["prompts"].sum() == 245


def test_bad_yaml_raises():
    with pytest.raises(ValueError, match="missing score level"):
        B.rubric_anchors({"cognitive_forcing": {"name": "x", "description": "y", "rubric": {3: {}, 2: {}}}})
    with pytest.raises(ValueError, match="expected keys 'dimension' and 'prompts'"):
        B.prompt_inventory({"f": {"prompts": []}}, [], {"prompts": []})
    with pytest.raises(ValueError, match="no column"):
        B.prompt_counts(B.prompt_inventory({}, [], {"prompts": [{"id": "a"}]}), "nope")


def test_markdown_renderers(yamls):
    md = B.anchors_markdown(yamls["rubrics"], yamls["config"])
    assert md.count("| score | label | anchor |") == 11 and "\n#" not in md
    sp = B.system_prompt_markdown("### Title\n\nBody line\n---\nMore")
    assert sp.splitlines() == [
        "::::{container} compendium-verbatim",
        "```text",
        "### Title",
        "",
        "Body line",
        "---",
        "More",
        "```",
        "::::",
    ]


def test_system_prompt_cannot_close_its_literal_block_or_container():
    text = "a\n````\n```{literalinclude} /etc/passwd\n```\n:::::\nb"
    sp = B.system_prompt_markdown(text)
    lines = sp.splitlines()
    assert lines[0] == "::::::{container} compendium-verbatim" and lines[-1] == "::::::"
    assert lines[1] == "`````text" and lines[-2] == "`````"
    assert lines[2:-2] == text.splitlines()


def test_anchor_labels_and_names_are_literal(yamls):
    import copy

    rub = copy.deepcopy(yamls["rubrics"])
    dim = next(iter(rub))
    rub[dim]["name"] = "<script>x</script>"
    rub[dim]["rubric"][3]["label"] = "{download}`/etc/passwd`"
    md = B.anchors_markdown(rub, yamls["config"])
    assert "**\\<script\\>x\\<\\/script\\>**" in md and "\\{download\\}\\`\\/etc\\/passwd\\`" in md
    with pytest.raises(ValueError, match="empty"):
        B.system_prompt_markdown("  ")

"""The claims chapter's one number formatter and its readable labels, on hand-worked cases (issue 24)."""

from __future__ import annotations

import pytest

from compendium import claims
from compendium.claims import html as H


@pytest.mark.parametrize(
    ("tol", "decimals"),
    [(0.05, 1), (0.005, 2), (0.0005, 3), (0.5, 0), (1.0, 0), (0.01, 2), (0.1, 1), (1e-06, 6), (0.002, 3), (0, None)],
)
def test_tolerance_decimals(tol, decimals):
    # half a unit of the last decimal within the tolerance: 0.05 -> 1 decimal, 0.01 -> 2 (0.005 <= 0.01)
    assert claims.tolerance_decimals(tol) == decimals


@pytest.mark.parametrize(
    ("row", "decimals"),
    [
        ({"printed": "+44.0", "tolerance": 0.05, "_published": 44.0}, 1),
        ({"printed": "4{,}096", "tolerance": 0, "_published": 4096}, 0),
        ({"printed": "", "tolerance": 1e-06, "_published": 4.392857142857143}, 6),
        ({"printed": "", "tolerance": 0.0005, "_published": 1.1728131357279115}, 3),
        ({"printed": "", "tolerance": 0, "_published": 26.895734597156395}, 6),
        ({"printed": "p < 10^{-3}", "tolerance": 0.0005, "_published": 0.001}, 3),
    ],
)
def test_claim_decimals_from_the_printed_token_then_the_tolerance(row, decimals):
    assert claims.claim_decimals(row) == decimals


@pytest.mark.parametrize(
    ("value", "decimals", "boolean", "text"),
    [
        (4.392857142857143, 6, False, "4.392857"),  # not 4.392857142857143
        (14.355140186915888, 1, False, "14.36"),  # one guard digit beyond the paper's one decimal
        (1.1728131357279115, 3, False, "1.173"),  # three decimals: no guard digit
        (4096, 0, False, "4,096"),
        (4096.0, 0, False, "4,096"),
        (12345.678, 1, False, "12,345.68"),
        (-23.5, 1, False, "-23.50"),
        (True, None, False, "yes"),
        (False, None, False, "no"),
        (1, None, True, "yes"),
        (0, None, True, "no"),
        (2, None, True, "2"),
        (2e-38, 3, False, "2e-38"),
        (None, 1, False, "—"),
        ([1.0, 2.25], 1, False, "[1.00, 2.25]"),
        ("GLM 5.1", None, False, "GLM 5.1"),
    ],
)
def test_fmt_number_hand_worked(value, decimals, boolean, text):
    assert claims.fmt_number(value, decimals, boolean) == text


def test_the_papers_value_prints_as_the_paper_prints_it():
    row = {"relation": "", "printed": "", "tolerance": 0.0005, "_published": 1.1728131357279115}
    assert str(claims.paper_html(row)) == "1.173"
    assert str(claims.paper_html({**row, "tolerance": 0, "_published": 4096})) == "4,096"
    assert str(claims.paper_html({**row, "printed": "4{,}096", "_published": 4096})) == "4,096"
    assert str(claims.paper_html({**row, "printed": "+23.5", "_published": 23.5})) == "+23.5"
    assert str(claims.paper_html({**row, "relation": "<", "printed": "10^{-3}", "_published": 0.001})) == (
        "&lt; 10<sup>-3</sup>"
    )


@pytest.mark.parametrize(
    ("slug", "label"),
    [
        ("glm51", "GLM 5.1"),
        ("untrained__recipe_b", "Untrained vs Recipe B"),
        ("recipe_c", "Recipe C"),
        ("a_to_b", "A → B"),
        ("h5", "H5"),
        ("mean_pooled", "Mean (pooled)"),
        ("cognitive_forcing", "Cognitive forcing"),
        ("physical_worker", "Physical (workers)"),
        ("green_n", "Green (N)"),
        ("top3_stable", "top 3 stable"),
    ],
)
def test_readable_labels(slug, label):
    assert claims.readable(slug) == label


def test_model_names_are_the_studys_own():
    from compendium.pwb.constants import MODEL_KEYS

    assert claims.MODEL_NAMES == {k: m for m, k in MODEL_KEYS.items()}


def test_register_text_loses_its_latex_and_backticks_but_stays_text():
    assert claims.readable_text('checklist item 4 ("4{,}096 max tokens")') == 'checklist item 4 ("4,096 max tokens")'
    assert claims.readable_text("$320 \\times 5 = 9{,}600$ per dimension") == "320 × 5 = 9,600 per dimension"
    assert claims.readable_text("run `python -m x`") == "run python -m x"
    assert claims.readable_text("<b>x</b>") == "<b>x</b>"  # still text: the template escapes it


def test_summary_names_studies_and_levels():
    import pandas as pd

    t = pd.DataFrame({"study": ["hitl", "pwb"], "level": ["row_level", "per_instance"], "status": ["quoted", "quoted"]})
    s = H.summary_display(t)
    assert {"Human preferences", "Pro-Worker AI Benchmark"} <= set(s["study"])
    assert {"preference rows", "PWB per-instance runs"} <= set(s["level"])

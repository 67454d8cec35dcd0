"""The landing page's abstract is phrased from the claims table: counts, reasons and headlines follow it."""

import pandas as pd
import pytest

from compendium.claims import abstract


def _claims(**over):
    rows = {
        "pwb.delta.mean": ("34.71428571", "reproduced", ""),
        "pwb.delta.min": ("24.1", "reproduced", ""),
        "pwb.delta.max": ("44", "reproduced", ""),
        "wb.zones.green": ("364", "reproduced", ""),
        "wb.zones.red": ("267", "reproduced", ""),
        "wb.zones.rnd": ("107", "reproduced", ""),
        "wb.zones.low": ("106", "reproduced", ""),
        "wb.desire.share_gt3": ("46.09004739", "reproduced", ""),
        "hitl.n_ratings": ("1507", "reproduced", ""),
        "hitl.bt.untrained": ("0.81", "reproduced", ""),
        "hitl.bt.recipe_a": ("0.86", "reproduced", ""),
        "hitl.bt.recipe_b": ("1.04", "reproduced", ""),
        "hitl.bt.recipe_c": ("1.17", "reproduced", ""),
        "hitl.bt.recipe_d": ("1.11", "reproduced", ""),
        "x.slip": ("2", "differs", "paper_slip"),
        "x.stale1": ("3", "differs", "stale_table"),
        "x.stale2": ("4", "differs", "stale_table"),
        "x.data": ("", "needs_data", ""),
        "x.const": ("", "quoted", ""),
    }
    rows.update(over)
    return pd.DataFrame([{"claim_id": k, "reproduced": v, "status": s, "reason": r} for k, (v, s, r) in rows.items()])


def test_counts_and_reasons_come_from_the_table():
    text = abstract.abstract_markdown(_claims())
    assert "check each of the 19 numbers they print. **14 reproduce**" in text
    assert "3 differ, each for a stated and checked reason (2 in tables printed from an earlier run" in text
    assert "1 slips in the papers themselves)" in text
    assert ". 1 need data beyond the bundled files" in text and "1 are quoted: design constants, or statements" in text
    assert text.startswith("```{admonition} Abstract\n") and text.rstrip().endswith("```")


def test_headlines_follow_the_values_and_their_statuses():
    text = abstract.abstract_markdown(_claims())
    assert "raises the Pro-Worker Index of every model, by 34.7 points on average (from +24.1 to +44.0)" in text
    assert "Of 844 tasks, 364 fall in the 'Green Light' zone" in text and "on 46.1 % of tasks" in text
    assert "From 1,507 pairwise human judgements, Bradley–Terry ranks Recipe C first (strength 1.17" in text
    assert "the untrained model last (0.81)" in text
    assert text.count("(the paper's numbers, reproduced)") == 3
    # a run off the paper's settings: the numbers move and the status is named, never "reproduced"
    off = abstract.abstract_markdown(
        _claims(**{"wb.zones.green": ("125", "off_paper", ""), "pwb.delta.min": ("-1.5", "differs", "paper_slip")})
    )
    assert "Of 844 tasks" not in off and "125 fall in the 'Green Light' zone" in off
    assert "`wb.zones.green`: off_paper" in off
    assert "changes the Pro-Worker Index, by" in off and "from -1.5" in off
    assert "This build also has 1 claims with status *off paper*" in off


def test_a_study_without_values_gets_no_headline_and_the_citation_line_is_read_from_the_cff():
    t = _claims(**{"hitl.bt.recipe_c": ("", "needs_data", "")})
    text = abstract.abstract_markdown(
        t,
        {"authors": [{"name": "The team"}], "date-released": "2026-11-29", "title": "A compendium", "version": "0.1.0"},
    )
    assert "Human preferences" not in text
    assert "**Cite as:** The team (2026). *A compendium*. Version 0.1.0." in text


def test_the_beyond_the_papers_headline_follows_the_robustness_findings():
    findings = pd.DataFrame(
        [
            ("Green Light is the largest of the four zones", "zone cut-off × boundary", 10, 6, False, "g", False),
            ("Every model gains from the pro-worker prompt", "named weight schemes", 10, 10, True, "a", False),
            ("Every model gains from the pro-worker prompt", "500 random weight schemes", 500, 500, True, "a", False),
            (
                "… the same, under any combination of tie rules",
                "workers' × experts' tie rule",
                16,
                13,
                False,
                "g",
                True,
            ),
            ("GLM 5.1 has the highest <b>prompted</b> PWI", "named weight schemes", 10, 8, False, "t", False),
            ("GLM 5.1 has the highest <b>prompted</b> PWI", "500 random weight schemes", 500, 485, False, "t", False),
        ],
        columns=["finding", "settings", "n_settings", "n_hold", "holds_all", "headline", "bound"],
    )
    sampling = {
        "rob.sampling.bt.p_c_beats_d_judgements": 0.705,
        "rob.sampling.bt.p_c_beats_d_categories": 0.645,
        "rob.sampling.bt.c_beats_d_n_boot": 5000,
        "rob.sampling.bt.p_same_ranking_judgements": 0.35615,
        "rob.sampling.bt.p_same_ranking_categories": 0.12475,
        "rob.sampling.bt.p_same_rho_judgements": 0.5287,
        "rob.sampling.bt.p_same_rho_categories": 0.3316,
        "rob.sampling.bt.n_boot": 20000,
        "rob.sampling.zones.p_green_largest": 1.0,
        "rob.sampling.zones.p_red_gt_rnd": 0.9,
        "rob.sampling.zones.n_draws": 2000,
    }
    text = abstract.beyond_sentence(findings, sampling)
    lines = text.splitlines()
    assert lines[0].startswith("**Beyond the papers.**") and lines[1] == ""
    # issue 33: the bridge from the robustness chapter's count of rows to this count of findings
    assert (
        "The robustness chapter's table has 6 rows, 2 of them holding at every setting: a finding re-run under two "
        "families of settings is one finding here, holding only if it holds under both, and a row shown only as a "
        "bound is none. So:"
    ) in lines[0]
    # the two tests apart (the referee's C6): under every analysis choice, and when the data are resampled
    assert lines[2] == "- *Hold under every choice tried* (1 of 3): Every model gains from the pro\\-worker prompt."
    assert lines[3].startswith(
        "- *Depend on the choice* (2 of 3): Green Light is the largest of the four zones (holds in 6 of 10 (zone cut\\-off × boundary))"
    )
    assert "(holds in 8 of 10 (named weight schemes); 485 of 500 (500 random weight schemes))" in lines[3]
    assert "<b>" not in text and "\\<b\\>" in text  # the package's phrases are escaped all the same
    assert "any combination" not in text  # a continuation row belongs to the finding before it
    # the shares to the digits their Monte-Carlo error supports: 35.6 % of 20,000 (SE 0.34 points), 12.5 %, 53 %
    assert lines[4] == (
        "- *When the data are resampled:* WORKBank, at the paper's cut-off: Green Light is the largest zone in 100 %, "
        "and Red Light outnumbers R&D Opportunity in 90 %, of the rater-cluster resamples; Human preferences: Recipe C "
        "beats Recipe D in only 70 % of judgement resamples (64 % with the prompt categories resampled), so the data do "
        "not settle which of the two is preferred; the full published ranking recurs in 35.6 % (12.5 %), and ρ = 0.8 in "
        "53 % (33 %)."
    )
    assert len(lines) == 5
    # without the sampling values, no resampling line (never a share made up)
    assert len(abstract.beyond_sentence(findings).splitlines()) == 4
    assert abstract.beyond_sentence(None) is None
    with pytest.raises(KeyError, match="dvc repro robustness"):  # a table of an older robustness stage
        abstract.beyond_sentence(findings.drop(columns=["headline", "bound"]))
    body = abstract.abstract_markdown(_claims(), findings=findings)
    assert "**Beyond the papers.**" in body and "beats Recipe D" not in body

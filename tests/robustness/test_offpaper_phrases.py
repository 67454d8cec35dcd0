"""The robustness chapter's sentences off the committed grids (issue 38), at the teaching guide's exercises
(book/teaching.md, Session 4) and the chapter's own "Try it" commands: each checked in the chapter's text as the
reader sees it (the notebook's prose with the summary's values in place of its ``{glue:text}`` roles) against the
findings table (``compendium.robustness.findings``) and the sweeps of a result built once per module at the
exercise's setting, with fewer resampling replicates and random tie-breaks than the chapter's (:data:`FAST`: no
sentence checked here reads them; about 2 s each)."""

from __future__ import annotations

import re
import sys
from functools import cache
from pathlib import Path

import pytest

from compendium.pipeline import paths
from compendium.pipeline.params import study_params
from compendium.robustness import build as rbuild, summary

sys.path.insert(0, str(Path(__file__).resolve().parent))
from robustness_cases import PREF_VALUES  # noqa: E402

NOTEBOOK = paths.ROOT / "notebooks" / "40_robustness.md"
#: the "how sure?" resampling and the random HAS tie-breaks, small
FAST = dict(n_sampling=100, has_random_draws=20)


def prose(glue: dict) -> str:
    """The chapter's Markdown without its code cells, each ``{glue:text}`name:fmt``` replaced by ``glue[name]``
    formatted as myst-nb formats it, whitespace collapsed."""
    text = re.sub(r"```\{code-cell\}.*?```\n", "", NOTEBOOK.read_text(encoding="utf-8"), flags=re.S)

    def paste(m: re.Match) -> str:
        name, _, fmt = m.group(1).partition(":")
        return format(glue[name], fmt) if fmt else str(glue[name])

    return " ".join(re.sub(r"\{glue:text\}`([^`]+)`", paste, text).split())


def between(text: str, start: str, end: str) -> str:
    i = text.index(start)
    return text[i : text.index(end, i + len(start))]


@pytest.fixture(scope="module")
def at():
    """``at(**changed)``: the chapter's result at ``FAST | changed`` (the preferences export given), each once."""
    inputs = rbuild.Inputs.load(study_params("robustness"), pref_values=PREF_VALUES)

    @cache
    def result(**changed):
        return rbuild.build(study_params("robustness", **(FAST | changed)), inputs)

    return result


def _summary_paragraph(r) -> str:
    return between(prose(summary.summary(r)), "The last column says how sure we are beyond the sweep.", "```")


@pytest.mark.parametrize("changed", [{}, {"pwb_random_concentration": 8.0}], ids=["committed", "concentration-8"])
def test_the_summary_says_what_the_findings_table_says(at, changed):
    """``pwb_random_concentration=8``: the findings table says "no (499/500)" for every model gaining under the
    random weightings, so the Summary no longer says the PWB's gains "do not depend on those choices"; every
    finding it calls independent of the choices holds at every setting, and the counts it gives are the table's."""
    r = at(**changed)
    text = _summary_paragraph(r)
    found = r.findings.set_index("key")
    independent = re.search(r"([^.;]*) (?:do|does) not depend on those choices", text)
    named = independent.group(1) if independent else ""
    gains = found.loc[["pwb_all_gain", "pwb_all_gain_random"], "holds_all"].all()
    assert ("the PWB's gains" in named) == gains, text
    assert ("direction of the agency finding" in named) == found.loc["wb_workers_more_same_rule", "holds_all"], text
    rnd = found.loc["pwb_all_gain_random"]
    if not gains:
        assert f"in only {rnd['n_hold']} of the {rnd['n_settings']} random weightings" in text, text
    ranking = found.loc["bt_ranking", "holds_all"]
    assert ("The preference ranking does not depend on the tie convention" in text) == ranking
    top = not found.loc[["pwb_top_glm", "pwb_top_glm_random"], "holds_all"].all()
    assert ("and so is which model tops the PWB" in text) == top
    if not changed:  # the committed run reads as it always did
        assert (
            'On this build\'s grids, the zone sizes and the exact share behind "workers want more agency" are choices '
            "as much as results, and so is which model tops the PWB. The direction of the agency finding and the "
            "PWB's gains do not depend on those choices. The preference ranking does not depend on the tie "
            "convention either, but that was never in much doubt; it does depend on which judgements and prompts "
            "happened to be collected, and C versus D is not settled by these data."
        ) in text
    else:
        assert (rnd["n_hold"], rnd["n_settings"]) == (499, 500)  # the referee's count, this seed


@pytest.mark.parametrize(
    "changed", [{}, {"zone_cutoffs": "2.0,2.5,3.0,3.5,4.0"}], ids=["committed", "the Try-it box's wider cut-offs"]
)
def test_the_zone_figure_says_where_red_light_exceeds_rnd(at, changed):
    """The zone figure's caption says the Red Light line stays above the R&D Opportunity line "everywhere" only
    where the sweep says so; with the chapter's "Try it" cut-offs 2.0-4.0 it does not at 2.0 (dashed line: a mean
    equal to the cut-off counted as low)."""
    r = at(**changed)
    caption = between(prose(summary.summary(r)), "Tasks per zone against the cut-off", "```")
    zones = r.zones.sweep
    fails = zones[~zones["red_gt_rnd"]]
    m = re.search(r"The red line \(Red Light\) stays above the purple one \(R&D Opportunity\) (.*?)\.(?:\s|$)", caption)
    assert m, caption
    where = m.group(1)
    assert (where == "everywhere") == fails.empty, where
    for c, b in zip(fails["cutoff"], fails["boundary"], strict=True):
        assert f"{c:g} ({'solid' if b == 'ge' else 'dashed'} line)" in where, where
    if changed:
        assert where == "everywhere except at a cut-off of 2 (dashed line)"


def test_red_above_where_by_hand():
    import pandas as pd

    z = pd.DataFrame({"cutoff": [2.0, 2.0, 3.0], "boundary": ["ge", "gt", "ge"], "red_gt_rnd": [True, False, True]})
    assert summary.red_above_where(z) == "everywhere except at a cut-off of 2 (dashed line)"
    assert summary.red_above_where(z.assign(red_gt_rnd=True)) == "everywhere"
    assert summary.red_above_where(z.assign(red_gt_rnd=[False, False, True])) == (
        "everywhere except at cut-offs 2 (solid line) and 2 (dashed line)"
    )
    assert summary.red_above_where(z.assign(red_gt_rnd=False)) == "nowhere"


def _fake(holds: dict, *, zones_vary: bool = True, share_varies: bool = True):
    """A result with only what :func:`summary.verdict_phrases` reads: the findings table (``holds``: key -> (n_hold,
    n_settings)), a zone sweep and a HAS sweep whose numbers vary or not."""
    from types import SimpleNamespace

    import pandas as pd

    findings = pd.DataFrame(
        [{"key": k, "n_hold": h, "n_settings": n, "holds_all": h == n} for k, (h, n) in holds.items()]
    )
    zones = pd.DataFrame({z: [10, 11 if zones_vary else 10] for z in ("green", "red", "rnd", "low")})
    has = pd.DataFrame(
        {"same_rule": [True, True], "reference": [True, False], "workers_more": [40.0, 30.0 if share_varies else 40.0]}
    )
    return SimpleNamespace(findings=findings, zones=SimpleNamespace(sweep=zones), agency=SimpleNamespace(sweep=has))


ALL_HOLD = {
    "wb_workers_more_same_rule": (5, 5),
    "pwb_all_gain": (10, 10),
    "pwb_all_gain_random": (500, 500),
    "pwb_top_glm": (10, 10),
    "pwb_top_glm_random": (500, 500),
    "bt_ranking": (6, 6),
}


def test_the_summary_sentences_by_hand():
    """Each way the findings can come out gives a sentence that says so (the chapter's grids give only some)."""
    g = summary.verdict_phrases(_fake(ALL_HOLD))
    assert g["rob_summary_choices"] == (
        'On this build\'s grids, the zone sizes and the exact share behind "workers want more agency" are choices as '
        "much as results; GLM 5.1 tops the PWB under every weighting."
    )
    assert (
        g["rob_summary_robust"]
        == "The direction of the agency finding and the PWB's gains do not depend on those choices."
    )
    assert g["rob_summary_ranking"].startswith("The preference ranking does not depend on the tie convention either,")
    g = summary.verdict_phrases(
        _fake(
            ALL_HOLD | {"wb_workers_more_same_rule": (4, 5), "pwb_all_gain": (9, 10), "bt_ranking": (5, 6)},
            zones_vary=False,
        )
    )
    assert g["rob_summary_choices"] == (
        'On this build\'s grids, the exact share behind "workers want more agency" is a choice as much as a result; '
        "GLM 5.1 tops the PWB under every weighting."
    )
    assert g["rob_summary_robust"] == (
        "The direction of the agency finding holds at only 4 of its 5 settings with one tie rule for both sides; the "
        "PWB's gains fail under 1 of the 10 named weight schemes."
    )
    assert g["rob_summary_ranking"] == (
        "The preference ranking does depend on the tie convention (it holds under 5 of the 6); it also depends"
    )
    g = summary.verdict_phrases(
        _fake(ALL_HOLD | {"pwb_top_glm_random": (400, 500)}, zones_vary=False, share_varies=False)
    )
    assert (
        g["rob_summary_choices"] == "On this build's grids, which model tops the PWB is a choice as much as a result."
    )

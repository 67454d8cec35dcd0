"""The preferences chapter's sentences off the paper's settings (issue 38), at the teaching guide's exercises
(book/teaching.md, Session 3): each checked in the chapter's text as the reader sees it (the notebook's prose with
the summary's values in place of its ``{glue:text}`` roles) against the values of a result at the exercise's setting.

One result is built per module, with small TrueSkill and simulation sections (:data:`FAST`: no sentence checked
here reads them except the simulation's, which ``sim_target=0.8`` gets at its reference size); a result at an
exercise's setting recomputes, with the build's own section functions, only the sections its key reaches
(``compendium.preferences.build.REACHES``)."""

from __future__ import annotations

import dataclasses
import re
from functools import cache

import numpy as np
import pytest

from compendium.chapter import numbers
from compendium.pipeline import paths
from compendium.pipeline.params import REFERENCE, study_params
from compendium.preferences import build as pbuild, summary

NOTEBOOK = paths.ROOT / "notebooks" / "30_preferences.md"
#: the sections no sentence here reads, small
FAST = dict(trueskill_orders=3, sim_budget=2000, sim_repetitions=20, sim_checkpoint_every=500)


def prose(glue: dict) -> str:
    """The chapter's Markdown without its code cells, each ``{glue:text}`name:fmt``` replaced by ``glue[name]``
    formatted as myst-nb formats it (a name ``glue`` lacks is left as it is), whitespace collapsed."""
    text = re.sub(r"```\{code-cell\}.*?```\n", "", NOTEBOOK.read_text(encoding="utf-8"), flags=re.S)

    def paste(m: re.Match) -> str:
        name, _, fmt = m.group(1).partition(":")
        return m.group(0) if name not in glue else format(glue[name], fmt) if fmt else str(glue[name])

    return " ".join(re.sub(r"\{glue:text\}`([^`]+)`", paste, text).split())


def between(text: str, start: str, end: str) -> str:
    """The passage of ``text`` from ``start`` up to (not including) the next ``end``."""
    i = text.index(start)
    return text[i : text.index(end, i + len(start))]


def sentences(text: str) -> list[str]:
    return re.split(r"(?<=[.;])\s+(?=[A-Z])", text)


@pytest.fixture(scope="module")
def at():
    """``at(**changed)``: the result at ``FAST | changed``, each once; the sections ``changed`` does not reach are
    the module's one build's."""
    p0 = study_params("preferences", **FAST)
    inputs = pbuild.Inputs.load(p0)
    base = pbuild.build(p0, inputs)

    @cache
    def result(**changed):
        p = study_params("preferences", **(FAST | changed))
        reached = {section for section, keys in pbuild.REACHES.items() if set(keys) & set(changed)}
        assert reached <= {"bootstrap", "cluster_bootstrap", "simulation"}, reached
        new = {}
        if "bootstrap" in reached:
            boot = pbuild.judgement_bootstrap(inputs, p, base.report)
            new |= dict(
                bootstrap=boot,
                cluster=pbuild.category_bootstrap(inputs, p, base.report),
                gap=pbuild.c_d_gap(inputs, base.davidson, boot),
            )
        if "simulation" in reached:
            new["simulation"] = pbuild.simulation(p, base.report, base.davidson)
        return dataclasses.replace(base, params=p, **new)

    return result


@pytest.fixture(scope="module")
def at_80(at):
    """``sim_target=0.8`` with the reference simulation (its simulated studies are the reference run's)."""
    return at(sim_target=0.8, **{k: REFERENCE["preferences"][k][0] for k in FAST if k.startswith("sim_")})


# ------------------------------------------------------------------ the judgements needed at the run's target


def _needed_table(r) -> tuple[str, str]:
    """The caption and body of the table of judgements needed, and the paragraph after it, as the reader sees them."""
    text = prose(summary.summary(r))
    return between(text, ":::{table} Decisive judgements needed", ":::"), between(
        text, "These numbers hold", "The closest pair"
    )


def _uniform_cells(r) -> tuple[str, str]:
    """The run's own uniform row at its target, as the chapter prints a simulated number."""
    u = r.simulation.needed.set_index("strategy").loc["uniform"]
    return tuple(
        summary.mc_text(u[c], u[f"{c}_mc_lo"], u[f"{c}_mc_hi"], u[f"{c}_mc_se"]) for c in ("n_for_ranking", "n_for_top")
    )


def test_the_uniform_row_answers_the_runs_target(at_80):
    """``sim_target=0.8``: the table captioned "with probability 80%" gives the uniform design's 80% numbers (about
    6,700 for the full ranking and 3,000 for the top model), not the ``preferences_mc`` stage's 95% ones (14,000 and
    10,600), and every sentence that quotes the stage's numbers names its 95%."""
    table, after = _needed_table(at_80)
    mc = at_80.inputs.mc["values"]
    assert "with probability 80 %" in table
    rank, top = _uniform_cells(at_80)
    assert f"| uniform pairs | {rank} | {top} |" in table, table
    u = at_80.simulation.needed.set_index("strategy").loc["uniform"]
    assert abs(u["n_for_ranking"] - 6700) < 300 and abs(u["n_for_top"] - 3000) < 400  # the referee's numbers
    assert rank.startswith("6,700") and top.startswith("3,000")
    g = summary.summary(at_80)
    stage_rank, stage_top = g["pref_mc_uniform_rank_txt"], g["pref_mc_uniform_top_txt"]
    assert stage_rank not in table and stage_top not in table
    assert "Uniform pairs: the cached many-study run" not in table  # the caption says where the row comes from
    assert "All three designs: the 1,000 studies per design" in table
    assert f"quotes the uniform pairs at {numbers.share(mc['pref_mc.target'])} recovery" in table
    quoting = [s for s in sentences(after) if stage_rank in s or stage_top in s]
    assert quoting and all(numbers.share(mc["pref_mc.target"]) in s for s in quoting), quoting
    assert "at this run's 80 % target the table's uniform row comes from the curves" in after


def test_the_uniform_row_at_the_papers_target_is_the_cached_run(at):
    """At the reference target the table's uniform row is the ``preferences_mc`` stage's, as the chapter says."""
    r = at()
    table, after = _needed_table(r)
    g = summary.summary(r)
    assert f"| uniform pairs | {g['pref_mc_uniform_rank_txt']} | {g['pref_mc_uniform_top_txt']} |" in table
    assert "Uniform pairs: the cached many-study run" in table and "Information gain and arena-like skew: the" in table
    assert f"The full ranking needs {g['pref_mc_uniform_rank_txt']}, the number quoted at the top" in after
    assert after.startswith("These numbers hold *if the point estimates were the truth*. The uniform row comes from")


def test_the_opening_does_not_call_the_runs_comparison_the_95_percent_number(at_80, at):
    """The opening's "Choosing pairs by information gain does not detectably reduce that number" points at the 95%
    number it quotes; off that target the comparison is made at the run's own, and the sentence says so."""
    for r, target in ((at_80, "80 %"), (at(), None)):
        text = prose(summary.summary(r))
        s = between(text, "Choosing pairs by information gain", ".")
        verdict = r.simulation.vs_uniform.set_index("strategy").loc["information_gain", "verdict"]
        assert verdict == "no detectable difference"
        if target is None:
            assert s.endswith("does not detectably reduce that number"), s
        else:
            assert "that number" not in s and f"at this run's {target} target" in s, s


# ------------------------------------------------------------------ the bootstrap's replicates and intervals


_TIMES = {"twice": 2, "three times": 3, "four times": 4, "five times": 5}


def test_the_widening_ratios_error_follows_the_runs_replicates(at):
    """``n_bootstrap=20000``: the chapter's own ratios carry sqrt(50,000 / 20,000), about 1.6 times the cached
    ratios' Monte Carlo error (three times at the reference 5,000)."""
    for n in (20000, int(REFERENCE["preferences"]["n_bootstrap"][0])):
        r = at(n_bootstrap=n)
        text = prose(summary.summary(r))
        m = re.search(r"ratios from the chapter's own ([\d,]+) replicates carry about (.+?) that error", text)
        assert m, text
        assert int(m.group(1).replace(",", "")) == n
        written = m.group(2)
        factor = np.sqrt(r.inputs.mc["values"]["pref_mc.cluster_widen.replicates"] / n)
        if written in _TIMES:
            assert abs(factor - _TIMES[written]) <= 0.2, (written, factor)
        else:
            assert written.endswith(" times") and abs(float(written.split()[0]) - factor) <= 0.05, (written, factor)
    assert "carry about three times that error" in text  # the reference, as committed


def test_the_try_it_box_names_the_committed_runs_settings(at):
    """The "Try it" questions compare a command with the committed run: "are 5,000 replicates enough?" and "rounds
    of 20", whatever the run's own (here 20,000 replicates, and rounds of 1)."""
    ref = REFERENCE["preferences"]
    boxes = [between(prose(summary.summary(at(**changed))), "{admonition} Try it", "```") for changed in (
        {"n_bootstrap": 20000}, {"sim_batch": 1})]  # fmt: skip
    assert all(f"are {ref['n_bootstrap'][0]:,} replicates enough" in box for box in boxes)
    assert all(f"compared with rounds of {ref['sim_batch'][0]}?" in box for box in boxes)


def test_a_selection_round_of_one_judgement_reads_as_one(at):
    """``sim_batch=1``: information gain chooses "each single judgement", not "each round of 1 judgements"."""
    text = prose(summary.summary(at(sim_batch=1)))
    assert "round of 1 judgements" not in text and "information gain (each single judgement goes to the pair" in text
    assert "information gain (each round of 20 judgements goes to the pair" in prose(summary.summary(at()))


#: the words for how far two intervals overlap: the share of the narrower interval's width each allows
OVERLAP = {"almost entirely": (0.75, 1.0), "widely": (0.4, 0.75), "only partly": (0.0, 0.4), "not at all": (0.0, 0.0)}


def _share(summary_table, x: str, y: str) -> float:
    s = summary_table.set_index("model")
    a, b = (s.loc[f"recipe_{m.lower()}", ["ci_lo", "ci_hi"]].to_numpy(float) for m in (x, y))
    return max(0.0, min(a[1], b[1]) - max(a[0], b[0])) / min(a[1] - a[0], b[1] - b[0])


def _described(caption: str) -> dict[tuple[str, str], str]:
    """``{(x, y): word}`` for each pair of recipes the caption says something of."""
    words = "|".join(OVERLAP)
    m = re.search(
        rf"the intervals of Recipes C and D (?:overlap ({words})|do not overlap), those of (.*?)\. Bottom", caption
    )
    assert m, caption
    out = {("C", "D"): m.group(1) or "not at all"}
    rest = m.group(2)
    if grouped := re.fullmatch(rf"B, C and D ({words})", rest):
        out |= {("B", "C"): grouped.group(1), ("B", "D"): grouped.group(1)}
    else:
        for x, y, w in re.findall(rf"(?:those of )?([BCD]) and ([BCD]) ({words})", rest):
            out[(x, y)] = w
    assert set(out) == {("C", "D"), ("B", "C"), ("B", "D")}, caption
    return out


@pytest.mark.parametrize("level", [0.8, 0.95])
def test_the_interval_overlap_is_read_from_the_intervals(at, level):
    """``ci_level=0.8``: the figure caption says how the intervals of B, C and D overlap as the run's intervals do
    (at 80 %, B [0.966, 1.124] and C [1.089, 1.259] share 0.035, and C and D about 65 % of the narrower), not
    "C and D almost entirely, B, C and D widely" as at 95 %."""
    r = at(ci_level=level)
    caption = between(prose(summary.summary(r)), "Top: Bradley–Terry strengths", "(the untrained model")
    for (x, y), word in _described(caption).items():
        share = _share(r.bootstrap.summary, x, y)
        lo, hi = OVERLAP[word]
        assert (share == 0) if word == "not at all" else (lo <= share <= hi and share > 0), (x, y, word, share)
    if level == 0.95:
        assert "the intervals of Recipes C and D overlap almost entirely, those of B, C and D widely." in caption
    else:
        assert _overlap_length(r, "B", "C") == pytest.approx(0.035, abs=0.002)


def _overlap_length(r, x: str, y: str) -> float:
    s = r.bootstrap.summary.set_index("model")
    a, b = (s.loc[f"recipe_{m.lower()}", ["ci_lo", "ci_hi"]].to_numpy(float) for m in (x, y))
    return max(0.0, min(a[1], b[1]) - max(a[0], b[0]))


def test_the_overlap_words_by_hand():
    assert summary.overlap_share((0.0, 1.0), (0.5, 3.0)) == pytest.approx(0.5)
    assert summary.overlap_share((0.0, 1.0), (2.0, 3.0)) == 0.0
    assert [summary.overlap_word(x) for x in (0.8, 0.5, 0.1, 0.0)] == [
        "almost entirely",
        "widely",
        "only partly",
        "not at all",
    ]
    assert summary.error_ratio_text(50_000, 5_000) == "about three times that error"
    assert summary.error_ratio_text(50_000, 20_000) == "about 1.6 times that error"
    assert summary.error_ratio_text(50_000, 50_000) == "about the same error"
    assert summary.error_ratio_text(50_000, 100_000) == "about 0.7 times that error"

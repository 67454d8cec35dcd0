"""The teaching guide's keys, each recomputed at its exercise's setting (issue 38).

Every exercise of the teaching guide's Sessions 1-4 that runs a command has a *Key:* saying what a student should
find (``book/teaching.md``). Each test here reads the numbers its key states out of the guide (:func:`key`,
:func:`check`), recomputes them with the project's own functions at exactly the exercise's setting (``study_params``
with only the exercise's keys changed, so at full size: the draws, replicates, orders and simulated studies of
``params.REFERENCE``), and compares: a number written plainly must equal the computation to the digits it is
written with; an "about" number (a Monte Carlo estimate) must lie within the tolerance given here (:class:`About`);
a bound ("at most 2 tasks") must hold (:class:`AtMost`). A phrase a test looks for that the key no longer says fails
too, so the guide and the computation cannot drift apart: change either so that a key is false and its test fails.

Each test computes only the section its key needs (a zone count: the landscape; an interval level: the bootstrap;
a tie-rule share: the agency section), and what several keys share is built once per module. Session 4's first three
keys (cut-off 3.1, the v2.0 weights, a preferences seed) are checked by their studies' per-key tests
(``tests/{workbank,pwb,preferences}/test_*_offpaper.py``).

Slow: the key to ``preferences.sim_batch=1`` needs the information-gain simulation with one judgement per selection
round, about 80 s on the 2-core build machine, so :func:`test_s3_sim_batch_one` runs only with
``COMPENDIUM_SLOW_KEYS=1``; everything else takes about a minute.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from compendium import claims, pwb
from compendium.pipeline import paths
from compendium.pipeline.params import study_params

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "robustness"))
from robustness_cases import PREF_VALUES  # noqa: E402

GUIDE = paths.ROOT / "book" / "teaching.md"
#: the fourth-judge file's duplicate-handling rules (``pwb.fourth_judge_rule``)
RULES = ("first", "last", "drop", "all")
#: WORKBank's zones, in the chapter's order
ZONES = ("green", "red", "rnd", "low")

# ------------------------------------------------------------------------------------------ reading the keys

#: a number as the guide writes it: a sign (ASCII or the minus sign), thousands commas, decimals
NUMBER = r"([+\-−]?\d[\d,]*(?:\.\d+)?)"


def _words(text: str) -> str:
    return " ".join(text.split())


def key(session: str, command: str, text: str | None = None) -> str:
    """The *Key:* of the one exercise of ``session`` ("Session 2") whose bullet shows ``command``, whitespace
    collapsed (``text``: the guide's text, read from ``book/teaching.md`` by default)."""
    text = GUIDE.read_text(encoding="utf-8") if text is None else text
    sections = [s for s in re.split(r"(?m)^## ", text) if s.startswith(session)]
    assert len(sections) == 1, f"book/teaching.md: no single section {session!r}"
    bullets = [b for b in re.split(r"(?m)^ *- ", sections[0]) if command in b and "*Key:*" in b]
    assert len(bullets) == 1, f"book/teaching.md, {session}: {len(bullets)} exercises with {command!r} and a key"
    return _words(bullets[0].split("*Key:*", 1)[1])


@dataclass(frozen=True)
class About:
    """A Monte Carlo estimate the key writes with "about": within ``tol`` of the written number."""

    value: float
    tol: float


@dataclass(frozen=True)
class AtMost:
    """A computed quantity the key bounds from above ("at most 2 tasks"), with ``slack`` for an "about" bound."""

    value: float
    slack: float = 0.0


def _number(written: str) -> float:
    return float(written.replace(",", "").replace("−", "-"))


def _agrees(written: str, expected) -> bool:
    x = _number(written)
    if isinstance(expected, About):
        return abs(x - expected.value) <= expected.tol
    if isinstance(expected, AtMost):
        return expected.value <= x + expected.slack
    decimals = len(written.split(".")[1]) if "." in written else 0
    return abs(x - float(expected)) <= 0.5 * 10**-decimals + 1e-9  # the computation, to the digits written


def check(text: str, template: str, *expected) -> None:
    """``template`` (the key's words, ``{}`` where it writes a number) must occur in ``text``, and each number there
    must agree with the computed ``expected`` (a number: equal to the digits written; :class:`About`,
    :class:`AtMost`)."""
    parts = _words(template).split("{}")
    m = re.search(NUMBER.join(re.escape(p) for p in parts), text)
    assert m, f"the key no longer says {template!r}:\n{text}"
    assert len(m.groups()) == len(expected), f"{template!r}: {len(m.groups())} numbers, {len(expected)} expected"
    for written, want in zip(m.groups(), expected, strict=True):
        assert _agrees(written, want), f"{template!r}: the key says {written}, the computation gives {want}"


def says(text: str, phrase: str) -> None:
    assert _words(phrase) in text, f"the key no longer says {phrase!r}:\n{text}"


def test_a_key_that_states_a_wrong_number_fails():
    """The check can fail: the cut-off key with one count changed, or a phrase reworded, is refused."""
    guide = GUIDE.read_text(encoding="utf-8")
    template = "Green Light falls from {} to {} tasks"
    check(key("Session 2", "workbank.cutoff=3.5", guide), template, 364, 125)
    wrong = guide.replace("Green Light falls from 364 to 125 tasks", "Green Light falls from 364 to 126 tasks")
    with pytest.raises(AssertionError, match="the key says 126"):
        check(key("Session 2", "workbank.cutoff=3.5", wrong), template, 364, 125)
    with pytest.raises(AssertionError, match="no longer says"):
        check(key("Session 2", "workbank.cutoff=3.5", guide.replace("falls from 364", "drops from 364")), template)
    with pytest.raises(AssertionError, match="about"):
        check("about 0.44", "about {}", About(0.46, 0.01))


# ------------------------------------------------------------------------------ Session 1: the PWB chapter


@pytest.fixture(scope="module")
def pwb_ref():
    """The PWB inputs, the v2.1 weights and the released aggregates' section at the reference settings."""
    from compendium.pwb import sections, weights

    p = study_params("pwb")
    inputs = pwb.Inputs.load(p)
    w21 = weights.scheme_weights(inputs.config)
    return p, inputs, w21, sections.aggregates_section(inputs, w21, w21)


def _sensitivity(pwb_ref, **changed):
    from compendium.pwb import sections

    _, inputs, w21, agg = pwb_ref
    return sections.sensitivity_section(inputs.config, agg.cells, study_params("pwb", **changed), w21, w21)


def test_s1_restore_weight(pwb_ref):
    from compendium.pwb import paper_printed as printed

    k = key("Session 1", "pwb.restore_weight=0.05")
    ref, run = _sensitivity(pwb_ref), _sensitivity(pwb_ref, restore_weight=0.05)
    at_ref, at_run = (float(s.sens.set_index("scheme").loc["restore_ut_ar", "min_delta"]) for s in (ref, run))
    text_quotes = next(x["printed"]["restore_ut_ar"] for x in printed.INCONSISTENCIES if x["where"] == "Sec. 6.3")
    check(k, "smallest gain falls from +{} to +{}, the text's number", at_ref, at_run)
    check(k, "to +{}, the text's number", text_quotes)
    pd.testing.assert_frame_equal(ref.grid, run.grid)  # no parameter reaches the restore grid
    check(
        k,
        "its 0.05 × 0.05 cell gives +{} and its 0.10 × 0.10 cell +{}",
        run.grid.loc[0.05, 0.05],
        run.grid.loc[0.1, 0.1],
    )
    table_prints = printed.SENSITIVITY_TABLE.set_index("scheme").loc["restore_ut_ar", "min_delta"]
    check(k, "cell +{}, the value the appendix table prints", table_prints)
    assert run.grid.loc[0.10, 0.10] == pytest.approx(at_ref)


def test_s1_weight_scheme(pwb_ref):
    from compendium.pwb import aggregates, sections, weights

    p, inputs, w21, agg = pwb_ref
    k = key("Session 1", "pwb.weight_scheme=legacy_weights_v2_0")
    q = study_params("pwb", weight_scheme="legacy_weights_v2_0")
    v20 = sections.aggregates_section(inputs, weights.scheme_weights(inputs.config, q.weight_scheme), w21).t2
    v21 = agg.t2

    def order(t2, col):
        return list(t2.sort_values(col, ascending=False)["model"])

    assert order(v20, "baseline") == order(v21, "baseline")
    o21, o20 = order(v21, "prompted"), order(v20, "prompted")
    assert o21[:5] == o20[:5] and o21[5:] == ["Devstral-2 123B", "Qwen3.5 27B"] == o20[5:][::-1]
    pr20, pr21 = (t.set_index("model")["prompted"] for t in (v20, v21))
    check(
        k,
        "(Qwen3.5 27B at {} ahead of Devstral-2 123B at {}, against {} behind {} under v2.1)",
        pr20["Qwen3.5 27B"],
        pr20["Devstral-2 123B"],
        pr21["Qwen3.5 27B"],
        pr21["Devstral-2 123B"],
    )
    tau = _sensitivity(pwb_ref).sens.set_index("scheme").loc["v2_0", "kendall_tau"]
    check(k, "Kendall's τ is {}, as in the v2.0 row", tau)
    assert (v20["delta_printed"] > 0).all()
    check(
        k,
        "by +{} to +{} points (mean +{} instead of +{})",
        v20["delta_printed"].min(),
        v20["delta_printed"].max(),
        aggregates.mean_printed_delta(v20["baseline"], v20["prompted"]),
        aggregates.mean_printed_delta(v21["baseline"], v21["prompted"]),
    )
    gap = pd.concat([v20["diff_baseline"], v20["diff_prompted"]]).abs().max()
    check(k, "differ from the published ones, which are v2.1's, by up to {} points", gap)


def test_s1_cf_heavy_weight(pwb_ref):
    k = key("Session 1", "pwb.cf_heavy_weight=0.5")
    ref, run = _sensitivity(pwb_ref), _sensitivity(pwb_ref, cf_heavy_weight=0.5)
    r, s = (x.sens.set_index("scheme").loc["cf_heavy"] for x in (ref, run))
    check(k, "Kendall's τ falls from {} to {}", r["kendall_tau"], s["kendall_tau"])
    says(k, '"top 3 stable" turns false')
    assert r["top3_stable"] and not s["top3_stable"]

    def top(sens, scheme):
        x = sens.sens_pwis
        x = x[(x["scheme"] == scheme) & (x["condition"] == "with_system_prompt")]
        return list(x.sort_values("pwi", ascending=False)["model"])

    assert top(ref, "default")[:3] == ["GLM 5.1", "Gemma 4 31B", "DeepSeek V3.2"]
    assert top(run, "cf_heavy")[:4] == ["Gemma 4 31B", "GLM 5.1", "GPT-oss 120B", "DeepSeek V3.2"]
    says(k, "Gemma 4 31B overtakes GLM 5.1 for first place and GPT-oss 120B pushes DeepSeek V3.2 out of the top three")
    check(k, "the largest change of a PWI grows from {} to {} points", r["max_dev"], s["max_dev"])
    assert (run.sens["min_delta"] > 0).all()
    check(k, "(smallest gain +{} instead of +{})", s["min_delta"], r["min_delta"])


def test_s1_fourth_judge_rule(pwb_ref):
    from compendium.pwb import paper_printed as printed, sections

    _, inputs, _, _ = pwb_ref
    k = key("Session 1", "pwb.fourth_judge_rule=all")
    val = {rule: sections.validation_section(inputs, study_params("pwb", fourth_judge_rule=rule)) for rule in RULES}
    fa = {rule: v.fa["overall"] for rule, v in val.items()}
    for rule in RULES:  # the rules table does not depend on the parameter, and holds all four rules
        pd.testing.assert_frame_equal(val[rule].rules, val["first"].rules)
    assert set(val["first"].rules["rule"]) == set(RULES)
    template = "({} with the first record of each item, the value the paper prints; {} with `all`; {} with `drop`)"
    check(k, template, *(fa[r]["qwk"] for r in ("first", "all", "drop")))
    check(k, "({} with the first record of each item, the value the paper prints;", printed.FOURTH_JUDGE_PRINTED["qwk"])
    says(k, "κ moves in the third decimal")
    assert all(abs(fa[r]["qwk"] - fa["first"]["qwk"]) < 0.005 for r in RULES)
    assert all(round(fa[r]["qwk"], 3) != round(fa["first"]["qwk"], 3) for r in ("all", "drop"))
    check(k, "by a few tenths of a point ({} %, {} % and {} %)", *(fa[r]["exact"] for r in ("first", "all", "drop")))
    assert max(abs(fa[r]["exact"] - fa["first"]["exact"]) for r in RULES) < 1
    check(k, "*N*: {} with `all` and {} with `drop`", fa["all"]["n"], fa["drop"]["n"])
    n = val["first"].rules.set_index("rule")["n"]
    assert n["first"] == n["last"] == printed.FOURTH_JUDGE_PRINTED["n"] != n["all"] and n["drop"] != n["first"]
    check(k, "(`first` or `last`) gives the paper's {}", printed.FOURTH_JUDGE_PRINTED["n"])


# ------------------------------------------------------------------------------ Session 2: the WORKBank chapter


@pytest.fixture(scope="module")
def wb():
    """The WORKBank inputs, the occupations' sectors and a landscape section at any setting (each computed once)."""
    from compendium.workbank import desire, sections
    from compendium.workbank.build import Inputs

    p = study_params("workbank")
    inputs = Inputs.load(p)
    sectors = desire.occupation_sectors(inputs.task_metadata, inputs.bls_wages)

    @cache
    def landscape_at(**changed):
        q = study_params("workbank", **changed)
        return sections.landscape_section(
            inputs.desires,
            inputs.experts,
            sectors,
            cutoff=q.cutoff,
            sweep=(q.sweep_min, q.sweep_max, q.sweep_step),
            n_boot=q.n_boot,
            seed=q.seed,
            stable_level=q.stable_level,
        )

    return p, inputs, landscape_at


def test_s2_cutoff(wb):
    from compendium.workbank import landscape

    _, _, landscape_at = wb
    k = key("Session 2", "workbank.cutoff=3.5")
    ref = landscape_at()
    land = ref.extra["landscape"]
    z = {c: landscape.zone_counts(landscape.assign_zones(land["capability"], land["desire"], c)) for c in (2.5, 3.5)}
    assert {zone: ref.values[f"wb.zones.{zone}"] for zone in z[2.5]} == landscape.zone_counts(land["zone"])
    check(
        k,
        "at 3.5 Green Light falls from {} to {} tasks and Low Priority, with {}, becomes the largest zone "
        "(Red Light {}, R&D Opportunity {})",
        ref.values["wb.zones.green"],
        z[3.5]["green"],
        z[3.5]["low"],
        z[3.5]["red"],
        z[3.5]["rnd"],
    )
    assert max(z[3.5], key=z[3.5].get) == "low"
    check(
        k,
        "at 2.5 Green Light holds {} of the {} tasks and Low Priority only {} (Red Light {}, R&D Opportunity {})",
        z[2.5]["green"],
        len(land),
        z[2.5]["low"],
        z[2.5]["red"],
        z[2.5]["rnd"],
    )
    sweep = ref.tables["cutoff_sweep"].set_index("cutoff")[list(ZONES)]
    says(k, "These are the two ends of the cut-off sweep figure")
    assert sweep.iloc[0].to_dict() == z[2.5] and sweep.iloc[-1].to_dict() == z[3.5]


def test_s2_has_tie_rule(wb):
    from compendium.workbank import sections
    from compendium.workbank.summary import published_value

    p, inputs, _ = wb
    k = key("Session 2", "workbank.has_tie_rule=highest")
    sec = {
        rule: sections.agency_section(
            inputs.desires, inputs.experts, tie_rule=rule, seed=p.seed, n_random=p.n_tie_draws
        )
        for rule in ("lowest", "highest", "random", "mean")
    }
    wm = {rule: s.values["wb.has.workers_more"] for rule, s in sec.items()}
    em = {rule: s.values["wb.has.experts_more"] for rule, s in sec.items()}
    check(
        k,
        "on {} % of tasks with `highest`, about {} % with `random` and {} % with `mean` ({} % with the paper's `lowest`)",
        wm["highest"],
        About(wm["random"], 1),
        wm["mean"],
        wm["lowest"],
    )
    check(k, "({} % with the paper's `lowest`)", published_value("wb.has.workers_more", inputs.register))
    check(k, "the experts want more on {} %, about {} % and {} %", em["highest"], About(em["random"], 1), em["mean"])
    assert all(wm[r] > em[r] for r in sec)
    grid = sec["lowest"].tables["has_tie_rules"]
    for s in sec.values():  # the tie-rule grid does not depend on the run's rule
        pd.testing.assert_frame_equal(s.tables["has_tie_rules"], grid)
    reversed_ = grid[grid["workers_more"] < grid["experts_more"]]
    assert set(zip(reversed_["worker_rule"], reversed_["expert_rule"], strict=True)) == {
        ("lowest", "highest"),
        ("lowest", "mean"),
        ("random", "highest"),
    }
    says(k, "only three mixed combinations reverse the finding")
    says(k, "(workers `lowest` against experts `highest` or `mean`, workers `random` against experts `highest`)")


def test_s2_stable_level(wb):
    _, _, landscape_at = wb
    k = key("Session 2", "workbank.stable_level=0.8")
    ref, run = landscape_at(), landscape_at(stable_level=0.8)
    n = ref.values["wb.zones.n_tasks"]
    check(
        k,
        "at 80 % about {} % of the {} tasks are not stable, against about {} % at 95 %",
        About(run.values["wb.robust.zone_uncertain_share"], 1),
        n,
        About(ref.values["wb.robust.zone_uncertain_share"], 1),
    )
    stable = [n - s.values["wb.robust.zone_uncertain_n"] for s in (run, ref)]
    check(k, "so about {} task zones count as stable instead of about {}", About(stable[0], 10), About(stable[1], 10))
    assert stable[0] < n / 2
    for v, x in ref.values.items():  # the zone counts and their intervals do not move
        if v.startswith("wb.zones.") or re.fullmatch(r"wb\.robust\.zone_\w+_ci(_cluster)?", v):
            assert run.values[v] == x, v


def test_s2_n_boot_and_seed(wb):
    _, _, landscape_at = wb
    k = key("Session 2", "workbank.n_boot=500")
    ref, few, seed = landscape_at(), landscape_at(n_boot=500), landscape_at(seed=1)
    for run in (few, seed):
        assert all(run.values[f"wb.zones.{z}"] == ref.values[f"wb.zones.{z}"] for z in ZONES)

    def moves(run, suffix):
        return max(
            abs(
                np.subtract(run.values[f"wb.robust.zone_{z}_{suffix}"], ref.values[f"wb.robust.zone_{z}_{suffix}"])
            ).max()
            for z in ZONES
        )

    check(k, "move by at most {} tasks", AtMost(max(moves(few, "ci"), moves(seed, "ci"))))
    green = [s.values["wb.robust.zone_green_ci"] for s in (ref, few, seed)]
    check(k, "(Green Light's {}–{} becomes {}–{} with 500 draws and {}–{} with seed 1)", *np.ravel(green))
    cluster = max(moves(few, "ci_cluster"), moves(seed, "ci_cluster"))
    check(k, "those of the rater-cluster intervals by up to about {}", About(cluster, 1))
    for run in (few, seed):
        check(
            k,
            "about {} % of tasks stay not stable in both runs",
            About(run.values["wb.robust.zone_uncertain_share"], 1),
        )


def _mixed(inputs, method: str):
    """The reliability section (alpha and the Table 1 mixed model) fitted with ``method``, and the claims check's
    statuses of the register's mixed-model claims (Table 1's cells, the notebook's fit statistics)."""
    from compendium.workbank import register, sections

    sec = sections.reliability_section(inputs.desires, inputs.experts, inputs.metadata, method=method)
    summ = sec.extra["summary"]
    table1 = next(t for t in inputs.register["tables"] if t["slug"] == "table1")
    frame = register.table1_frame(sec.tables["mixed_model_coefficients"], table1["row_labels"])
    values = {vid: float(frame.loc[r, c]) for (r, c), vid in register.cell_ids(table1).items()}
    values |= register.mixed_model_stats(summ)
    published = claims.load_published()
    pub = published[published["claim_id"].isin(values)]
    status = claims.check(pub, {"workbank": values}, claims.load_notes()).set_index("claim_id")
    return sec, summ, frame, status


def test_s2_mixed_method(wb):
    _, inputs, _ = wb
    k = key("Session 2", "workbank.mixed_method=lbfgs")
    fits = {m: _mixed(inputs, m) for m in ("bfgs", "lbfgs")}
    for _sec, summ, _frame, _status in fits.values():  # the same optimum, to the digits the key writes
        check(
            k,
            "(log-likelihood {}, σu² = {}, σε² = {}, ICC {};",
            summ["llf"],
            summ["sigma_u2"],
            summ["sigma_e2"],
            summ["icc"],
        )
    summ = fits["lbfgs"][1]
    assert summ["singular_warning"] and summ["sigma_u2"] > 0.01 and not fits["bfgs"][1]["singular_warning"]
    says(k, "statsmodels warns of a singular covariance, but the task variance is not zero")
    for *_, status in fits.values():
        assert (status.loc[["wb.mixed.loglik", "wb.mixed.group_var_se"], "status"] == "reproduced").all()
    coef = (fits["lbfgs"][2] - fits["bfgs"][2]).abs().max().max()
    assert 1e-5 < coef < 1e-3  # "the coefficients move in the fourth decimal"
    t1 = {m: f[3][f[3].index.str.startswith("wb.table1.")] for m, f in fits.items()}
    differs = t1["bfgs"][t1["bfgs"]["status"] != "reproduced"]
    assert (differs["status"] == "differs").all() and (differs["reason"] == "rounding_boundary").all()
    check(k, "which tips the {} Table 1 cells that BFGS leaves just across a rounding boundary", len(differs))
    assert (t1["lbfgs"]["status"] == "reproduced").all()
    says(k, "under L-BFGS every Table 1 cell reproduces")


def test_s2_sweep_range(wb):
    _, _, landscape_at = wb
    k = key("Session 2", "workbank.sweep_min=2.0")
    sweep = landscape_at(sweep_min=2.0, sweep_max=4.0).tables["cutoff_sweep"].set_index("cutoff")
    land = landscape_at().extra["landscape"]
    step = sweep.diff()
    check(k, "Green Light runs from {} tasks at 2.0 to {} at 4.0", sweep.loc[2.0, "green"], sweep.loc[4.0, "green"])
    drops = (-step["green"]).sort_values(ascending=False)
    assert list(drops.index[:2]) == [3.1, 2.1] and step["low"].idxmax() == 3.1  # the two biggest jumps

    def at(col, x):
        return int(np.isclose(land[col], x).sum())

    check(
        k,
        "from 3.0 to 3.1 Green Light loses {} tasks and Low Priority gains {} ({} desire means and {} capability means "
        "are exactly 3.0)",
        drops[3.1],
        step.loc[3.1, "low"],
        at("desire", 3.0),
        at("capability", 3.0),
    )
    check(
        k,
        "from 2.0 to 2.1 Green Light loses {} ({} capability means are exactly 2.0)",
        drops[2.1],
        at("capability", 2.0),
    )


# ------------------------------------------------------------------------ Session 3: the preferences chapter


@pytest.fixture(scope="module")
def pref():
    """The preference study's inputs (without the ``preferences_mc`` stage's outputs: no key reads them), its report
    and its Davidson fit."""
    from compendium.preferences import build

    p = study_params("preferences")
    inputs = build.Inputs.load(p, mc=False)
    report = build.reproduce_report(inputs)
    return p, inputs, report, build.davidson(inputs, report)


@pytest.fixture(scope="module")
def simulation_80(pref):
    """The chapter's simulation section at ``sim_target=0.8`` (its simulated studies are the reference run's)."""
    from compendium.preferences import build

    _, _, report, dav = pref
    return build.simulation(study_params("preferences", sim_target=0.8), report, dav)


def test_s3_seed_and_n_bootstrap(pref):
    from compendium.preferences import build

    p, inputs, report, _ = pref
    k = key("Session 3", "preferences.n_bootstrap=20000")
    runs = [
        build.judgement_bootstrap(inputs, study_params("preferences", **changed), report)
        for changed in ({}, {"seed": 1}, {"n_bootstrap": 20000})
    ]
    for b in runs:
        best = b.summary.set_index("model")["p_best"]
        check(
            k,
            "Recipe C is best in about {} % of replicates, Recipe D in about {} % and Recipe B in about {} %",
            About(100 * best["recipe_c"], 1.5),
            About(100 * best["recipe_d"], 1.5),
            About(100 * best["recipe_b"], 1),
        )
    ref, n0 = runs[0].rank_probs, len(runs[0].boot.strengths)
    moves, z = [], []
    for b in runs[1:]:
        d = (b.rank_probs - ref).abs()
        se = np.sqrt(ref * (1 - ref) / n0 + b.rank_probs * (1 - b.rank_probs) / len(b.boot.strengths))
        moves.append(100 * d.max().max())
        z.append(float((d / se.where(se > 0)).max().max()))
        ends = (b.summary[["ci_lo", "ci_hi"]] - runs[0].summary[["ci_lo", "ci_hi"]]).abs().max().max()
        assert ends < 0.01  # "the interval ends move in the third decimal"
    check(k, "no rank probability moves by more than about {} percentage point", About(max(moves), 0.5))
    check(k, "(within about {} Monte Carlo standard errors)", AtMost(max(z), slack=0.5))
    says(k, "the interval ends move in the third decimal")


def test_s3_ci_level(pref):
    from compendium.preferences import build

    _, inputs, report, _ = pref
    k = key("Session 3", "preferences.ci_level=0.8")
    q = study_params("preferences", ci_level=0.8)
    at80, at95 = (
        build.judgement_bootstrap(inputs, q, report),
        build.judgement_bootstrap(inputs, study_params("preferences"), report),
    )
    cl80 = build.category_bootstrap(inputs, q, report).c_vs_d
    a, b = at80.c_vs_d, at95.c_vs_d
    check(
        k,
        "the 80 % interval of log(π_C/π_D) is about [{}, {}] (at 95 %, [{}, {}])",
        About(a["ci_lo"], 0.01),
        About(a["ci_hi"], 0.01),
        About(b["ci_lo"], 0.01),
        About(b["ci_hi"], 0.01),
    )
    check(
        k,
        "with the prompt categories resampled too about [{}, {}]",
        About(cl80["ci_lo"], 0.01),
        About(cl80["ci_hi"], 0.01),
    )
    assert not a["separable"] and not cl80["separable"]
    assert a["p_greater"] == b["p_greater"]  # the same replicates, cut elsewhere
    check(k, "Recipe C is stronger in about {} % of them at any level", About(100 * a["p_greater"], 2))
    threshold = 2 * a["p_greater"] - 1  # an equal-tailed interval excludes 0 only below this level
    check(k, "only an interval at a level below about {} % would exclude 0", About(100 * threshold, 3))
    boot = at80.boot
    assert boot.log_ratio_interval("recipe_c", "recipe_d", level=0.95 * threshold)["separable"]
    assert not boot.log_ratio_interval("recipe_c", "recipe_d", level=1.05 * threshold)["separable"]


def test_s3_trueskill_orders(pref):
    from compendium.preferences import MODELS
    from compendium.preferences.uncertainty import trueskill_orders

    p, inputs, report, _ = pref
    k = key("Session 3", "preferences.trueskill_orders=1000")
    strengths = report.bt.set_index("model").loc[list(MODELS), "strength"].to_numpy()
    got = {}
    for n in (200, 1000):
        drift = trueskill_orders(inputs.counts, n_orders=n, seed=p.seed)
        static = trueskill_orders(inputs.counts, n_orders=n, seed=p.seed, tau=0.0)
        s = drift.summary().set_index("model")
        gaps = np.diff(np.sort(s["centred_mu_mean"].to_numpy()))
        got[n] = {
            "sd": float(s["centred_mu_sd_over_orders"].mean()),
            "gap_min": float(gaps.min()),
            "gap_max": float(gaps.max()),
            "top_c": 100 * float(s.loc["recipe_c", "p_top"]),
            "match": 100 * drift.share_matching_ranking(strengths),
            "match_static": 100 * static.share_matching_ranking(strengths),
        }
    new, old = got[1000], got[200]
    for g in (new, old):
        check(k, "with an SD of about {}, as large as the gaps", About(g["sd"], 0.01))
    check(k, "neighbouring models ({} to about {})", new["gap_min"], About(new["gap_max"], 0.1))
    assert new["gap_min"] < new["sd"] < new["gap_max"]
    says(k, "Recipe C comes out on top in only about half the orders")
    assert abs(new["top_c"] - 50) < 5 and abs(old["top_c"] - 50) < 5
    check(k, "({} %; {} % with 200 orders)", new["top_c"], old["top_c"])
    check(
        k,
        "and {} % of orders give the Bradley–Terry ranking ({} % with 200); with τ = 0, {} % do ({} %)",
        new["match"],
        old["match"],
        new["match_static"],
        old["match_static"],
    )


def test_s3_sim_target(pref, simulation_80):
    p, _, report, _ = pref
    k = key("Session 3", "preferences.sim_target=0.8")
    at80 = simulation_80.needed.set_index("strategy")
    at95 = simulation_80.sim.judgements_needed(target=0.95, seed=p.seed).set_index("strategy")
    u = at80.loc["uniform"]
    check(
        k,
        "about {} decisive judgements with the study's uniform design (90 % Monte Carlo interval about {}–{})",
        About(u["n_for_ranking"], 300),
        About(u["n_for_ranking_mc_lo"], 300),
        About(u["n_for_ranking_mc_hi"], 300),
    )
    check(k, "more than five times the study's {}", report.n_decisive)
    assert u["n_for_ranking"] > 5 * report.n_decisive and u["n_for_ranking"] < at95.loc["uniform", "n_for_ranking"] / 2
    says(k, "less than half what 95 % takes")
    check(
        k,
        "information gain needs about {} and arena-like skew about {}",
        About(at80.loc["information_gain", "n_for_ranking"], 300),
        About(at80.loc["arena", "n_for_ranking"], 400),
    )


def _simulate(pref, strategies, **changed):
    from compendium.preferences import MODELS
    from compendium.preferences.simulation import simulate_active_sampling

    _, _, _, dav = pref
    q = study_params("preferences", **changed)
    return simulate_active_sampling(
        dav.truth,
        budget=q.sim_budget,
        repetitions=q.sim_repetitions,
        checkpoint_every=q.sim_checkpoint_every,
        seed=q.seed,
        batch=q.sim_batch,
        arena_skew=q.sim_arena_skew,
        prior_sd=q.sim_prior_sd,
        strategies=strategies,
        labels=MODELS,
    )


def test_s3_sim_arena_skew(pref, simulation_80):
    """``sim_arena_skew=2.0``: the uniform and arena-like designs only (each strategy draws from its own stream, so
    they are the chapter's; the information-gain design does not read the skew)."""
    from compendium.preferences.simulation import compare_with_uniform

    p, *_ = pref
    k = key("Session 3", "preferences.sim_arena_skew=2.0")
    run = _simulate(pref, ("uniform", "arena"), sim_arena_skew=2.0)
    skew2 = run.judgements_needed(target=0.95, seed=p.seed).set_index("strategy")
    skew1 = simulation_80.sim.judgements_needed(target=0.95, seed=p.seed).set_index("strategy")
    check(
        k,
        "needs about {} decisive judgements for the full ranking instead of about {} at skew 1",
        About(skew2.loc["arena", "n_for_ranking"], 1500),
        About(skew1.loc["arena", "n_for_ranking"], 1100),
    )
    n = int(skew2.loc["uniform", "first_checkpoint_ranking"])
    check(k, "and at {} judgements, where uniform sampling first reaches 95 %", n)
    cmp = compare_with_uniform(run, n).set_index("strategy").loc["arena"]
    assert cmp["verdict"] == "less"
    check(k, "it recovers the ranking in only about {} % of simulated studies", About(100 * cmp["p_ranking"], 2))


@pytest.mark.slow
@pytest.mark.skipif(
    not os.environ.get("COMPENDIUM_SLOW_KEYS"),
    reason="the information-gain simulation with sim_batch=1 takes about 80 s; run with COMPENDIUM_SLOW_KEYS=1 (make test-scratch does)",
)
def test_s3_sim_batch_one(pref, simulation_80):
    """``sim_batch=1``: the information-gain design, one judgement per selection round, against uniform sampling."""
    from compendium.preferences.simulation import compare_with_uniform

    p, *_ = pref
    k = key("Session 3", "preferences.sim_batch=1")
    run = _simulate(pref, ("uniform", "information_gain"), sim_batch=1)
    one = run.judgements_needed(target=0.95, seed=p.seed).set_index("strategy")
    rounds = simulation_80.sim.judgements_needed(target=0.95, seed=p.seed).set_index("strategy")
    for needed in (one, rounds):
        check(
            k,
            "it still needs about {}, as with rounds of 20",
            About(needed.loc["information_gain", "n_for_ranking"], 800),
        )
    check(k, "as with rounds of {}", p.sim_batch)
    n = int(one.loc["uniform", "first_checkpoint_ranking"])  # where uniform sampling first reaches 95 %
    verdict = compare_with_uniform(run, n).set_index("strategy").loc["information_gain", "verdict"]
    assert verdict == "no detectable difference", verdict
    says(k, "changes nothing detectable")
    says(k, "is right about as often as uniform sampling")


# ---------------------------------------------------------------- Session 4: robustness grids and the pipeline


@pytest.fixture(scope="module")
def rob():
    """The robustness inputs (the preferences export given, not read: no key reads it) and a build at any setting."""
    from compendium.robustness import build

    inputs = build.Inputs.load(study_params("robustness"), pref_values=PREF_VALUES)

    @cache
    def build_at(**changed):
        return build.build(study_params("robustness", **changed), inputs)

    return inputs, build_at


def test_s4_zone_boundaries(rob):
    from compendium.robustness import summary
    from compendium.workbank import landscape

    _, build_at = rob
    k = key("Session 4", "robustness.zone_boundaries=gt")
    ref, run = build_at(), build_at(zone_boundaries="gt")
    assert summary.summary(run) == summary.summary(ref)  # nothing the chapter says moves
    rows = ["cutoff", "boundary"]
    pd.testing.assert_frame_equal(
        run.zones.sweep.sort_values(rows).reset_index(drop=True),
        ref.zones.sweep.sort_values(rows).reset_index(drop=True),
    )
    pd.testing.assert_frame_equal(run.findings, ref.findings)
    says(k, "nothing in the rebuilt chapter moves")
    sweep = ref.zones.sweep.set_index(rows)
    move = sweep.xs("gt", level="boundary")[list(ZONES)] - sweep.xs("ge", level="boundary")[list(ZONES)]
    assert (move["green"] < 0).all() and (move["low"] > 0).all()
    says(k, "always moves tasks out of Green Light and into Low Priority")
    land = ref.zones.land
    ge = landscape.assign_zones(land["capability"], land["desire"], 3.0)
    gt = landscape.assign_zones(land["capability"], land["desire"], float(np.nextafter(3.0, np.inf)))
    m = move.loc[3.0]
    check(
        k,
        "at 3.0 Green Light loses {} tasks and Red Light {}, while R&D Opportunity gains {} and Low Priority {} "
        "({} tasks change zone)",
        -m["green"],
        -m["red"],
        m["rnd"],
        m["low"],
        int((ge != gt).sum()),
    )
    others = move.drop(index=3.0)
    assert all((others[z] > 0).any() and (others[z] < 0).any() for z in ("red", "rnd"))
    says(k, "at the other cut-offs Red Light and R&D Opportunity can gain or lose")


def test_s4_bt_tie_weights(rob):
    from compendium.robustness import build, sweeps

    inputs, _ = rob
    k = key("Session 4", "robustness.bt_tie_weights='0,0.5,1'")
    grids = build.Grids.from_params(study_params("robustness", bt_tie_weights="0,0.5,1"))
    bt = sweeps.bt_sweep(inputs.counts, grids.tie_weights, davidson=True)
    check(k, "Recipe C is first under all {} conventions of this grid", len(bt))
    assert (bt["top_model"] == "recipe_c").all() and bt["same_ranking_as_published"].all()
    assert (bt["ranking"] == "Recipe C > Recipe D > Recipe B > Recipe A > Untrained").all()
    says(k, "the whole ranking stays C > D > B > A > untrained")
    w = bt.set_index("tie_weight")
    check(
        k,
        "Recipe C's strength falls from {} with ties dropped to {} with a full win each",
        w.loc[0.0, "recipe_c"],
        w.loc[1.0, "recipe_c"],
    )
    check(
        k, "its ratio to Recipe D from {} to {}", np.exp(w.loc[0.0, "log_c_over_d"]), np.exp(w.loc[1.0, "log_c_over_d"])
    )


def test_s4_pwb_random_concentration(rob):
    from compendium.robustness import summary

    _, build_at = rob
    k = key("Session 4", "robustness.pwb_random_concentration=8")
    ref, run = build_at(), build_at(pwb_random_concentration=8.0)
    s, s_ref = summary.summary(run), summary.summary(ref)
    sweep = run.pwb.sweep
    named, rnd = sweep[sweep["family"] != "random"], sweep[sweep["family"] == "random"]
    assert named["all_gain"].all()
    check(k, "and in {} of the {} random weightings of this seed", int(rnd["all_gain"].sum()), len(rnd))
    check(k, "leaves a model worse off with the prompt (by {} points)", -rnd["min_delta"].min())
    holds = {
        r: x.findings.set_index("key").loc["pwb_all_gain_random", "holds_all"] for r, x in (("8", run), ("40", ref))
    }
    assert holds == {"8": False, "40": True}
    says(k, "so the random-weights finding no longer holds at every setting")
    check(
        k,
        "a typical weight now strays by about {} % of its value instead of {} %",
        About(100 * s["rob_pwb_rel_sd"], 1),
        About(100 * s_ref["rob_pwb_rel_sd"], 1),
    )
    check(
        k,
        "it keeps it in about {} % of the draws instead of {} %",
        About(100 * s["rob_pwb_rand_top"], 3),
        About(100 * s_ref["rob_pwb_rand_top"], 3),
    )


@pytest.mark.skipif(bool(os.environ.get("COMPENDIUM_NO_REPRO")), reason="COMPENDIUM_NO_REPRO: no dvc repro in tests")
def test_s4_dvc_repro_twice_runs_nothing(evaluation):
    """Run twice, the second ``dvc repro`` runs nothing: the first is the ``evaluation`` fixture's ``dvc repro claims``
    (every stage up to the claims check; the book's build takes minutes and is not part of ``make test``)."""
    k = key("Session 4", "Run `dvc repro` twice")
    dvc = str(Path(sys.executable).with_name("dvc"))
    proc = subprocess.run([dvc, "repro", "claims"], cwd=paths.ROOT, capture_output=True, text=True, check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    says(k, 'so it prints "Data and pipelines are up to date." and runs nothing')
    assert "Data and pipelines are up to date." in out and "Running stage" not in out, out[-3000:]


def test_s4_one_chapter_reruns():
    """Which stages a change to a chapter's notebook re-runs, from DVC's own graph of ``dvc.yaml``."""
    import networkx as nx
    from dvc.repo import Repo

    k = key("Session 4", "Run `dvc repro` twice")
    repo = Repo(str(paths.ROOT))
    try:
        graph = repo.index.graph  # an edge runs from a stage to a stage it depends on

        def reruns(path: str) -> set[str]:
            direct = [s for s in graph.nodes if any(d.def_path == path for d in s.deps)]
            return {s.addressing for s in set(direct).union(*(nx.ancestors(graph, s) for s in direct))}

        says(
            k,
            "e.g. its notebook `notebooks/35_humane_scale.md`: DVC re-runs the `humane` stage and then the book build",
        )
        assert reruns("notebooks/35_humane_scale.md") == {"humane", "book"}
        says(
            k,
            "editing `notebooks/10_pwb.md` instead also re-runs the claims check, which reads the PWB chapter's values",
        )
        assert reruns("notebooks/10_pwb.md") == {"pwb", "claims", "book"}
    finally:
        repo.close()

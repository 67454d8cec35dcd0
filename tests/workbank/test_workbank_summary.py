"""The WORKBank chapter's prose numbers (compendium.workbank.summary), the display copies of its tables
(compendium.workbank.views) and its Spearman statistics (pingouin)."""

import math
import re
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from compendium.pipeline import paths
from compendium.pipeline.params import study_params
from compendium.stats.mcdigits import mc_step
from compendium.workbank import desire, summary as S, views

# ------------------------------------------------------------------------------ Spearman via pingouin


def test_spearman_ci_matches_scipy_and_a_hand_fisher_z_interval():
    rng = np.random.default_rng(7)
    x = rng.normal(size=200)
    y = 0.3 * x + rng.normal(size=200)
    r = desire.spearman_ci(x, y)
    ref = stats.spearmanr(x, y)
    assert r["n"] == 200
    assert r["rho"] == pytest.approx(ref.statistic, abs=1e-15)
    assert r["p"] == pytest.approx(ref.pvalue, rel=1e-12)
    # Fisher z by hand: tanh(atanh(rho) -+ z_0.975 / sqrt(n - 3))
    z, half = math.atanh(ref.statistic), stats.norm.ppf(0.975) / math.sqrt(200 - 3)
    assert r["ci_low"] == pytest.approx(math.tanh(z - half), abs=1e-12)
    assert r["ci_high"] == pytest.approx(math.tanh(z + half), abs=1e-12)
    # unrounded: pingouin.corr itself prints the interval to 2 decimals only
    import pingouin

    lo2, hi2 = pingouin.corr(x, y, method="spearman")["CI95"].iloc[0]
    assert (round(r["ci_low"], 2), round(r["ci_high"], 2)) == (lo2, hi2)
    assert r["ci_low"] != round(r["ci_low"], 2)
    assert desire.spearman(x, y) == (r["rho"], r["p"])


def test_spearman_ci_hand_case_ties_and_missing_pairs():
    x = [1, 2, 3, 4, 5, np.nan]
    y = [2, 1, 4, 3, 5, 9]
    r = desire.spearman_ci(x, y)  # the pair with a missing x is dropped
    assert r["n"] == 5
    # ranks 1..5 against 2,1,4,3,5: d^2 = 1+1+1+1+0 = 4, rho = 1 - 6*4/(5*24) = 0.8
    assert r["rho"] == pytest.approx(0.8)
    perfect = desire.spearman_ci([1, 2, 3, 4], [10, 20, 30, 40])
    assert perfect["rho"] == 1.0 and perfect["ci_low"] == perfect["ci_high"] == 1.0


def test_spearman_ci_rejects_bad_input():
    with pytest.raises(ValueError, match="differ in length"):
        desire.spearman_ci([1, 2, 3, 4], [1, 2, 3])
    with pytest.raises(ValueError, match="3 complete pairs"):
        desire.spearman_ci([1, 2, 3, np.nan], [1, 2, 3, 4])


# ------------------------------------------------------------------------------ summary


class Values(dict):
    """Any section value the summary asks for: a number derived from the key, lists where a range is stored."""

    def __missing__(self, key):
        if key.endswith("_levels"):
            return [11, 12, 13, 14, 15]
        if key.endswith(("_ci", "_ci_cluster")) or re.search(r"null_\w+\.share_(gt|ge|mid)$", key):
            return [1.5, 2.5]
        if key.endswith("_rule"):
            return "highest"
        return float(len(key)) + 0.25


def _result(values=None):
    """A stand-in for WorkbankResult: what summary() reads (values, tables, facts, params, register); the
    register's mapping of it is :func:`register_mapping`'s."""
    tables = {
        "sample_vs_bls_sectors": pd.DataFrame({"sector": list("pqrstu")}),
        "has_tie_rules": pd.DataFrame(
            {
                "worker_rule": ["lowest", "lowest", "highest", "mean"],
                "expert_rule": ["lowest", "highest", "highest", "mean"],
                "workers_more": [40.0, 20.0, 30.0, 10.0],
                "experts_more": [10.0, 50.0, 35.0, 5.0],
            }
        ),
        "cutoff_sweep": pd.DataFrame(
            {"cutoff": [2.5, 3.0, 3.5], "green": [500, 364, 100], "share_desire_gt": [70.0, 46.1, 20.0]}
        ),
        "sample_vs_bls_demographics": pd.DataFrame(
            {
                "variable": ["race", "race", "age_band", "hispanic"],
                "category": ["white", "black", "16 to 19 years", "hispanic"],
                "bls_pct": [76.0, 13.0, 3.5, 19.0],
                "sample_pct": [70.0, 16.0, 6.0, 8.0],
            }
        ),
        "demographic_groups": pd.DataFrame(
            {
                "variable": ["LLM Familiarity", "LLM Familiarity", "Political Affiliation"],
                "group": [S.LLM_REGULAR, S.LLM_HEARD, "Green Party"],
                "mean_desire": [3.4, 2.9, 3.0],
                "n_workers": [900, 100, 2],
            }
        ),
    }
    facts = {
        "reason_flags_agree": 75.0,
        "n_at_paper_cutoff": 2,
        "experts_per_task_min": 1,
        "experts_per_task_max": 2,
        "experts_per_task_median": 2.0,
        "workers_per_task_min": 1,
        "workers_per_task_max": 2,
        "expert_max_tasks": 2,
        "occ_worker_levels": [21, 22, 23, 24, 25],
        "n_tasks_on_cutoff": 3,
    }
    fit = {"llf": -7581.4171, "sigma_u2": 0.066, "singular_warning": False, "converged": True}
    return SimpleNamespace(
        values=Values() if values is None else values,
        tables=tables,
        facts=facts,
        params=study_params("workbank"),
        register=PUBLISHED,
        reliability=SimpleNamespace(extra={"summary": fit}),
    )


PUBLISHED = {
    "claims": [{"id": "wb.has.workers_more", "published": 47.5}, {"id": "wb.fig5c.low.per_task", "published": 118.08}],
    "tables": [],
}
#: the register's mapping of the stand-in result, and its summary (the register paragraph's numbers)
REG_VALUES = {"wb.counts.expert_sd_max": 1.0, "wb.counts.expert_sd_max.variant.sample_sd": 1.41, "x": 1}
REG_SUMMARY = pd.DataFrame({"table": ["t1", "t2"], "cells": [10, 5], "null": [0, 2]})


@pytest.fixture(autouse=True)
def register_mapping(monkeypatch):
    """The register's mapping of a stand-in result (the real one maps the sections a stand-in lacks): the
    summary reads it through :func:`compendium.workbank.register.register_values` and ``register_summary``."""
    seen = []

    def mapped(r):
        seen.append(r)
        return dict(REG_VALUES), {}

    monkeypatch.setattr(S, "register_values", mapped)
    monkeypatch.setattr(S, "register_summary", lambda values, register: REG_SUMMARY if values == REG_VALUES else None)
    return seen


def test_summary_derives_the_prose_phrases_by_hand(register_mapping):
    r = _result()
    v = r.values
    # the ICC paragraph: the REML variances, 0.094 -> 0.066 (task) and 1.440 -> 1.254 (residual)
    v.update(
        {
            "wb.mixed.sigma_u2": 0.066,
            "wb.mixed.sigma_u2_unconditional": 0.094,
            "wb.mixed.sigma_e2": 1.254,
            "wb.mixed.sigma_e2_unconditional": 1.440,
        }
    )
    g = S.summary(r)
    assert g["wb_rep_err_agree"] == 75.0 and g["wb_n_at_three"] == 2  # facts of the result, phrased as they are
    # the covariates remove 30 % of the task variance and 13 % of the residual (hand: 1 - 0.066/0.094, 1 - 1.254/1.44)
    assert g["wb_mixed_task_var_removed"] == pytest.approx(29.787, abs=1e-3)
    assert g["wb_mixed_resid_var_removed"] == pytest.approx(12.917, abs=1e-3)
    assert g["wb_strict_incl_gap"] == v["wb.desire.share_ge3"] - v["wb.desire.share_gt3"]
    assert (g["wb_ept_min"], g["wb_ept_max"], g["wb_ept_median"]) == (1, 2, 2.0)
    assert (g["wb_wpt_min"], g["wb_wpt_max"]) == (1, 2)
    assert g["wb_expert_max_tasks"] == 2
    # symmetric rules: lowest/lowest (40 > 10), highest/highest (30 < 35), mean/mean (10 > 5)
    assert (g["wb_n_sym"], g["wb_n_sym_more"]) == (3, 2)
    assert g["wb_sectors_missing"] == 6 - v["wb.external.sectors_in_sample"]
    assert (g["wb_green_at_min"], g["wb_green_at_max"], g["wb_gt_at_max"]) == (500, 100, 20.0)
    assert g["wb_bls_black"] == 13.0 and g["wb_sample_hisp"] == 8.0 and g["wb_green_party_n"] == 2
    assert g["wb_stable_pct"] == pytest.approx(95.0) and g["wb_mixed_method"] == "BFGS"
    assert (
        g["wb_dominant_md"].data
        == "the mode of its ratings, with ties going to the lowest level (tie rule here: `lowest`)"
    )
    assert g["wb_more_same_min_rule"].data == "`highest`"
    assert g["wb_n_on_cut"] == 3 and g["wb_as_zones"] == "as the zones do"
    assert g["wb_mixed_fit"] == "reaches a REML log-likelihood of -7581.417"
    # the sweep's largest Green Light drop (500 -> 364 -> 100) is just above the run's cut-off, 3.0
    assert g["wb_sweep_look"].startswith("Look at the jumps just above it:")
    assert g["wb_pub_workers_more"] == 47.5 and g["wb_cutoff"] == 3.0
    # workers' occupation levels under the run's tie rule (a fact), the experts' a published value
    assert (g["wb_occ_w_h1"], g["wb_occ_e_h5"]) == (21, 15)
    assert (g["wb_zone_green_clo"], g["wb_zone_green_chi"]) == (1.5, 2.5)
    # the register paragraph: the register's mapping of this very result, and its summary
    assert (g["wb_reg_cells"], g["wb_reg_tables"], g["wb_reg_null"], g["wb_reg_keys"]) == (15, 2, 2, 3)
    assert (g["wb_sd_pop"], g["wb_sd_sample"]) == (1.0, 1.41) and register_mapping and register_mapping[-1] is r
    assert g["wb_null_spread"] == pytest.approx(100 * v["wb.raking.null_spread"])
    assert (g["wb_null_permuted_share_ge_lo"], g["wb_null_permuted_share_ge_hi"]) == (1.5, 2.5)

    # summary is the union of PHRASES, each a function of the result alone
    def plain(d):  # the {glue:md} values as their Markdown text
        return {k: getattr(x, "data", x) for k, x in d.items()}

    assert plain(g) == plain({k: x for f in S.PHRASES for k, x in f(r).items()})
    assert set(S.register_phrases(r)) == {
        "wb_reg_cells",
        "wb_reg_tables",
        "wb_reg_null",
        "wb_reg_keys",
        "wb_sd_pop",
        "wb_sd_sample",
    }


def test_each_phrase_is_a_function_of_the_result_alone():
    """The section phrase functions read only the result: the same result gives the same phrases, and a value
    changed in the result moves exactly the phrases quoting it."""
    r = _result()
    g = S.summary(r)
    assert S.summary(_result()).keys() == g.keys()
    r.values["wb.zones.green"] = 1.0
    moved = {k for k, x in S.summary(r).items() if repr(x) != repr(g[k])}
    assert moved == {"wb_zone_green", "wb_green_largest_sentence"}  # Green is no longer the largest zone
    keys = [k for f in S.PHRASES for k in f(r)]
    assert len(keys) == len(set(keys)), "two section functions phrase the same key"


def test_every_number_the_chapter_quotes_comes_from_the_summary():
    g = S.summary(_result())
    text = (paths.ROOT / "notebooks" / "20_workbank.md").read_text()
    quoted = set(re.findall(r"\{glue:(?:text|md)\}`([A-Za-z0-9_]+)", text))
    assert quoted and quoted <= set(g) | set(S.VERDICT_NAMES), sorted(quoted - set(g) - set(S.VERDICT_NAMES))
    figures = set(re.findall(r"\{glue:figure\} ([A-Za-z0-9_]+)", text))
    assert all(k.startswith("wb_fig_") for k in figures)


def test_published_value_reads_the_register():
    from compendium.workbank.build import load_register

    assert S.published_value("wb.has.workers_more", load_register()) == pytest.approx(47.5)
    with pytest.raises(KeyError, match="no claim 'wb.nope'"):
        S.published_value("wb.nope", {"claims": []})


def test_display_tables_choose_and_name_columns():
    v = {f"wb.alpha.{k}": 0.5 for k in S.ALPHAS} | {f"wb.alpha.{k}.variant.dedup_rows": 0.4 for k in S.ALPHAS}
    alpha = views.display_table("wb_tbl_alpha", {}, v)
    assert list(alpha.columns) == ["ratings", *views.FORMATS["wb_tbl_alpha"]]
    assert alpha["ratings"].tolist()[0] == "expert capability"
    dens = {
        "yc_density": pd.DataFrame(
            {
                "join": ["task", "task_occupation"],
                "zone": ["green", "green"],
                "n_tasks": [3, 3],
                "n_mapped": [1, 1],
                "total": [9, 12],
                "density": [3.0, 4.0],
                "share_of_total": [50.0, 60.0],
            }
        )
    }
    dens["arxiv_density"] = dens["yc_density"].assign(total=[1, 2])
    d = views.display_table("wb_tbl_density", dens, {})
    assert d["source"].tolist() == ["YC companies", "arXiv papers"] and d["total"].tolist() == [9, 1]
    corr = pd.DataFrame(
        {
            "pair": ["x"],
            "rho": [0.1],
            "p": [0.2],
            "n_tasks": [5],
            "paper_style_bound": ["p<2e-1"],
            "ci_low": [0.0],
            "ci_high": [0.2],
        }
    )
    assert list(views.display_table("wb_tbl_corr", {"correlations": corr}, {}).columns)[-2:] == [
        "p",
        "paper_style_bound",
    ]
    for name in views.FORMATS:  # every formatted table is one display_table builds
        try:
            views.display_table(name, {}, v)
        except KeyError as e:
            assert "no display table" not in str(e), name
    with pytest.raises(KeyError, match="no display table 'wb_tbl_nope'"):
        views.display_table("wb_tbl_nope", {}, {})


def test_the_headline_verdict_follows_the_claims_statuses(tmp_path):
    from compendium import claims

    pub = claims.load_published()
    values = dict(zip(pub["claim_id"], pub["published"]))
    at_paper = {k: values[k] for k in S.HEADLINE_CLAIMS}
    # at the paper's settings: a results folder with no record of a changed parameter (the workspace's own may be
    # an exercise's, off the paper: make test must pass after one too)
    v = S.verdicts(at_paper, results_dir=tmp_path)
    assert set(v) == set(S.VERDICT_NAMES)
    assert v["wb_headline_verdict"] == "The headline numbers reproduce."
    moved = at_paper | {"wb.zones.green": 125.0, "wb.zones.red": 317.0}
    assert S.verdicts(moved, results_dir=tmp_path)["wb_headline_verdict"] == "4 of the 6 headline numbers reproduce."


def test_intervals_print_the_digits_the_error_supports():
    """The raking intervals' ends to the power of ten of the SE's leading digit (compendium.stats.mcdigits, rule
    "leading"): the digits the chapter printed before the rule module, the plain and the signed form alike."""
    step = {se: mc_step(se, rule="leading") for se in (0.19, 0.1, 0.099, 1.3, 12.0, 0.04)}
    assert [step[se] for se in step] == pytest.approx([0.1, 0.1, 0.01, 1.0, 10.0, 0.01])
    assert S._interval([47.14, 54.12], step[0.19]) == "47.1-54.1"
    assert S._interval([47.14, 54.12], step[1.3]) == "47-54"
    assert S._interval([-2.49, 1.68], step[0.19], signed=True) == "-2.5 to +1.7"
    assert S._interval([-0.04, 0.0], step[0.19], signed=True) == "-0.0 to +0.0"  # as the "+" format flag writes it

    def before(pair, se, signed=False):  # the chapter's own helper before compendium.stats.mcdigits
        d = max(0, -math.floor(math.log10(se)))
        lo, hi = pair
        return f"{lo:+.{d}f} to {hi:+.{d}f}" if signed else f"{lo:.{d}f}-{hi:.{d}f}"

    rng = np.random.default_rng(3)
    for _ in range(2000):
        se = float(10 ** rng.uniform(-3, 1.5))
        pair = sorted(rng.normal(0, 30, 2).round(int(rng.integers(0, 5))))
        for signed in (False, True):
            assert S._interval(pair, mc_step(se, rule="leading"), signed) == before(pair, se, signed), (pair, se)
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="positive finite"):
            mc_step(bad, rule="leading")


def test_raking_sampling_phrases_by_hand():
    v = Values(
        {
            "wb.raking.boot.mc_se": 0.19,
            "wb.raking.boot.share_mid_ci": [47.14, 54.12],
            "wb.raking.boot.share_gt_ci": [45.84, 52.85],
            "wb.raking.boot.unweighted_mid_ci": [47.5, 54.22],
            "wb.raking.boot.diff_mid_ci": [-2.49, 1.68],
            "wb.raking.boot.n_draws": 1000,
        }
    )
    g = S.raking_sampling_phrases(_result(v))
    assert (g["wb_rboot_mid_ci"], g["wb_rboot_gt_ci"], g["wb_rboot_unw_mid_ci"]) == (
        "47.1-54.1",
        "45.8-52.9",
        "47.5-54.2",
    )
    assert g["wb_rboot_diff_ci"] == "-2.5 to +1.7" and g["wb_rboot_diff_zero"] == "contains 0"
    assert g["wb_rboot_mc_se"] == "0.2" and g["wb_rboot_n"] == 1000
    v["wb.raking.boot.diff_mid_ci"] = [0.3, 1.68]
    assert S.raking_sampling_phrases(_result(v))["wb_rboot_diff_zero"] == "does not contain 0"
    v["wb.raking.boot.mc_se"] = 1.4  # a larger error: whole points
    assert S.raking_sampling_phrases(_result(v))["wb_rboot_mid_ci"] == "47-54"


def test_the_variance_by_source_says_per_zone_which_source_moves_the_totals_more():
    """The sentence follows each zone's standard deviations (an independent re-run found the workers move Green
    and Red more than the experts, R&D about as much and Low Priority less; "more" for every zone was wrong)."""
    from compendium.workbank.summary import source_comparison

    sds = {
        "experts": {"green": 6.05, "red": 6.99, "rnd": 6.05, "low": 6.99},
        "workers": {"green": 12.15, "red": 12.15, "rnd": 6.23, "low": 6.23},
        "tasks": {"green": 14.39, "red": 13.51, "rnd": 9.67, "low": 9.63},
    }
    assert source_comparison(sds) == (
        "a new draw of as many tasks would move every zone total more than a different expert panel; "
        "a new draw of workers would move Green and Red more than a different expert panel, "
        "R&D about as much and Low Priority less"
    )
    same = {
        "experts": sds["experts"],
        "workers": sds["experts"],
        "tasks": {z: 0.5 * x for z, x in sds["experts"].items()},
    }
    assert source_comparison(same) == (
        "a new draw of as many tasks would move every zone total less than a different expert panel; "
        "a new draw of workers would move every zone total about as much as a different expert panel"
    )


# ------------------------------------------------------------------------------ sentences the parameters can change


def test_the_tie_rule_sentences_name_the_runs_rule_and_the_papers_beside_it():
    assert S.dominant_level_phrase("highest") == (
        "the mode of its ratings, with ties going to the highest level (tie rule here: `highest`; the paper's is `lowest`)"
    )
    mean = S.dominant_level_phrase("mean")
    assert mean.startswith("the mean of its ratings rounded to the nearest level, halves up (tie rule here: `mean`;")
    assert mean.endswith("the paper's, `lowest`, takes the mode of its ratings, with ties going to the lowest level)")
    assert "broken by a seeded random draw" in S.dominant_level_phrase("random")
    assert S.h5_sets_phrase("lowest", 24, 12) == (
        "Its code drew the experts' profile on the tasks the *workers* put at H5 (24 tasks); the experts' own H5 set "
        "is different (12 tasks)."
    )
    assert S.h5_sets_phrase("mean", 2, 31).endswith(
        "With this run's tie rule, `mean` (the paper's is `lowest`), the workers put 2 tasks at H5 and the experts 31."
    )


def test_the_cutoff_sentences_keep_the_papers_cutoff_apart_from_the_runs():
    assert S.as_the_zones(3.0, "as the zones do") == "as the zones do"
    assert S.as_the_zones(3.5, "as the zones do") == (
        "as the zones do at the paper's cut-off (this run's zones draw the line at 3.5)"
    )
    assert S.low_density_sentence(3.0, 119.0755, 119.0755, 118.08) == (
        "The Low-Priority paper density is 119.08 papers per task, printed as 118.08 in the paper."
    )
    assert S.low_density_sentence(3.5, 124.489, 119.0755, 118.08) == (
        "At this run's cut-off of 3.5 the Low-Priority paper density is 124.49 papers per task; at the paper's 3.0 it "
        "is 119.08, printed as 118.08 in the paper."
    )
    zones = {"green": 125, "red": 317, "rnd": 79, "low": 323}
    assert S.green_largest_sentence(zones, 0.0) == (
        "At this run's cut-off Low Priority, not Green, is the largest zone; a different expert panel makes Green the "
        "largest in 0 % of draws."
    )
    assert S.green_largest_sentence(zones | {"green": 400}, 99.6) == (
        "A different expert panel keeps Green the largest zone in 100 % of draws."
    )


def test_the_sweep_caption_says_where_the_runs_cutoff_sits_against_the_largest_jump():
    sweep = pd.DataFrame({"cutoff": [2.5, 2.75, 3.0, 3.25, 3.5], "green": [604, 560, 480, 259, 125]})
    assert S.sweep_advice(sweep, 3.0, 207).startswith("Look at the jumps just above it: ")  # 3.0 -> 3.25: 221
    assert S.sweep_advice(sweep, 3.0, 0).startswith("Look at the jumps, the largest just above 3:")  # none on it
    assert S.sweep_advice(sweep, 2.5, 78).startswith("Look at the jumps, the largest just above 3:")
    assert S.sweep_advice(sweep, 3.5, 99).startswith(
        "The sweep ends at it, so no jump above it is drawn; look at the jumps, the largest just above 3:"
    )
    assert S.sweep_advice(sweep, 4.2, 5).startswith("It lies outside the sweep's range; look at the jumps")


def test_the_optimiser_sentences_say_what_this_runs_fit_gave():
    fit = {"llf": -7581.4171, "sigma_u2": 0.0661035, "singular_warning": True, "converged": True}
    assert S.mixed_fit_phrase(fit) == (
        "reaches a REML log-likelihood of -7581.417 (statsmodels warns of a singular random-effects covariance; "
        "the task variance σu² = 0.0661 is not zero)"
    )
    assert S.mixed_fit_phrase(fit | {"sigma_u2": 0.0, "converged": False}).endswith(
        "the task variance is 0), but statsmodels reports that the fit did not converge"
    )
    fits = {"wb.mixed.loglik": "reproduced", "wb.mixed.group_var_se": "reproduced"}
    cells = {f"wb.table1.r{i}.coef": "reproduced" for i in range(6)}
    assert S.mixed_verdict(fits | cells) == (
        "With it, the log-likelihood and the task variance's standard error that the authors' notebook prints "
        "reproduce, and so do all 6 cells of Table 1."
    )
    cells |= {"wb.table1.r0.coef": "differs", "wb.table1.r1.coef": "differs", "wb.table1.r2.coef": "off_paper"}
    assert S.mixed_verdict(fits | cells).endswith(
        "and so do 3 of Table 1's 6 cells (of the other 3, 2 differ and 1 is an off-paper run)."
    )
    one = (
        fits | {"wb.mixed.group_var_se": "off_paper"} | {"wb.table1.r0.coef": "differs", "wb.table1.r1.z": "reproduced"}
    )
    assert S.mixed_verdict(one) == (
        "With it, of the log-likelihood and the task variance's standard error that the authors' notebook prints, only "
        "the log-likelihood reproduces; 1 of Table 1's 2 cells reproduce (the other one differs)."
    )

"""The audit wing as a whole: its build on the bundled data, the values' provenance, and that every judging
sentence of the chapter follows the numbers (changed numbers give changed sentences, never a false one)."""

from __future__ import annotations

import dataclasses
from types import MappingProxyType

import pandas as pd
import pytest

from compendium.audit import build as b, provenance, summary, values
from compendium.pipeline.params import study_params


@pytest.fixture(scope="module")
def result():
    # small simulation sizes: the sentences and keys, not the digits, are under test here
    p = study_params("audit", n_boot=200, n_sims=300, humaine_studies=20)
    return b.build(p, b.Inputs.load(p))


def test_every_value_has_a_provenance_entry_and_each_names_a_function_and_a_test(result):
    v = values.stage_values(result)
    missing = [k for k in v if not any(k.startswith(p) for p in provenance.PROVENANCE)]
    assert missing == []
    for entry in provenance.PROVENANCE.values():
        func, test = entry.split(" (", 1)
        mod, name = func.rsplit(".", 1)
        assert hasattr(__import__(mod, fromlist=[name]), name), func
        assert test.rstrip(")").split("::")[0].startswith("tests/audit/test_")


def test_the_bundled_build_has_the_sample_the_boards_and_no_row_level_parts(result):
    v = values.stage_values(result)
    assert v["audit.judges.n_items"] == 500 and v["audit.judges.n_unplaced"] == 8  # 2-score items, by the rule "first"
    assert v["audit.ranks.pref.n_models"] == 5 and v["audit.ranks.pwb.baseline.n_models"] == 7
    assert v["audit.ranks.transitivity.df"] == 6
    assert v["audit.votes.rowlevel"] == 0 and result.judges.full is None
    s = summary.summary(result)
    assert "cannot be measured" in s["audit_votes_sentence"]
    assert "is not present in this build" in s["audit_full_sentence"]


def test_the_self_preference_sentence_names_an_interval_that_excludes_zero(result):
    sp = result.judges.self_preference.copy()
    assert "all 6 intervals include zero" in summary.self_preference_phrases(result)["audit_self_sentence"] or (
        ((sp["lo"] > 0) | (sp["hi"] < 0)).any()
    )
    sp.loc[2, ["estimate", "lo", "hi"]] = [0.5, 0.3, 0.7]  # a planted self-preference in one row
    r = dataclasses.replace(result, judges=dataclasses.replace(result.judges, self_preference=sp))
    s = summary.self_preference_phrases(r)["audit_self_sentence"]
    judge = summary.judge_label(sp.loc[2, "judge"])
    assert s.startswith("1 of the 6 intervals excludes zero") and judge in s and "+0.50" in s
    assert "about 0.3 of 6 would by chance" in s
    assert "No judge" not in s


def test_a_board_sentence_lists_its_groups_in_order_and_counts_the_separated_pairs():
    t = pd.DataFrame({"model": ["a", "b", "c", "d"], "group": [1, 1, 2, 3], "rank_hi": [2, 2, 3, 4]})
    # separated pairs: a and b are each above c and d (2 + 2), c above d (1)
    assert summary.separated_pairs(t) == 5
    assert summary.board_sentence(t, {"a": "A"}) == "3 tie groups (5 of its 6 pairs separated): A, b | c | d"
    one = pd.DataFrame({"model": ["a", "b"], "group": [1, 1], "rank_hi": [2, 2]})
    assert (
        summary.board_sentence(one)
        == "one tie group: no two neighbouring places are separated, and none of its 1 pairs is"
    )
    # one group whose ends are separated (the preference board): the sentence must not say none is
    ends = pd.DataFrame({"model": ["a", "b", "c"], "group": [1, 1, 1], "rank_hi": [2, 3, 3]})
    assert summary.board_sentence(ends).endswith("though 1 of its 3 pairs is")


def test_the_separated_pairs_of_the_preference_board_match_a_pair_by_pair_count(result):
    # brute force: every pair's |difference| / its SE against the board's simultaneous critical value
    from itertools import combinations

    import numpy as np

    from compendium.audit import ranks

    names, est, cov = ranks.bt_estimates(b.Inputs.load(result.params).counts, b.TIE_WEIGHT)
    c = float(result.ranks.pref_groups["critical_value"].iloc[0])
    n = sum(
        abs(est[i] - est[j]) / np.sqrt(cov[i, i] + cov[j, j] - 2 * cov[i, j]) > c
        for i, j in combinations(range(len(names)), 2)
    )
    assert summary.separated_pairs(result.ranks.pref_groups) == n


def test_the_transitivity_verdict_follows_the_bootstrap_p_value(result):
    assert summary.transitivity_phrases(result)["audit_transitivity_verdict"] == (
        "consistent with one Bradley-Terry order"
        if result.ranks.transitivity["p_boot"] > 1 - result.params.level
        else "not consistent with one Bradley-Terry order"
    )
    tr = dict(result.ranks.transitivity) | {"p_boot": 0.001, "p_boot_mc_se": 0.0005}
    r = dataclasses.replace(result, ranks=dataclasses.replace(result.ranks, transitivity=MappingProxyType(tr)))
    assert (
        summary.transitivity_phrases(r)["audit_transitivity_verdict"] == "not consistent with one Bradley-Terry order"
    )


def test_the_recusal_sentence_counts_the_models_the_table_moves(result):
    s = summary.panel_rule_phrases(result)["audit_recusal_sentence"]
    summ = result.judges.recusal["summary"].set_index("rule")
    n = int(summ.loc["recusal", "n_moved"])
    assert (f"moves {n} model" in s) if n else ("moves no model" in s)

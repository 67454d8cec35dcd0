"""compendium.pwb.validation: the human pilot and the fourth-judge sample (rule for duplicated
item_ids), on hand-made frames and on the released files (checked against scikit-learn and the
values printed in the paper's appendix C.1)."""

import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

import compendium.data as d
from compendium.pwb import paper_printed as P, validation as V


def test_panel_median_rule():
    assert V.panel_median([3, 2]) == 2
    assert V.panel_median([1, 2, 3]) == 2
    assert V.panel_median([0, 3, -1]) == 1
    with pytest.raises(ValueError, match="no valid judge score"):
        V.panel_median([-1, -1])


def _fj(records):
    cols = [
        "item_id",
        "dimension",
        "model",
        "condition",
        "prompt_id",
        "panel_individual_scores",
        "panel_median",
        "claude_score",
        "attempts",
    ]
    return pd.DataFrame([dict(zip(cols, r)) for r in records])


def test_fourth_judge_rules_on_a_hand_made_file():
    recs = [
        (1, "cognitive_forcing", "m", "baseline", "cf_01", [1, 1, 2], 1, 1, 1),
        (2, "cognitive_forcing", "m", "baseline", "cf_02", [0, 0, 0], 0, 2, 1),
        (2, "cognitive_forcing", "m", "baseline", "cf_02", [0, 0, 0], 0, 0, 1),  # second call of item 2
        (3, "complementarity", "m", "baseline", "co_01", [3, 2], 2, -1, 3),  # a failed call
        (3, "complementarity", "m", "baseline", "co_01", [3, 2], 2, 2, 1),
    ]
    s = _fj(recs)
    first, audit = V.fourth_judge_sample(s, errors=pd.DataFrame({"item_id": [3, 4], "claude_score": [-1, -1]}))
    assert first["claude_score"].tolist() == [1, 2, 2] and audit["n_sample"] == 3
    assert audit["duplicated_items"] == [2] and audit["duplicate_scores"] == {2: [2, 0]} and audit["n_invalid"] == 1
    assert audit["error_items_rescored"] == 1 and audit["n_error_items"] == 2
    last, _ = V.fourth_judge_sample(s, rule="last")
    assert last["claude_score"].tolist() == [1, 0, 2]
    drop, _ = V.fourth_judge_sample(s, rule="drop")
    assert drop["item_id"].tolist() == [1, 3]
    allr, _ = V.fourth_judge_sample(s, rule="all")
    assert len(allr) == 4
    with pytest.raises(ValueError, match="rule must be one of"):
        V.fourth_judge_sample(s, rule="mean")


def test_released_fourth_judge_sample_rule_gives_n_500():
    scores, errors = d.load_pwb_fourth_judge_scores(), d.load_pwb_fourth_judge_errors()
    sample, audit = V.fourth_judge_sample(scores, errors)
    assert audit["n_records"] == 504 and audit["n_items"] == 500 and audit["n_sample"] == 500
    assert audit["duplicated_items"] == [5, 7, 8, 9]
    assert set(audit["per_dimension_n"].values()) == {50}
    assert audit["panel_rule_ok"]
    assert audit["n_error_records"] == 111 and audit["error_items_rescored"] == 111
    agr = V.fourth_judge_agreement(sample)["overall"]
    ref = cohen_kappa_score(sample["claude_score"], sample["panel_median"], weights="quadratic", labels=[0, 1, 2, 3])
    assert agr["qwk"] == pytest.approx(ref, abs=1e-12)
    # appendix C.1 prints exact 66.8 %, adjacent 96.8 %, kappa 0.840 for N = 500
    assert round(agr["exact"], 1) == P.FOURTH_JUDGE_PRINTED["exact"]
    assert round(agr["adjacent"], 1) == P.FOURTH_JUDGE_PRINTED["adjacent"]
    assert round(agr["qwk"], 3) == P.FOURTH_JUDGE_PRINTED["qwk"]
    sens = V.dedupe_sensitivity(scores).set_index("rule")
    assert sens.loc["drop", "n"] == 496 and sens.loc["all", "n"] == 504


def test_released_pilot_agreement():
    res = V.pilot_agreement(d.load_pwb_pilot_scores(), d.load_pwb_pilot_ground_truth())
    items = res["items"]
    assert res["overall"]["n"] == 30
    ref = cohen_kappa_score(items["human_score"], items["llm_judge_median"], weights="quadratic", labels=[0, 1, 2, 3])
    assert res["overall"]["qwk"] == pytest.approx(ref, abs=1e-12)
    assert round(res["overall"]["exact"], 1) == P.PILOT_PRINTED["exact"]
    assert round(res["overall"]["adjacent"], 1) == P.PILOT_PRINTED["adjacent"]
    assert round(res["overall"]["qwk"], 3) == P.PILOT_PRINTED["qwk"]
    assert res["low_irr"]["n"] == P.PILOT_PRINTED["low_irr_n"]


def test_pilot_errors():
    gt = pd.DataFrame(
        {
            "item_id": [1, 2],
            "dimension": ["a", "a"],
            "llm_judge_median": [2, 1],
            "llm_individual_scores": [[2, 2, 3], [1, 1]],
        }
    )
    ok = V.pilot_agreement(pd.DataFrame({"item_id": [1, 2], "human_score": [2, 0]}), gt)
    assert ok["overall"]["exact"] == pytest.approx(50.0)
    with pytest.raises(ValueError, match="do not match"):
        V.pilot_agreement(pd.DataFrame({"item_id": [1, 3], "human_score": [2, 0]}), gt)
    with pytest.raises(ValueError, match="breaks the panel rule"):
        V.pilot_agreement(pd.DataFrame({"item_id": [1, 2], "human_score": [2, 0]}), gt.assign(llm_judge_median=[3, 1]))
    with pytest.raises(ValueError, match="human_score"):
        V.pilot_agreement(pd.DataFrame({"item_id": [1, 2], "human_score": [2, 7]}), gt)


def test_sample_panel_irr_uses_complete_triples():
    s = _fj(
        [
            (1, "cognitive_forcing", "m", "baseline", "cf_01", [1, 1, 1], 1, 1, 1),
            (2, "cognitive_forcing", "m", "baseline", "cf_02", [0, 1, 3], 1, 1, 1),
            (3, "cognitive_forcing", "m", "baseline", "cf_03", [3, 2], 2, 2, 1),
        ]
    )
    irr = V.sample_panel_irr(s).set_index("dimension")
    assert irr.loc["cognitive_forcing", "n"] == 2 and irr.loc["cognitive_forcing", "n_excluded"] == 1
    assert irr.loc["cognitive_forcing", "exact"] == pytest.approx(50.0)
    assert irr.loc["cognitive_forcing", "spread"] == pytest.approx(1.5)

"""Every published claim's status, asserted. A change that moves a reproduced number out of its
tolerance, or a claim that loses its explanation, fails here."""
import json

import pytest

from compendium import claims, paths

# The status each claim must have. "reproduced" means within the published tolerance; the others need
# an explanation in published/notes.yaml (see compendium/claims.py).
EXPECTED = {
    **{cid: "reproduced" for cid in [
        "wb.counts.tasks", "wb.counts.occupations", "wb.counts.workers", "wb.desire.share_gt3",
        "wb.desire.share_ge4", "wb.desire.share_le2", "wb.reasons.n", "wb.reasons.free_time",
        "wb.reasons.repetitive", "wb.reasons.human_error", "wb.reasons.stress", "wb.sector.arts_share_gt3",
        "wb.rho.desire_jobsecurity", "wb.rho.desire_enjoyment", "wb.rho.capability_desire", "wb.zones.green",
        "wb.zones.red", "wb.zones.rnd", "wb.zones.low", "wb.zones.cm_green", "wb.zones.cm_rnd", "wb.has.matrix",
        "wb.has.diagonal", "wb.has.workers_more", "wb.has.occ_worker_levels", "wb.has.occ_expert_h1",
        "wb.has.mean_worker", "wb.has.mean_expert", "wb.skills.count",
        "hitl.n_ratings", "hitl.n_ties", "hitl.bt.recipe_c", "hitl.bt.recipe_d", "hitl.bt.recipe_b",
        "hitl.bt.recipe_a", "hitl.bt.untrained", "hitl.winrate.vs_base.recipe_a",
        "hitl.winrate.vs_base.recipe_b", "hitl.winrate.vs_base.recipe_c", "hitl.winrate.vs_base.recipe_d",
        "hitl.pairs.tracking", "hitl.pairs.flipping",
        *[f"pwb.pwi.{m}.{c}" for m in ("glm51", "gemma4", "deepseek", "gptoss", "nemotron", "devstral", "qwen35")
          for c in ("baseline", "prompted")],
        "pwb.delta.mean", "pwb.dim.complementarity.delta", "pwb.dim.cognitive_forcing.baseline",
        "pwb.dim.cognitive_forcing.prompted", "pwb.dim.anti_sycophancy.baseline", "pwb.dim.anti_sycophancy.prompted",
        "pwb.dim.contrastive_explanation.delta", "pwb.layer1.baseline_mean", "pwb.layer1.prompted_mean",
    ]},
    "hitl.n_participants": "needs_data",
    # run-level / prompt-level PWB data are on the Hugging Face hub only
    **{f"pwb.d_pooled.{m}": "needs_data"
       for m in ("glm51", "gemma4", "deepseek", "gptoss", "nemotron", "devstral", "qwen35")},
    "pwb.cf_co.r": "needs_data",
}


def test_every_published_claim_has_an_expected_status():
    published = set(claims.load_published()["claim_id"])
    assert published == set(EXPECTED), (
        f"claims without an expected status: {sorted(published - set(EXPECTED))}; "
        f"expected statuses for unknown claims: {sorted(set(EXPECTED) - published)}")


@pytest.mark.parametrize("claim_id", sorted(EXPECTED))
def test_claim_status(claims_table, claim_id):
    row = claims_table.loc[claim_id]
    assert row["status"] == EXPECTED[claim_id], (
        f"{claim_id}: published {row['published']}, reproduced {row['reproduced'] or '(none)'}, "
        f"tolerance {row['tolerance']}: status {row['status']} ({row['note']})")


def test_reproduced_values_are_within_tolerance_independently(claims_table):
    """Re-check the 'reproduced' rows straight from values.json, not through claims.check."""
    published = claims.load_published().set_index("claim_id")
    for cid, status in EXPECTED.items():
        if status != "reproduced":
            continue
        stage = claims.STUDY_STAGE[published.loc[cid, "study"]]
        values = json.loads((paths.RESULTS / stage / "values.json").read_text())
        pub, tol = published.loc[cid, "published"], published.loc[cid, "tolerance"]
        got = values[cid]
        if isinstance(pub, list):
            assert got == pub if tol == 0 else claims.within_tolerance(pub, got, tol), cid
        else:
            assert abs(got - pub) <= tol + 1e-9, f"{cid}: {got} vs {pub} (tol {tol})"


def test_needs_data_claims_have_no_value_and_name_the_data(claims_table):
    for cid, status in EXPECTED.items():
        if status == "needs_data":
            assert claims_table.loc[cid, "reproduced"] == "", cid
            assert "data" in claims_table.loc[cid, "note"], cid


def test_no_claim_is_unexplained(claims_table):
    bad = claims_table[claims_table["status"] == "unexplained"]
    assert bad.empty, bad[["published", "reproduced", "note"]].to_string()

"""The PWB v2.1 weights as the paper prints them, typed once for the unit tests (an oracle independent of
the released ``config.yaml``; ``test_pwb_aggregates.py`` checks the two agree)."""

V21 = {
    "cognitive_forcing": 0.15,
    "complementarity": 0.15,
    "contrastive_explanation": 0.10,
    "skill_preservation": 0.10,
    "metacognitive_calibration": 0.10,
    "anti_sycophancy": 0.10,
    "draft_annotation": 0.05,
    "ethical_surfacing": 0.05,
    "uncertainty_transparency": 0.0,
    "appropriate_reliance": 0.0,
}

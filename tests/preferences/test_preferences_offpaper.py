"""The teaching guide's key to Session 4's seed exercise (book/teaching.md): `dvc exp run -S preferences.seed=1`
changes no published claim's status; the chapter's resampled numbers move."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from offpaper import off_keys, status_problems  # noqa: E402

from compendium import claims  # noqa: E402
from compendium.pipeline.params import study_params  # noqa: E402
from compendium.pipeline.results import read_values  # noqa: E402
from compendium.preferences.build import Inputs, build  # noqa: E402
from compendium.preferences.register import register_values  # noqa: E402
from compendium.preferences.values import stage_values  # noqa: E402


def test_a_seed_moves_no_claims_status_only_resampled_numbers(evaluation):
    ref = read_values("preferences")  # the committed run (the claims fixture brought it up to date)
    p = study_params("preferences", seed=1)
    r = build(p, Inputs.load(p))
    values = {**stage_values(r), **register_values(r)[0]}
    keys = off_keys("preferences", {"seed": 1})
    assert status_problems("preferences", ref, values, keys) == []
    published = claims.load_published()
    pub = published[published["study"] == "hitl"]
    after = claims.check(
        pub, {"preferences": values}, claims.load_notes(), off_paper={"hitl": keys}, reference={"preferences": ref}
    )
    assert (after["status"] == "off_paper").sum() == 0
    assert claims.moved("pref.c_vs_d.p_c_stronger", values, ref)  # a share of bootstrap replicates moves with the seed

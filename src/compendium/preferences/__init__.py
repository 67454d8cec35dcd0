"""Human preferences: the autoresearch x Prolific study (Petrova & Marquez 2026) and the HUMANE method.

METHODS.md, section Human preferences. The study's names (its register ``published/hitl.yaml``, claim ids
``hitl.*``, chapter values ``pref.*``, stages ``preferences`` and ``preferences_mc``) are written once, in
:func:`compendium.pipeline.studies.study` ``("preferences")``. The modules of the study contract:

* :mod:`.build` -- the one computation: ``build(params, Inputs.load(params))`` runs every section once and
  returns a frozen :class:`~.build.PreferencesResult` (``params``: ``study_params("preferences")``).
* :mod:`.register` -- the result mapped to the claim ids of ``published/hitl.yaml``.
* :mod:`.values` -- the result mapped to the chapter's ``values.json`` entries and tables.
* :mod:`.summary` -- what the chapter says: every prose number and phrase (:func:`.summary.summary`), one
  function per section, and how many claims reproduce (:func:`.summary.verdicts`).
* :mod:`.views` -- the display copies of the chapter's tables; :mod:`.figures` and :mod:`.alttext` draw and
  describe; :mod:`.provenance` links each claim-id prefix to its function and test.

The analyses (re-exported here):

* :mod:`.reproduce` -- the study's report from the pair counts: pair table with Wilson intervals and the
  tracks / flips / noisy signal, pooled records, Bradley-Terry exactly as published (and its ``choix``
  cross-check), Spearman rho against ``val_pref_acc``, per-category results, comment themes, claims.
* :mod:`.uncertainty` -- bootstrap of the BT fit, rank probabilities, Davidson ties model, TrueSkill
  over random orders.
* :mod:`.simulation` -- active-sampling simulation (uniform, information gain, arena-like skew), and the
  judgements a uniform design needs (at the estimated C-D gap and at others).
* :mod:`.montecarlo` -- the cached stage ``preferences_mc``: those numbers with many simulated studies.
* :mod:`.rowlevel` -- the Hugging Face row-level annotations (Fleiss' kappa, position bias,
  participant activity, aggregation check), when ``data/hitl/annotations.parquet`` is present.
* :mod:`.rank` -- ``python -m compendium.preferences.rank FILE``: rank the models of any pairwise-annotation file.
"""

from .reproduce import (
    MODEL_LABELS,
    MODELS,
    TRAINED,
    VAL_PREF_ACC,
    bradley_terry_crosscheck,
    bradley_terry_fit,
    bradley_terry_table,
    category_bradley_terry,
    category_pair_table,
    category_sums_match,
    category_win_rates,
    comment_themes_table,
    head_to_head,
    model_record,
    pair_table,
    spearman_bt_vs_val,
    spearman_bt_vs_val_ci,
    validate_pair_counts,
    win_matrix,
    winrate_vs_base,
)
from .simulation import (
    STRATEGIES,
    TRUTHS,
    SimulationResult,
    compare_with_uniform,
    curve_crossing,
    decisive_truth,
    detectable_difference,
    detectable_saving,
    needed_by_gap,
    probit_crossing,
    recovery_crossing,
    simulate_active_sampling,
    uniform_needed,
    uniform_recovery_at,
    uniform_recovery_curve,
)
from .uncertainty import (
    BootstrapBT,
    TrueSkillOrders,
    asymptotic_log_se,
    bootstrap_bradley_terry,
    bootstrap_bradley_terry_clustered,
    bootstrap_category_counts,
    bootstrap_pair_counts,
    category_heterogeneity,
    davidson_comparison,
    expand_judgements,
    holm_pair_tests,
    sd_ratio,
    trueskill_library_check,
    trueskill_orders,
    wilson_rule_familywise_error,
)

__all__ = [n for n in dir() if not n.startswith("_")]

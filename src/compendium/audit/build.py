"""The audit chapter's one computation: ``build(params, inputs) -> AuditResult``.

``params`` is the chapter's section of ``params.yaml``, :class:`compendium.pipeline.params.Audit` (made with
``study_params("audit", ...)``). :meth:`Inputs.load` reads the raw files the audits need: the PWB config (which
judge is which model), the fourth-judge sample, the PWI table with its printed intervals, the preference study's
pair counts, and, when acquired, the per-instance PWB release and the row-level preference annotations.
:func:`build` runs each audit once, in the chapter's order: the judge panel (:mod:`.judges`), the two
leaderboards' rank resolution and the transitivity test (:mod:`.ranks`), the human votes row by row and
HUMAINE's ranking model (:mod:`.votes`). The result is immutable; :mod:`.summary` phrases it, :mod:`.values`
records it, :mod:`.views` and :mod:`.figures` show it.

Random streams: every audit draws from ``numpy.random.default_rng([params.seed, k])`` with its own fixed ``k``
(each module's docstring names them), so adding an audit changes no other audit's numbers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from compendium.pipeline import paths
from compendium.pipeline.progress import step

from . import judges as jg, ranks as rk, votes as vt

if TYPE_CHECKING:
    from compendium.pipeline.params import Audit

__all__ = ["STAGE", "Inputs", "Judges", "FullJudges", "Ranks", "Votes", "AuditResult", "build"]

STAGE = "audit"

#: the preference study's tie convention (a tie is half a win to each side), as its Bradley-Terry fit counts it
TIE_WEIGHT = 0.5
#: the cycle strengths at which the transitivity test's power is computed (probability that each model of the
#: cycle beats the next, ties counting half)
P_CYCLE = (0.55, 0.575, 0.6, 0.625, 0.65, 0.7)
#: the PWB conditions, as the PWI table names them, in the chapter's order
PWB_VARIANTS = ("baseline", "with_system_prompt")
#: the cells within which the length bias is estimated (a model's longer answers against its shorter ones)
LENGTH_CELLS = ("model", "dimension", "condition")
#: the groups of HUMAINE's first release (22 demographic groups, ``prolific2025humaine``)
HUMAINE_GROUPS = 22


@dataclass(frozen=True)
class Inputs:
    """What the audits read: raw files only (no other stage's results)."""

    config: Mapping  # data/pwb/config.yaml: the judges and the PWI weights
    fourth_scores: pd.DataFrame  # data/pwb/pilot/fourth_judge_scores.jsonl
    pwi: pd.DataFrame  # data/pwb/analysis_output/pwi_scores.csv (PWI with its printed 95 % interval)
    counts: pd.DataFrame  # data/hitl/published_pair_counts.csv
    results_dir: Path  # the per-instance PWB folder (it need not exist)
    instances: pd.DataFrame | None = None  # compendium.pwb.instances.load_hf_results(results_dir), when present
    annotations: pd.DataFrame | None = None  # the row-level preference annotations, when present

    @classmethod
    def load(cls, params: Audit, instances_dir: str | Path | None = None) -> Inputs:
        """Read every input. ``instances_dir``: the per-instance PWB folder (None: ``data/pwb/results``), read
        only when it exists; the annotations from ``params.annotations_path`` when that file exists."""
        from compendium import data
        from compendium.preferences import rowlevel
        from compendium.pwb import instances as inst

        results_dir = Path(instances_dir) if instances_dir else paths.PWB / "results"
        ann_file = rowlevel.annotations_path(params.annotations_path)
        return cls(
            config=data.load_pwb_config(),
            fourth_scores=data.load_pwb_fourth_judge_scores(),
            pwi=data.load_pwb_pwi_scores(),
            counts=data.load_hitl_pair_counts(),
            results_dir=results_dir,
            instances=inst.load_hf_results(results_dir, complete=True) if results_dir.is_dir() else None,
            annotations=rowlevel.read_annotations(ann_file) if ann_file.exists() else None,
        )


@dataclass(frozen=True)
class FullJudges:
    """The judge audit on the per-instance release (about 96,000 judge scores), when it is present."""

    unplaced: Mapping[str, Any]  # judges.unplaced_runs
    self_preference: pd.DataFrame  # pooled, one row per judge (reference: the other panel judges)
    by_cell: pd.DataFrame  # the same per dimension x condition
    recusal: Mapping[str, Any]  # judges.recusal_effect with the run's PWI weights
    pivotal: pd.DataFrame
    reliability: pd.DataFrame
    length: pd.DataFrame | None  # judges.length_bias (None when the runs hold no response text)


@dataclass(frozen=True)
class Judges:
    """The PWB judge panel on the bundled fourth-judge sample, and on the full release when present."""

    subjects: tuple[tuple[str, str | None], ...]  # panel order: (judge, the model it also is)
    unplaced: Mapping[str, Any]  # judges.unplaced_items: the two-score items no judge can be named for
    self_preference: pd.DataFrame  # judges.self_preference_table, both references
    recusal: Mapping[str, Any]  # judges.recusal_effect on the sample (mean panel scores)
    pivotal: pd.DataFrame  # judges.pivotal_shares
    reliability: pd.DataFrame  # judges.panel_reliability, per dimension and pooled
    full: FullJudges | None

    @property
    def names(self) -> list[str]:
        return [j for j, _ in self.subjects]


@dataclass(frozen=True)
class Ranks:
    """The two leaderboards: tie groups (simultaneous), and whether the pairwise table has one BT order."""

    pref_groups: pd.DataFrame  # ranks.tie_groups on the BT log-strengths (asymptotic covariance)
    pref_groups_boot: pd.DataFrame  # the same from the study's within-pair bootstrap draws
    pwb_groups: Mapping[str, pd.DataFrame]  # condition -> ranks.tie_groups on the printed PWI intervals
    transitivity: Mapping[str, Any]  # ranks.transitivity_test


@dataclass(frozen=True)
class Votes:
    """The human votes: row-level audits (None without the annotations) and HUMAINE's ranking model."""

    position: Mapping[str, Any] | None
    style: pd.DataFrame | None
    raters: pd.DataFrame | None
    raters_summary: Mapping[str, Any] | None
    humaine: Mapping[str, Any]


@dataclass(frozen=True)
class AuditResult:
    """Every audit of the chapter, each computed once by :func:`build`."""

    params: Audit
    judges: Judges
    ranks: Ranks
    votes: Votes


def _full_judges(params: Audit, inputs: Inputs, subjects, weights) -> FullJudges:
    from compendium.pwb import instances as inst

    names = [j for j, _ in subjects]
    long = jg.instances_long(inputs.instances, inputs.config)
    refs = jg.default_references(subjects, outside=None)
    kw = dict(references=refs, n_boot=params.n_boot, seed=params.seed, level=params.level)
    with step(STAGE, "self-preference on the per-instance release", n=params.n_boot, unit="bootstrap draws"):
        pooled = jg.self_preference_table(long, subjects, **kw)
        by_cell = jg.self_preference_table(long, subjects, by=("dimension", "condition"), **kw)
    wide = jg.panel_wide(long, names)
    complete = wide[names].dropna().to_numpy()
    length = None
    lengths = jg.response_lengths(inputs.results_dir)
    if lengths["response_chars"].notna().any():
        panel = inst.panel_scores(inputs.instances)
        runs = panel.merge(lengths, on=inst.RUN_KEYS, how="inner")
        runs = runs[runs["layer"] == 1] if "layer" in runs.columns else runs
        # within model too: across models, length and quality are confounded (judges.length_bias)
        length = jg.length_bias(runs, level=params.level, cells=LENGTH_CELLS)
    return FullJudges(
        unplaced=MappingProxyType(jg.unplaced_runs(inputs.instances, inputs.config)),
        self_preference=pooled,
        by_cell=by_cell,
        recusal=MappingProxyType(jg.recusal_effect(wide, subjects, weights)),
        pivotal=jg.pivotal_shares(complete, names, level=params.level),
        reliability=jg.panel_reliability(wide, names),
        length=length,
    )


def _fourth_judge_sample(scores: pd.DataFrame) -> pd.DataFrame:
    """One record per item of the fourth-judge sample, by the PWB chapter's reference rule for the items scored
    twice (``pwb.fourth_judge_rule``'s reference, :func:`compendium.pwb.validation.fourth_judge_sample`)."""
    from compendium.pipeline.params import reference
    from compendium.pwb import validation

    return validation.fourth_judge_sample(scores, rule=reference("pwb")["fourth_judge_rule"])[0]


def _judges(params: Audit, inputs: Inputs) -> Judges:
    from compendium.pwb import weights as wts

    subjects = tuple(jg.judge_subjects(inputs.config))
    names = [j for j, _ in subjects]
    sample = _fourth_judge_sample(inputs.fourth_scores)
    long = jg.sample_scores(sample, subjects)
    with step(STAGE, "self-preference on the fourth-judge sample", n=params.n_boot, unit="bootstrap draws"):
        sp = jg.self_preference_table(
            long,
            subjects,
            references=jg.default_references(subjects),
            n_boot=params.n_boot,
            seed=params.seed,
            level=params.level,
        )
    wide = jg.panel_wide(long, names)
    complete = wide[names].dropna().to_numpy()
    full = None
    if inputs.instances is not None:
        full = _full_judges(params, inputs, subjects, wts.scheme_weights(inputs.config))
    return Judges(
        subjects=subjects,
        unplaced=MappingProxyType(jg.unplaced_items(sample, subjects)),
        self_preference=sp,
        recusal=MappingProxyType(jg.recusal_effect(wide, subjects)),
        pivotal=jg.pivotal_shares(complete, names, level=params.level),
        reliability=jg.panel_reliability(wide, names),
        full=full,
    )


def _ranks(params: Audit, inputs: Inputs) -> Ranks:
    from compendium.preferences import MODELS, uncertainty

    kw = dict(level=params.level, seed=params.seed, n_sims=params.n_sims)
    names, est, cov = rk.bt_estimates(inputs.counts, TIE_WEIGHT)
    pref = rk.tie_groups(names, est, cov, **kw)
    # the same from the study's own bootstrap (judgements resampled within pairs): centred log-strengths
    boot = uncertainty.bootstrap_bradley_terry(inputs.counts, params.n_boot, params.seed)
    logs = np.log(boot.strengths[:, [list(MODELS).index(m) for m in names]])
    pref_boot = rk.tie_groups(names, est, draws=logs - logs.mean(axis=1, keepdims=True), **kw)
    pwb = {}
    for v in PWB_VARIANTS:
        models, pwi, pwi_cov = rk.pwi_estimates(inputs.pwi, v, rk.PWI_Z)
        pwb[v] = rk.tie_groups(models, pwi, pwi_cov, **kw)
    with step(STAGE, "transitivity test and its power", n=params.n_sims, unit="simulated tables"):
        tr = rk.transitivity_test(inputs.counts, tie_weight=TIE_WEIGHT, p_cycle=P_CYCLE, **kw)
    return Ranks(
        pref_groups=pref,
        pref_groups_boot=pref_boot,
        pwb_groups=MappingProxyType(pwb),
        transitivity=MappingProxyType(tr),
    )


def _study_davidson(counts: pd.DataFrame) -> tuple[np.ndarray, float]:
    """The preference study's Davidson strengths (in :data:`compendium.preferences.MODELS` order) and tie parameter,
    fitted here from the pair counts as the preferences chapter fits them
    (:func:`compendium.preferences.uncertainty.davidson_comparison`): the truth of the HUMAINE comparison."""
    from compendium.preferences import reproduce, uncertainty

    table, info = uncertainty.davidson_comparison(counts, reproduce.bradley_terry_table(counts))
    return table["davidson"].to_numpy(float), float(info["nu"])


def _humaine(params: Audit, counts: pd.DataFrame) -> dict[str, Any]:
    """HUMAINE's post-stratified Bradley-Terry-Davidson against the HUMANE consolidation (:func:`.votes.humaine_comparison`)
    at the HUMANE scale study's budget, with HUMAINE's 22 groups at the HUMANE study's group spread, under two
    census margins: equal shares (the sample is representative) and shares falling as 1/g (it is not)."""
    from compendium.humane.grid import BUDGET
    from compendium.pipeline.params import reference

    pi, nu = _study_davidson(counts)
    (point,) = vt.comparison_points(
        pi, nu, group_sd=reference("humane")["group_sd"], budget=BUDGET, n_groups=(HUMAINE_GROUPS,)
    )
    out: dict[str, Any] = {"budget": BUDGET, "n_groups": HUMAINE_GROUPS}
    margins = {"equal": np.ones(HUMAINE_GROUPS), "skewed": 1.0 / np.arange(1, HUMAINE_GROUPS + 1)}
    with step(STAGE, "HUMAINE's ranking model against the consolidation", n=2 * params.humaine_studies, unit="studies"):
        for name, w in margins.items():
            r = vt.humaine_comparison(
                point,
                group_weights=w,
                n_reps=params.humaine_studies,
                seed=params.seed,
                level=params.level,
                n_sims=params.n_sims,
            )
            out |= {f"{name}.{k}": v for k, v in r.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    return out


def _votes(params: Audit, inputs: Inputs) -> Votes:
    from compendium.preferences import rowlevel

    humaine = MappingProxyType(_humaine(params, inputs.counts))
    if inputs.annotations is None:
        return Votes(position=None, style=None, raters=None, raters_summary=None, humaine=humaine)
    norm = rowlevel.normalise_annotations(inputs.annotations)
    raters = vt.rater_influence(norm, tie_weight=TIE_WEIGHT)
    return Votes(
        position=MappingProxyType(vt.position_effect(norm, level=params.level)),
        style=vt.style_controlled_bt(norm, level=params.level, tie_weight=TIE_WEIGHT),
        raters=raters,
        raters_summary=MappingProxyType(vt.rater_influence_summary(raters)),
        humaine=humaine,
    )


def build(params: Audit, inputs: Inputs) -> AuditResult:
    """Every audit of the chapter on ``inputs``, each once: the judge panel, the leaderboards, the votes."""
    return AuditResult(
        params=params,
        judges=_judges(params, inputs),
        ranks=_ranks(params, inputs),
        votes=_votes(params, inputs),
    )

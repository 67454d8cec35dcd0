"""Which studies and chapters exist, as plain data: the one list every other registry derives from.

A *study* is a wing of the package, ``compendium/<id>/``, with the modules of the study contract
(``tests/test_study_contract.py``; CONTRIBUTING.md, "A study"): ``build.py`` (``Inputs.load(params)``, a frozen
``<Study>Result``, ``build(params, inputs)``), ``register.py``, ``summary.py``, ``values.py``, ``views.py``,
``figures.py``, ``alttext.py`` and ``provenance.py``. A *chapter* is a page of the book run as a stage
(a notebook under ``notebooks/``); a study's stages are its chapter and the helper stages that precompute what no
parameter of the chapter reaches.

What derives from this list (each checked by a test):

- the stage runner's table of notebook stages (:data:`compendium.pipeline.stage.STAGES`);
- the params schema's sections (:data:`compendium.pipeline.params.SCHEMA`, ordered as here) and each stage's
  parameter record ``results/params/<stage>.json`` (the keys it reads, :func:`param_keys`);
- each stage's deps in ``dvc.yaml`` (``python -m compendium.pipeline.deps --write``): its package folders, its
  parameter record and the upstream files it reads (:attr:`Stage.reads`), never another study's whole
  ``values.json``;
- the headline metrics ``metrics/<stage>.json`` (:data:`compendium.pipeline.metrics.HEADLINE`);
- the claims check's study names, stages, packages and prefixes (:mod:`compendium.claims.vocab`).

This module imports nothing of the package, so every room may read it.

One study, many names: the preferences study's register is ``published/hitl.yaml`` (a verbatim copy of the
source, whose claim ids start ``hitl.``), its chapter values start ``pref.``, its package and stage are
``preferences``, and the book calls it "Human preferences"; the row below is where each of those names is
written, once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

__all__ = [
    "Stage",
    "Study",
    "STUDIES",
    "CHAPTERS",
    "ALL_STAGES",
    "study",
    "by_register",
    "stage",
    "param_keys",
]


@dataclass(frozen=True)
class Stage:
    """One DVC stage that computes: a chapter notebook (``notebook``) or a module's ``main`` (``module``)."""

    name: str
    notebook: str | None = None  # notebooks/<notebook>.md
    module: str | None = None  # python -m <module>, for a stage without a notebook
    section: str | None = None  # the params.yaml section it reads
    #: the keys of ``section`` it reads; None: every key of the section
    keys: tuple[str, ...] | None = None
    #: files of other stages' outputs it reads (repository-relative), each one of its deps
    reads: tuple[str, ...] = ()
    #: for a helper stage (a module's ``main``): its ``values.json`` keys another study's stage reads, written beside
    #: it as ``exports/<consumer>.json``, as pairs (consumer stage, keys); a chapter stage's are its study's ``exports``
    exports: tuple[tuple[str, tuple[str, ...]], ...] = ()


@dataclass(frozen=True)
class Study:
    """A study wing: ``compendium/<id>/``, its stages, and the names it goes by."""

    id: str  # the package under compendium/ and its params.yaml section
    title: str  # how the book names it
    result: str  # the class name of its build's result, in <id>/build.py
    value_prefix: str  # the prefix of its chapter's own values.json keys
    stages: tuple[Stage, ...]  # the chapter stage first
    register: str | None = None  # its register published/<register>.yaml (the claims' "study"), if any
    claim_prefix: str | None = None  # the prefix of its register's claim ids
    #: values.json keys other stages read, written beside values.json as ``exports/<consumer>.json`` (a small file
    #: the consumer depends on instead of the whole values.json): consumer stage -> keys
    exports: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: the headline numbers of ``metrics/<stage>.json``: metric name -> values.json key
    headline: Mapping[str, str] = field(default_factory=dict)

    @property
    def stage(self) -> str:
        """The stage that runs the study's chapter."""
        return self.stages[0].name

    @property
    def package(self) -> str:
        return f"compendium.{self.id}"


_PWB_MODELS = ("glm51", "gemma4", "deepseek", "gptoss", "nemotron", "devstral", "qwen35")
_PREF_MODELS = ("untrained", "recipe_a", "recipe_b", "recipe_c", "recipe_d")

#: the studies, in the order of the book
STUDIES: tuple[Study, ...] = (
    Study(
        id="pwb",
        title="Pro-Worker AI Benchmark",
        result="PwbResult",
        value_prefix="pwb.",
        register="pwb",
        claim_prefix="pwb.",
        stages=(Stage("pwb", notebook="10_pwb", section="pwb", reads=("published/pwb.yaml",)),),
        headline={
            "layer1_baseline_mean": "pwb.layer1.baseline_mean",
            "layer1_prompted_mean": "pwb.layer1.prompted_mean",
            "delta_mean": "pwb.delta.mean",
            "fourth_judge_qwk": "pwb.fourth_judge.qwk",
            **{f"pwi_prompted_{m}": f"pwb.pwi.{m}.prompted" for m in _PWB_MODELS},
        },
    ),
    Study(
        id="workbank",
        title="WORKBank",
        result="WorkbankResult",
        value_prefix="wb.",
        register="workbank",
        claim_prefix="wb.",
        stages=(
            Stage(
                "workbank",
                notebook="20_workbank",
                section="workbank",
                reads=("results/workbank_models", "published/workbank.yaml"),
            ),
            # the sections no zone setting reaches (HAS, skills, agreement and the mixed model, demographics)
            Stage(
                "workbank_models",
                module="compendium.workbank.models",
                section="workbank",
                keys=(
                    "has_tie_rule",
                    "seed",
                    "n_tie_draws",
                    "mixed_method",
                    "n_boot_groups",
                    "raking_max_iter",
                    "raking_tol",
                ),
            ),
        ),
        headline={
            "zone_green": "wb.zones.green",
            "zone_red": "wb.zones.red",
            "zone_rnd": "wb.zones.rnd",
            "zone_low": "wb.zones.low",
            "share_desire_gt3": "wb.desire.share_gt3",
            "workers_want_more_agency": "wb.has.workers_more",
            "alpha_expert_capability": "wb.alpha.expert_capability",
            "icc": "wb.mixed.icc",
        },
    ),
    Study(
        id="preferences",
        title="Human preferences",
        result="PreferencesResult",
        value_prefix="pref.",
        register="hitl",
        claim_prefix="hitl.",
        stages=(
            Stage(
                "preferences",
                notebook="30_preferences",
                section="preferences",
                reads=(
                    "results/preferences_mc/values.json",
                    "results/preferences_mc/tables/needed_by_gap.csv",
                    "published/hitl.yaml",
                ),
            ),
            # the Monte Carlo reference numbers, which no parameter reaches (compendium.preferences.montecarlo); the
            # HUMANE scale chapter sets the uniform design's judgements needed beside the baseline the two share
            Stage(
                "preferences_mc",
                module="compendium.preferences.montecarlo",
                exports=(
                    (
                        "humane",
                        tuple(
                            f"pref_mc.uniform.n_for_{what}{end}"
                            for what in ("ranking", "top")
                            for end in ("", "_mc_lo", "_mc_hi", "_mc_se")
                        ),
                    ),
                ),
            ),
        ),
        exports={
            "humane": ("pref.davidson.nu",),
            "robustness": (
                "pref.bootstrap_cluster.p_c_stronger_than_d",
                "pref.c_vs_d.n_bootstrap",
                "pref.c_vs_d.p_c_stronger",
            ),
        },
        headline={
            "judgements": "hitl.n_ratings",
            "ties": "hitl.n_ties",
            **{f"bt_{m}": f"hitl.bt.{m}" for m in _PREF_MODELS},
            "p_c_stronger_than_d": "pref.c_vs_d.p_c_stronger",
            "davidson_nu": "pref.davidson.nu",
        },
    ),
    Study(
        id="humane",
        title="The HUMANE method at scale",
        result="HumaneResult",
        value_prefix="h_",
        stages=(
            Stage(
                "humane",
                notebook="35_humane_scale",
                section="humane",
                reads=(
                    "results/preferences/tables/davidson.csv",
                    "results/preferences/exports/humane.json",
                    # the uniform design's judgements needed, set beside the baseline the two chapters share
                    "results/preferences_mc/exports/humane.json",
                    "sweeps/humane/blocks",
                ),
            ),
        ),
    ),
    Study(
        id="robustness",
        title="Robustness",
        result="RobustnessResult",
        value_prefix="rob.",
        stages=(
            Stage(
                "robustness",
                notebook="40_robustness",
                section="robustness",
                reads=("results/preferences/exports/robustness.json",),
            ),
        ),
        headline={"findings": "rob.n_findings", "findings_holding_everywhere": "rob.n_hold_all"},
    ),
    Study(
        id="audit",
        title="Judges and leaderboards",
        result="AuditResult",
        value_prefix="audit.",
        stages=(Stage("audit", notebook="45_audit", section="audit"),),
    ),
)

#: the chapters that are no study's: the data, the claims check, the PWB benchmark itself, evaluating your own
#: model, and the reproducibility page
CHAPTERS: tuple[Stage, ...] = (
    Stage("datasheet", notebook="00_data"),
    Stage("claims", notebook="05_claims"),
    Stage("pwb_benchmark", notebook="11_pwb_benchmark"),
    Stage("evaluate", notebook="12_evaluate"),
    Stage("reproducibility", notebook="90_reproducibility"),
)

#: every computing stage: the studies' stages, then the other chapters
ALL_STAGES: tuple[Stage, ...] = tuple(s for st in STUDIES for s in st.stages) + CHAPTERS

#: metrics of the chapters that are no study's
CHAPTER_HEADLINE: Mapping[str, Mapping[str, str]] = MappingProxyType(
    {
        "datasheet": {
            "files": "data.files",
            "worker_ratings": "data.rows.worker_desires",
            "expert_ratings": "data.rows.expert_ratings",
            "pair_judgements": "hitl.n_ratings",
        },
        "pwb_benchmark": {
            "dimensions": "pwb.benchmark.n_dimensions",
            "layer1_prompts": "pwb.benchmark.n_layer1_prompts",
        },
    }
)


def study(study_id: str) -> Study:
    """The study ``study_id`` (its package name, e.g. ``"preferences"``)."""
    for s in STUDIES:
        if s.id == study_id:
            return s
    raise KeyError(f"no study {study_id!r} (known: {', '.join(s.id for s in STUDIES)})")


def by_register(register: str) -> Study:
    """The study whose register is ``published/<register>.yaml`` (e.g. ``"hitl"`` -> preferences)."""
    for s in STUDIES:
        if s.register == register:
            return s
    raise KeyError(f"no study has the register {register!r}")


def stage(name: str) -> Stage:
    """The computing stage ``name``."""
    for s in ALL_STAGES:
        if s.name == name:
            return s
    raise KeyError(f"no stage {name!r}")


def param_keys(stage_name: str, section_keys: tuple[str, ...]) -> tuple[str, ...]:
    """The keys of its section that stage ``stage_name`` reads (``section_keys``: the section's keys, in order)."""
    st = stage(stage_name)
    if st.section is None:
        return ()
    if st.keys is None:
        return tuple(section_keys)
    unknown = sorted(set(st.keys) - set(section_keys))
    if unknown:
        raise KeyError(f"stage {stage_name} reads {', '.join(unknown)}, not keys of the {st.section} section")
    return tuple(k for k in section_keys if k in st.keys)

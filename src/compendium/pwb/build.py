"""The PWB chapter's one computation: ``build(params, inputs) -> PwbResult``.

    params = study_params("pwb")                  # compendium.pipeline.params: the section's pydantic model
    result = build(params, Inputs.load(params))

:meth:`Inputs.load` reads every input once (the validated loaders of :mod:`compendium.data`, the prompt files,
the register and its notes, and the per-instance results when their folder exists); :func:`build` computes
every section of the chapter once (:mod:`.sections`) and returns a frozen :class:`PwbResult`. Everything
downstream only reads it:

- :func:`compendium.pwb.register.register_values` maps it to the claim ids of ``published/pwb.yaml``,
- :func:`compendium.pwb.summary.summary` phrases it (every ``{glue:text}`` of the chapter),
- :mod:`compendium.pwb.values` maps it to ``values.json`` entries and the result tables, :mod:`compendium.pwb.views`
  to the chapter's display copies.

``tests/pwb/test_pwb_build.py`` counts the section functions' and the analyses' calls through one build +
register + summary + values pass, as the chapter runs it: each runs exactly once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from compendium.pipeline import paths, yamlfile

from . import instances as inst, sections, weights as wts
from .sections import STAGE, Aggregates, Effects, Instances, Sensitivity, Validation

if TYPE_CHECKING:
    from compendium.pipeline.params import Pwb

__all__ = ["STAGE", "Inputs", "PwbResult", "build"]


def _released() -> dict[str, pd.DataFrame]:
    from compendium import data

    return {
        "dimension_scores": data.load_pwb_dimension_scores(),
        "effect_sizes": data.load_pwb_effect_sizes(),
        "pwi": data.load_pwb_pwi_scores(),
        "summary": data.load_pwb_summary_table(),
        "diagnostics": data.load_pwb_dimension_diagnostics(),
        "irr": data.load_pwb_irr_table(),
        "layers": data.load_pwb_layer_summary(),
        "correlation": data.load_pwb_correlation_matrix(),
    }


@dataclass(frozen=True)
class Inputs:
    """Every input of the study, loaded once (validated loaders of :mod:`compendium.data`)."""

    config: Mapping
    released: Mapping[str, pd.DataFrame]  # analysis_output/*.csv by short name
    pilot_scores: pd.DataFrame
    pilot_truth: pd.DataFrame
    fourth_scores: pd.DataFrame
    fourth_errors: pd.DataFrame
    layer1_prompts: Mapping[str, Mapping]  # prompt file stem -> its YAML
    layer2_scenarios: tuple
    layer3_prompts: Mapping
    published: Mapping[str, Any]  # claim id -> published value (published/pwb.yaml), quoted only
    notes: Mapping[str, Mapping]  # published/notes/pwb.yaml
    register: Mapping  # published/pwb.yaml itself (tables and claims)
    results_dir: Path  # the per-instance results folder (it need not exist)
    instances: pd.DataFrame | None = None  # instances.load_hf_results(results_dir) when it exists

    @classmethod
    def load(cls, params: Pwb, instances_dir: str | Path | None = None) -> Inputs:
        """Load every input :func:`build` reads. ``instances_dir``: the per-instance results folder (None:
        ``data/pwb/results``), read only when it exists. No parameter of ``params`` changes what is read."""
        from compendium import data

        prompts = paths.PWB / "prompts"
        register = yamlfile.load(paths.PUBLISHED / "pwb.yaml")
        results_dir = Path(instances_dir) if instances_dir else paths.PWB / "results"
        return cls(
            config=data.load_pwb_config(),
            released=_released(),
            pilot_scores=data.load_pwb_pilot_scores(),
            pilot_truth=data.load_pwb_pilot_ground_truth(),
            fourth_scores=data.load_pwb_fourth_judge_scores(),
            fourth_errors=data.load_pwb_fourth_judge_errors(),
            layer1_prompts={f.stem: yamlfile.load(f) for f in sorted((prompts / "layer1_behavioral").glob("*.yaml"))},
            layer2_scenarios=tuple(yamlfile.load(f) for f in sorted((prompts / "layer2_scenarios").glob("*.yaml"))),
            layer3_prompts=yamlfile.load(prompts / "layer3_adversarial" / "stress_tests.yaml"),
            published={c["id"]: c["published"] for c in register["claims"]},
            notes=yamlfile.load(paths.PUBLISHED / "notes" / "pwb.yaml") or {},
            register=register,
            results_dir=results_dir,
            # the stage's release check: every model x condition has its results file (refused before any work)
            instances=inst.load_hf_results(results_dir, complete=True) if results_dir.is_dir() else None,
        )


@dataclass(frozen=True)
class PwbResult:
    """Everything the PWB chapter computes, once (see the module docstring)."""

    params: Pwb
    inputs: Inputs
    aggregates: Aggregates
    sensitivity: Sensitivity
    effects: Effects
    validation: Validation
    design: Mapping[str, Any]
    instances: Instances | None
    anomalies: pd.DataFrame  # the judge data-quality table (empty without the per-instance data)

    @property
    def instances_present(self) -> bool:
        """Whether the per-instance results folder exists in this build."""
        return self.inputs.results_dir.is_dir()

    @property
    def weights(self) -> Mapping[str, float]:
        """The run's weighting scheme (``params.weight_scheme``)."""
        return self.sensitivity.weights


def build(params: Pwb, inputs: Inputs, *, progress: Callable | None = None) -> PwbResult:
    """Compute every section once: the stage's one computation (``notebooks/10_pwb.md``). ``params``:
    ``study_params("pwb", ...)``; ``progress``: :func:`compendium.pipeline.progress.step` in the stage (reports
    the per-instance path's duration)."""
    config = inputs.config
    weights, w21 = wts.scheme_weights(config, params.weight_scheme), wts.scheme_weights(config)
    a = sections.aggregates_section(inputs, weights, w21)  # from the released aggregates
    i = sections.instances_section(inputs, a.cells, weights, params, progress=progress)  # the per-instance path
    return PwbResult(
        params=params,
        inputs=inputs,
        aggregates=a,
        sensitivity=sections.sensitivity_section(config, a.cells, params, weights, w21),  # the weighting schemes
        effects=sections.effects_section(inputs, a),  # effect sizes with intervals
        validation=sections.validation_section(inputs, params),  # the judge-level samples
        design=sections.design_section(inputs, a.cells),  # the benchmark's design, from its files
        instances=i,
        anomalies=i.res["anomalies"] if i is not None else sections.no_anomalies(),  # judge data quality
    )

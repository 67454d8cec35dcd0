"""The Pro-Worker AI Benchmark (Leone 2026, v2.1 paper), regenerated from every level of data that exists.

Three data levels, three modules:

- :mod:`.aggregates` -- the released model x condition x dimension CSVs (``analysis_output/``). From
  them the per-cell run-level score sums are recovered exactly, which reproduces the point PWI, the
  Table 3 pooled means, the Layer-1 means, the weight-sensitivity appendix and the v2.0 leaderboard;
  d_pooled can only be approximated (method and rounding bounds stated).
- :mod:`.validation` -- the judge-level samples: the human pilot (N = 30) and the fourth-judge sample
  (N = 500, with the duplicate-record rule).
- :mod:`.instances` -- the per-instance results (HF only): tidy schema, loader, panel-median rule,
  PWI bootstrap, d_pooled, paired tests, IRR on complete triples, prompt-level correlation. Runs
  automatically when ``data/pwb/results`` exists.

Plus :mod:`.register` (every cell and text claim of ``published/pwb.yaml`` for values.json, with
PROVENANCE), :mod:`.bootstrap` (the authors' exact PWI and Table 3 bootstrap streams, vectorised),
:mod:`.benchmark` (the appendix that renders the benchmark itself), :mod:`.weights` (the
weighting schemes), :mod:`.report` (values.json entries and the data-level table), :mod:`.summary`
(every number and phrase of the chapters' prose), :mod:`.effects` (effect sizes with intervals and the
significance tests, with pingouin), :mod:`.figures`
(imported on demand) and :mod:`.paper_printed` (numbers as printed in the paper, quoted only to show
where the paper disagrees with its data).
"""

from __future__ import annotations

#: The ten Layer-1 dimensions in the authors' order (run_analysis.py ``DIMENSIONS``).
DIMENSIONS: tuple[str, ...] = (
    "cognitive_forcing",
    "contrastive_explanation",
    "skill_preservation",
    "draft_annotation",
    "uncertainty_transparency",
    "complementarity",
    "anti_sycophancy",
    "metacognitive_calibration",
    "appropriate_reliance",
    "ethical_surfacing",
)

#: The paper's abbreviations (Table 1); AR_d is appropriate reliance, AR adversarial resilience.
ABBREV: dict[str, str] = {
    "cognitive_forcing": "CF",
    "contrastive_explanation": "CE",
    "skill_preservation": "SP",
    "draft_annotation": "DA",
    "uncertainty_transparency": "UT",
    "complementarity": "CO",
    "anti_sycophancy": "AS",
    "metacognitive_calibration": "MC",
    "appropriate_reliance": "AR_d",
    "ethical_surfacing": "ES",
    "adversarial_resilience": "AR",
}

#: Model display name -> short key used in the claim ids of published/pwb.yaml.
MODEL_KEYS: dict[str, str] = {
    "GLM 5.1": "glm51",
    "Gemma 4 31B": "gemma4",
    "DeepSeek V3.2": "deepseek",
    "GPT-oss 120B": "gptoss",
    "Nemotron-Cascade 30B": "nemotron",
    "Devstral-2 123B": "devstral",
    "Qwen3.5 27B": "qwen35",
}

#: The two evaluation conditions as the data name them, and the claim-id suffixes.
CONDITIONS: tuple[str, str] = ("baseline", "with_system_prompt")
CONDITION_KEYS: dict[str, str] = {"baseline": "baseline", "with_system_prompt": "prompted"}

from . import aggregates, benchmark, bootstrap, instances, paper_printed, report, validation, weights  # noqa: E402

__all__ = [
    "DIMENSIONS",
    "ABBREV",
    "MODEL_KEYS",
    "CONDITIONS",
    "CONDITION_KEYS",
    "aggregates",
    "benchmark",
    "bootstrap",
    "instances",
    "paper_printed",
    "report",
    "validation",
    "weights",
]

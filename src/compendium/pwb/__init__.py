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

One computation: :func:`build` (:mod:`.build`) reads every input once (:meth:`Inputs.load`), runs every
section of the chapter once (:mod:`.sections`) and returns a frozen :class:`PwbResult`; its parameters are the
``pwb`` section's pydantic model (``compendium.pipeline.params.study_params("pwb")``). :mod:`.register` maps
the result to the claim ids of ``published/pwb.yaml`` (with PROVENANCE, :mod:`.provenance`), :mod:`.summary`
phrases it (every number and phrase of the chapter's prose), :mod:`.values` maps it to values.json entries and
the result tables, :mod:`.views` to the display copies of the tables. Plus :mod:`.constants` (the dimensions,
abbreviations, models and conditions, typed once), :mod:`.bootstrap` (the authors' exact PWI and Table 3
bootstrap streams, vectorised), :mod:`.benchmark` (the appendix that renders the benchmark itself),
:mod:`.weights` (the weighting schemes), :mod:`.effects` (effect sizes with intervals and the significance
tests, with pingouin, imported where a test runs), :mod:`.figures` and :mod:`.alttext` (imported on demand),
:mod:`.score` (scoring a new model; :mod:`.records` writes its hub and Every Eval Ever records) and :mod:`.paper_printed` (numbers as printed in the paper, quoted only to
show where the paper disagrees with its data).
"""

from __future__ import annotations

from . import aggregates, benchmark, bootstrap, instances, paper_printed, validation, weights
from .build import Inputs, PwbResult, build
from .constants import ABBREV, CONDITION_KEYS, CONDITIONS, DIMENSIONS, MODEL_KEYS

__all__ = [
    "build",
    "Inputs",
    "PwbResult",
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
    "validation",
    "weights",
]

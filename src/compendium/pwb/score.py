"""Score your own model on the Pro-Worker AI Benchmark, beside the seven released models.

    python -m compendium.pwb.score RESULTS_DIR [--name NAME] [--out DIR] [--allow-partial]
                                   [--format eval-results|every-eval-ever] [--evaluator ORG]
                                   [--evaluator-relationship REL] [--model-repo OWNER/NAME]

``RESULTS_DIR`` holds the new model's judged results as the authors' runner writes them
(``results/*.json``, one file per condition: ``baseline`` and ``with_system_prompt``, all three layers); the
fields, what each layer is needed for and a minimal file (:data:`EXAMPLE_JSON`) are in ``--help``
(:func:`help_epilog`) and on the book's page "Evaluate your own model". A folder of tidy tables (the instance
loader's ``model, condition, layer, dimension, prompt_id, run, judge, score``) is refused in one sentence
(:data:`TIDY_REFUSED`): the same run scores in a table's order give another bootstrap mean, and a failed run
leaves no row for the design coverage.
Printed, and written to ``DIR`` (default ``./pwb-score-<name>/``) as ``score.csv`` and ``score.json``:

- its PWI per condition with the paper's bootstrap (the authors' exact random stream, 10,000 draws,
  seed 42, 2.5/97.5 percentiles; the v2.1 weights of the bundled ``config.yaml``), ΔPWI (prompted minus
  baseline bootstrap mean) and d_pooled (Cohen's d on the concatenated Layer-1 run scores);
- beside the paper's intervals, labelled, intervals that respect the benchmark's design for the PWI per
  condition, ΔPWI and d_pooled (:mod:`compendium.pwb.design_bootstrap`: prompts as clusters, the same prompt ids
  for both conditions, runs within prompts; the judges resampled too as a sensitivity), in ``score.json`` under
  ``design``;
- its design coverage: the run beside the benchmark's design as the bundled files hold it
  (:func:`benchmark_design`: the Layer-1 prompt ids per dimension of ``prompts/layer1_behavioral/*.yaml``,
  the runs per prompt and the judge panel of ``config.yaml``, the three layers, the two conditions), as one
  line (:func:`coverage_line`: e.g. "your run: 8/20 prompts per dimension, 3/5 runs per prompt, 3/3 judges
  per run, 80 prompt ids not in the benchmark", per condition where they differ) and per condition in
  ``score.json`` (``coverage``);
- its place among the seven released models with their intervals: from their per-instance results when
  ``data/pwb/results/`` holds them, otherwise from the released per-model bootstrap PWIs and intervals
  (``data/pwb/analysis_output/pwi_scores.csv``); the output says which;
- which differences the intervals support: a difference is called supported only where the two 95 %
  intervals do not overlap (a conservative reading: overlapping intervals can still hide a real
  difference, and no multiple-comparison correction is made).

A run that does not cover the design (other prompts, fewer prompts, runs or judges, a layer without records)
is not placed among the released models: its PWI and interval are printed with the coverage line and one
sentence saying why it is not ranked (its index is then not the benchmark's: other prompts measure something
else, and fewer runs give a wider interval). ``--allow-partial`` places it anyway, and then every rank, row
and statement, printed and in ``score.json`` (``coverage.like_for_like``: false), says the comparison is not
like for like.

``--format eval-results`` also writes the hub's ``.eval_results/<task>.yaml`` entries for the model's repository
and ``--format every-eval-ever`` an Every Eval Ever record (:mod:`compendium.pwb.records`, which says what each
field holds and why a run that does not cover the design gets no hub record, and an Every Eval Ever record only
with ``--allow-partial``, marked); both are checked before the bootstrap.

It never writes under ``results/`` (the paper's outputs). A malformed file stops it with one sentence
naming the file, record and field (the anomaly policy of :mod:`compendium.data.anomalies`: a stored score
outside 0-3 or NaN, a missing layer; and, for a new model's results, :func:`check_run_records`: a prompt id or
a run index twice); so does a folder whose files hold no scored Layer-1 run in a condition, a model whose
Layer-1 runs would make the bootstrap need more memory than the budget (:func:`check_memory`), and an output
folder that cannot be written (checked before the bootstrap). Model names are printed with their control
characters visible (:func:`compendium.pipeline.cli.visible`).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import textwrap
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from compendium.pipeline import paths
from compendium.pipeline.cli import gib, memory_budget, quote, safe_output, visible, writable_folder
from compendium.pipeline.params import reference

from ..data import pwbresults
from ..data.anomalies import DataAnomalyError, refuse
from . import design_bootstrap, instances as inst, records
from .constants import CONDITIONS, MODEL_KEYS

#: the paper's PWI bootstrap (draws, seed, interval level): the pwb section's reference values, typed nowhere else
N_BOOT, SEED, CI = (reference("pwb")[k] for k in ("n_boot", "seed", "ci_level"))
COND_LABEL = {"baseline": "baseline", "with_system_prompt": "prompted"}
#: draws the bootstrap holds at once (``chunk_reps`` of :func:`compendium.pwb.bootstrap._resampled_means`)
BOOT_CHUNK = 1000
#: bytes per (draw held at once x Layer-1 run score) at the bootstrap's peak: 32-bit stream words, their
#: 64-bit products and indices, the resampled values (measured: 64 on the integer path, 87 on the general one)
BYTES_PER_DRAW_SCORE = 96
#: the bundled files the design is read from (:func:`benchmark_design`)
LAYER1_PROMPTS = "prompts/layer1_behavioral"
DESIGN_SOURCE = f"data/pwb/{LAYER1_PROMPTS}/*.yaml and data/pwb/config.yaml"
#: the columns of the placement table (``score.csv``), also when the run is not placed
PLACEMENT_COLUMNS = ["condition", "rank", "model", "pwi", "ci_lower", "ci_upper", "new", "versus_new_model"]
#: the one sentence for a run that does not cover the design, without ``--allow-partial``
NOT_RANKED = (
    "Not ranked among the released models: the run does not cover the benchmark's design, so its PWI and interval "
    "are not like for like with theirs (other or fewer prompts make another index, fewer runs or judges another "
    "interval); to rank it anyway, marked as not like for like, run the command again with --allow-partial."
)
#: the authors' code, whose runner (src/runner.py, save_results) writes the results files this command reads
RUNNER = "https://github.com/angelo-leone/pro-worker-benchmark"
#: the one sentence for a folder of tidy tables (model, condition, layer, dimension, prompt_id, run, judge, score):
#: the instance loader reads them, but the same scores give another PWI there (the bootstrap's random stream
#: follows the results file's order, which a table does not keep: dimensions in the authors' list, not in the
#: file's; tests/pwb/test_score_formats.py), the panel score is recomputed from the judge values (a value outside
#: 0-3, which the runner's stored score used, is dropped), and a failed run leaves no row, so the design coverage
#: cannot count it
TIDY_REFUSED = (
    "{folder}: holds tidy tables ({tables}) and no results *.json files; the score command reads only the runner's "
    "JSON, because a tidy table loses what the PWI and the coverage depend on: the results file's order, which the "
    "paper's bootstrap follows (the same run scores in another order give a bootstrap mean that differs in the "
    "second decimal), the panel score the runner stored for each run, and the failed runs, which leave no row; give "
    f"the folder of the runner's results *.json files ({RUNNER}, src/runner.py)"
)
#: what marks every placement row and statement of a run placed with ``--allow-partial``
PARTIAL = "Not like for like (--allow-partial)"
PARTIAL_HEAD = (
    f"{PARTIAL}: the run does not cover the benchmark's design and is ranked among the released models only "
    "because --allow-partial was given; every rank and statement below is marked."
)


def _weights() -> dict[str, float]:
    from ..data import load_pwb_config
    from .weights import scheme_weights

    return scheme_weights(load_pwb_config())


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower() or "model"


# --------------------------------------------------------------------------------------------------
# the benchmark's design, and a run's coverage of it
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Design:
    """The benchmark's design, as :func:`benchmark_design` reads it from the bundled files.

    ``prompts``: Layer-1 dimension -> its prompt ids; ``runs_per_prompt``: the runs of each prompt per
    condition; ``judges_per_run``: the judge panel's size; ``layers``: the results file's layer keys;
    ``conditions``: the variants."""

    prompts: Mapping[str, tuple[str, ...]]
    runs_per_prompt: int
    judges_per_run: int
    layers: tuple[str, ...]
    conditions: tuple[str, ...]

    def prompts_of(self) -> str:
        """The prompts per dimension: ``20``, or ``10-20`` if the dimensions differ."""
        n = sorted({len(v) for v in self.prompts.values()})
        return f"{n[0]}" if len(n) == 1 else f"{n[0]}-{n[-1]}"

    def describe(self) -> str:
        return (
            f"{self.prompts_of()} prompts in each of {len(self.prompts)} dimensions, {self.runs_per_prompt} runs "
            f"per prompt, {self.judges_per_run} judges per run, {len(self.layers)} layers, "
            f"{len(self.conditions)} conditions"
        )

    def as_dict(self) -> dict:
        """Plain values for ``score.json``."""
        return {
            "prompts_per_dimension": {d: len(v) for d, v in self.prompts.items()},
            "runs_per_prompt": self.runs_per_prompt,
            "judges_per_run": self.judges_per_run,
            "layers": list(self.layers),
            "conditions": list(self.conditions),
            "description": self.describe(),
            "source": DESIGN_SOURCE,
        }


def design_from(config: Mapping, layer1: Mapping[str, Mapping]) -> Design:
    """The design from the parsed files: ``config`` (``config.yaml``) and ``layer1`` (Layer-1 prompt file name ->
    its YAML). The prompt ids per dimension (each file's ``dimension`` and its prompts' ``id``), the runs per
    prompt (``settings.runs_per_prompt``) and the judges per run (the ``judges`` panel) are the files'. The
    layers and conditions are not in them as names (``prompts/`` has a folder per layer, and
    ``settings.test_with_system_prompt`` only switches the second condition on), so they are the names the
    runner writes: the results file's layer keys (:data:`compendium.data.pwbresults.LAYERS`) and variants
    (:data:`compendium.pwb.constants.CONDITIONS`)."""
    prompts: dict[str, tuple[str, ...]] = {}
    for fname, doc in layer1.items():
        items = doc.get("prompts") if isinstance(doc, Mapping) else None
        ids = [p.get("id") for p in items if isinstance(p, Mapping)] if isinstance(items, list) else []
        if not isinstance(doc, Mapping) or not doc.get("dimension") or not ids or None in ids:
            raise ValueError(
                f"data/pwb/{LAYER1_PROMPTS}/{fname}: expected a dimension and its prompts, each with an id"
            )
        prompts[str(doc["dimension"])] = tuple(str(i) for i in ids)
    if not prompts:
        raise ValueError(f"data/pwb/{LAYER1_PROMPTS}: no prompt file, so the benchmark's design is unknown")
    runs = (config.get("settings") or {}).get("runs_per_prompt")
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
        raise ValueError(f"data/pwb/config.yaml: settings.runs_per_prompt must be a whole number >= 1, found {runs!r}")
    judges = config.get("judges")
    if not isinstance(judges, list) or not judges:
        raise ValueError("data/pwb/config.yaml: judges must list the judge panel")
    return Design(prompts, runs, len(judges), tuple(pwbresults.LAYERS), tuple(CONDITIONS))


def benchmark_design() -> Design:
    """The benchmark's design from the bundled files (each verified against the data manifest): the Layer-1
    prompt files (``data/pwb/prompts/layer1_behavioral/*.yaml``) and ``data/pwb/config.yaml``
    (:func:`design_from`)."""
    from .. import data

    files = sorted((paths.PWB / LAYER1_PROMPTS).glob("*.yaml"))
    docs = {f.name: data.load_pwb_yaml(f"{LAYER1_PROMPTS}/{f.name}") for f in files}
    return design_from(data.load_pwb_config(), docs)


def _prompt_id(dim: str, pos: int, p: Mapping) -> str:
    """A Layer-1 prompt record's id as the loader names it (:func:`compendium.pwb.instances.instances_from_results_json`)."""
    return str(p.get("prompt_id", f"{dim}_{pos:02d}"))


def _runs(p: Mapping) -> list:
    """A Layer-1 prompt record's run records (a record without ``runs`` is its own single run, as the loader reads it)."""
    return p["runs"] if "runs" in p else [p]


def _n_judges(run: Mapping) -> int:
    """The valid judge values of one run record, as the loader reads them (:func:`compendium.pwb.instances._judge_rows`)."""
    return sum(1 for r in inst._judge_rows({}, run) if not math.isnan(r["score"]))


def _holds_records(data: Mapping, layer: str) -> bool:
    """Whether a results file's layer holds a record the analysis reads (a Layer-2 scenario without an
    ``average_score`` is skipped by the loader, so it does not count)."""
    if layer == "layer1":
        return any(_runs(p) for prompts in (data.get("layer1") or {}).values() for p in prompts)
    if layer == "layer2":
        return any(sc.get("average_score") is not None for sc in data.get("layer2") or [])
    return bool(data.get(layer))


def condition_coverage(data: Mapping, design: Design) -> dict:
    """One results file (one condition) against ``design``, as plain values for ``score.json``.

    ``prompts_per_dimension``: the prompt records of each of the design's dimensions, whatever their ids
    (``prompts_min``/``prompts_max``: the fewest and most); ``runs_per_prompt_min``/``max``: the run records
    per Layer-1 prompt (a failed run counts: the runner ran it, and the panel drops it as the authors' analysis
    does for the released models); ``judges_per_run``: the number of valid judge values most scored runs have
    (a judge that failed leaves none, in the released runs too; ties: the larger); ``prompt_ids_not_in_benchmark``:
    the (dimension, prompt id) pairs the design does not have, with the prompts of any dimension it does not have
    (``dimensions_not_in_benchmark``); ``benchmark_prompts_missing``: the design's prompt ids the run lacks;
    ``layers``: the layers holding a record the analysis reads; ``full``: all of the design."""
    have: dict[str, set[str]] = {}
    n_runs: list[int] = []
    judges: Counter[int] = Counter()
    for dim, prompts in (data.get("layer1") or {}).items():
        have[dim] = {_prompt_id(dim, pos, p) for pos, p in enumerate(prompts)}
        for p in prompts:
            n_runs.append(len(_runs(p)))
            judges.update(n for n in map(_n_judges, _runs(p)) if n)
    counts = {d: len(have.get(d, ())) for d in design.prompts}
    extra = sum(len(ids - set(design.prompts.get(d, ()))) for d, ids in have.items())
    missing = sum(len(set(ids) - have.get(d, set())) for d, ids in design.prompts.items())
    jpr = max(judges, key=lambda n: (judges[n], n)) if judges else 0
    layers = [k for k in design.layers if _holds_records(data, k)]
    out = {
        "prompts_per_dimension": counts,
        "prompts_min": min(counts.values()),
        "prompts_max": max(counts.values()),
        "runs_per_prompt_min": min(n_runs, default=0),
        "runs_per_prompt_max": max(n_runs, default=0),
        "judges_per_run": int(jpr),
        "prompt_ids_not_in_benchmark": extra,
        "dimensions_not_in_benchmark": sorted(set(have) - set(design.prompts)),
        "benchmark_prompts_missing": missing,
        "layers": layers,
    }
    out["full"] = bool(
        missing == 0
        and extra == 0
        and out["runs_per_prompt_min"] == out["runs_per_prompt_max"] == design.runs_per_prompt
        and jpr == design.judges_per_run
        and layers == list(design.layers)
    )
    return out


def _range(lo: int, hi: int) -> str:
    return f"{lo}" if lo == hi else f"{lo}-{hi}"


def _condition_text(c: Mapping, design: Design) -> str:
    """One condition's coverage in words: ``8/20 prompts per dimension, 3/5 runs per prompt, 3/3 judges per run``
    and what else differs (prompt ids not in the benchmark, layers without records)."""
    prompts = f"{_range(c['prompts_min'], c['prompts_max'])}/{design.prompts_of()} prompts per dimension"
    if c["prompts_min"] != c["prompts_max"]:
        fewest = [d for d, n in c["prompts_per_dimension"].items() if n == c["prompts_min"]]
        more = f" and {len(fewest) - 2} more" if len(fewest) > 2 else ""
        prompts += f" ({c['prompts_min']} in {', '.join(fewest[:2])}{more})"
    parts = [
        prompts,
        f"{_range(c['runs_per_prompt_min'], c['runs_per_prompt_max'])}/{design.runs_per_prompt} runs per prompt",
        f"{c['judges_per_run']}/{design.judges_per_run} judges per run",
    ]
    if n := c["prompt_ids_not_in_benchmark"]:
        parts.append(f"{n:,} prompt id{'s' if n != 1 else ''} not in the benchmark")
    lacking = [k for k in design.layers if k not in c["layers"]]
    if lacking:
        parts.append(f"no {' or '.join(lacking)} records")
    return ", ".join(parts)


def coverage_line(cov: Mapping, design: Design) -> str:
    """The coverage line: ``your run: 8/20 prompts per dimension, 3/5 runs per prompt, 3/3 judges per run, 80
    prompt ids not in the benchmark``, per condition (``baseline ...; prompted ...``) where they differ."""
    text = {lab: _condition_text(cov[lab], design) for lab in COND_LABEL.values()}
    if len(set(text.values())) == 1:
        return f"your run: {text['baseline']}"
    return "your run: " + "; ".join(f"{lab} {t}" for lab, t in text.items())


def coverage(files: Mapping[str, tuple[Path, Mapping]], design: Design) -> dict:
    """The run's design coverage: ``full`` (both conditions cover the design), ``line`` (:func:`coverage_line`),
    ``benchmark`` (the design, :meth:`Design.as_dict`) and per condition label (``baseline``, ``prompted``) its
    file and :func:`condition_coverage`."""
    per = {COND_LABEL[c]: {"file": Path(f).name, **condition_coverage(data, design)} for c, (f, data) in files.items()}
    return {
        "full": all(v["full"] for v in per.values()),
        "line": coverage_line(per, design),
        "benchmark": design.as_dict(),
        **per,
    }


def coverage_sentence(cov: Mapping) -> str:
    """The printed coverage sentence: the line, whether the run covers the design, and the design."""
    verdict = "covers" if cov["full"] else "does not cover"
    return (
        f"Design coverage: {cov['line']}; it {verdict} the benchmark's design ({cov['benchmark']['description']}: "
        "the bundled prompt files and config.yaml)."
    )


# --------------------------------------------------------------------------------------------------
# the new model's results
# --------------------------------------------------------------------------------------------------


def check_run_records(data: Mapping, where: str) -> None:
    """Refuse, in a new model's results file ``where`` (already checked by
    :func:`compendium.data.pwbresults.check_results_json`), what the loader tolerates in the released files but
    a run to be scored may not hold; one sentence naming the file, the record and the field
    (:func:`compendium.data.anomalies.refuse`):

    - a Layer-1 prompt id twice in a dimension, or a run index (a run record's ``run``) twice in a prompt:
      the same run would count twice (the loader keeps a repeated prompt id, labelled by its position, and
      numbers runs by position);
    - a run index that is not a whole number.

    A stored run score outside 0-3 (other than -1, the failed-run marker) or a NaN is refused by the file check
    already; a judge value of 4 or 2.5 is kept, as in the released runs (the stored score counts, and the
    released models' runs were scored that way).
    """
    for dim, prompts in (data.get("layer1") or {}).items():
        first: dict[str, int] = {}
        for i, p in enumerate(prompts):
            f = f"layer1.{dim}[{i}]"
            pid = _prompt_id(dim, i, p)
            if pid in first:
                raise refuse(
                    where,
                    f"{f}.prompt_id",
                    f"prompt id {quote(pid)} appears twice in the dimension (also at [{first[pid]}]), so its runs "
                    "would count twice",
                )
            first[pid] = i
            seen: dict[int, int] = {}
            for k, r in enumerate(_runs(p)):
                rf = f"{f}.runs[{k}]" if "runs" in p else f
                idx = r.get("run") if "runs" in p else None
                if idx is not None:
                    whole = isinstance(idx, int | float) and not isinstance(idx, bool) and math.isfinite(idx)
                    if not whole or idx != int(idx):
                        raise refuse(where, f"{rf}.run", f"expected a whole-number run index, found {quote(idx, 40)}")
                    if int(idx) in seen:
                        raise refuse(
                            where,
                            f"{rf}.run",
                            f"run index {int(idx)} of prompt id {quote(pid)} appears twice (also runs[{seen[int(idx)]}]), "
                            "so the run would count twice",
                        )
                    seen[int(idx)] = k


def new_model(results_dir: Path, name: str | None) -> tuple[str, dict[str, tuple[Path, Mapping]]]:
    """The new model's name and its results file per condition (``{condition: (file, data)}``), as the analysis
    selects them (:func:`compendium.data.pwbresults.select_files`: per condition the latest file holding all
    three layers), each checked by :func:`check_run_records`."""
    if not any(results_dir.glob("*.json")):
        tables = sorted(p.name for p in (*results_dir.glob("*.csv"), *results_dir.glob("*.parquet")))
        if tables:  # the instance loader's tidy tables (compendium.pwb.instances.load_hf_results) are not enough
            raise ValueError(TIDY_REFUSED.format(folder=results_dir, tables=quote(tables)))
        raise ValueError(f"{results_dir}: no results *.json files (the runner writes one per condition)")
    chosen = pwbresults.select_files(results_dir, models=None).chosen
    names = sorted({m for m, _ in chosen})
    if name is None:
        if len(names) != 1:
            raise ValueError(f"{results_dir}: results of {len(names)} models ({quote(names)}); choose one with --name")
        name = names[0]
    if name not in names:
        raise ValueError(f"{results_dir}: no results for model_name {quote(name)} (found: {quote(names)})")
    lacking = [c for c in CONDITIONS if (name, c) not in chosen]
    if lacking:
        raise ValueError(
            f"{results_dir}: {quote(name)} has no results file with variant {lacking[0]!r} (both conditions are needed)"
        )
    files = {c: chosen[(name, c)] for c in CONDITIONS}
    for f, data in files.values():
        check_run_records(data, str(f))
    return name, files


def _require_scored(table: pd.DataFrame, where: Path) -> None:
    """Refuse a condition's results without a scored Layer-1 run in a dimension the PWI weighs."""
    weighted = [d for d, w in _weights().items() if w > 0]
    l1 = table[(table["layer"] == 1) & (table["stored_score"] >= 0) & table["dimension"].isin(weighted)]
    if l1.empty:
        raise refuse(
            str(where),
            "layer1",
            "no scored run in a dimension the PWI weighs (the layer is empty, or every run failed with stored "
            "score -1), so there is nothing to score",
        )


def check_memory(results_dir: Path, name: str, runs: pd.DataFrame, n_boot: int) -> None:
    """Refuse (``ValueError``, one sentence: the need, the budget, what to lower) a model whose Layer-1 runs
    would make the bootstrap need more than the memory budget (:func:`compendium.pipeline.cli.memory_budget`):
    it holds :data:`BOOT_CHUNK` draws of every run score of one condition at once, about
    :data:`BYTES_PER_DRAW_SCORE` bytes each."""
    budget = memory_budget()
    per_draw = BYTES_PER_DRAW_SCORE * min(BOOT_CHUNK, n_boot)
    for cond, n in runs.groupby("condition").size().items():
        need = per_draw * int(n)
        if need > budget:
            raise ValueError(
                f"{results_dir}: model {quote(name)} has {int(n):,} scored Layer-1 runs in condition {cond}; the "
                f"paper's bootstrap over them needs about {gib(need)} of memory, above the budget of {gib(budget)}: "
                f"score at most {budget // per_draw:,} runs per condition (fewer prompts or runs in the results "
                "files), or, on a machine with more memory, raise the budget with COMPENDIUM_MEMORY_GIB=<GiB>"
            )


def score_model(results_dir: Path, name: str | None = None, *, n_boot: int) -> dict:
    """PWI per condition with its interval, ΔPWI, d_pooled and the design coverage (:func:`coverage`) of the new
    model (dict of plain values). A condition without a scored Layer-1 run in a weighted dimension is refused."""
    results_dir = Path(results_dir)
    name, files = new_model(results_dir, name)
    frames = []
    for c, (f, data) in files.items():
        frames.append(inst.instances_from_results_json(data, name, c))
        _require_scored(frames[-1], f)
    t = inst.validate_instances(pd.concat(frames, ignore_index=True), where=str(results_dir))
    cov = coverage(files, benchmark_design())
    runs = inst.layer1_runs(inst.panel_scores(t))
    check_memory(results_dir, name, runs, n_boot)  # before the bootstrap allocates anything
    pwi = inst.pwi_bootstrap(runs, _weights(), n_boot=n_boot, seed=SEED, ci=CI).set_index("condition")
    d = inst.d_pooled(runs)
    out = {"model": name, "n_judge_values": int(len(t)), "n_layer1_runs": int(len(runs))}
    for c in CONDITIONS:
        out[COND_LABEL[c]] = {k: float(pwi.loc[c, k]) for k in ("pwi", "ci_lower", "ci_upper")}
    out["delta_pwi"] = out["prompted"]["pwi"] - out["baseline"]["pwi"]
    out["d_pooled"] = float(d["d_pooled"].iloc[0]) if "d_pooled" in d.columns else float(d.iloc[0, -1])
    out["coverage"] = cov
    out["design"] = design_bootstrap.design_intervals(runs, t, _weights(), n_boot=n_boot, seed=SEED, ci_level=CI)
    return out


def released_models(*, n_boot: int) -> tuple[pd.DataFrame, str]:
    """The seven released models' PWI and interval per condition, and where they come from."""
    rdir = paths.PWB / "results"
    if rdir.is_dir():
        runs = inst.layer1_runs(inst.panel_scores(inst.load_hf_results(rdir, complete=True)))
        t = inst.pwi_bootstrap(runs, _weights(), n_boot=n_boot, seed=SEED, ci=CI)
        t = t[["model", "condition", "pwi", "ci_lower", "ci_upper"]]
        return t, f"computed from the per-instance results in {rdir.relative_to(paths.ROOT)}/ (paper's bootstrap)"
    from ..data import load_pwb_pwi_scores

    r = load_pwb_pwi_scores()
    t = r.rename(
        columns={"Model": "model", "Variant": "condition", "PWI": "pwi", "CI_lower": "ci_lower", "CI_upper": "ci_upper"}
    )
    t = t[t["model"].isin(MODEL_KEYS)][["model", "condition", "pwi", "ci_lower", "ci_upper"]]
    return t, (
        "the released per-model bootstrap PWIs and 95 % intervals (data/pwb/analysis_output/pwi_scores.csv, "
        "rounded to 1 decimal; the per-instance results are not in this build)"
    )


def placement(new: dict, released: pd.DataFrame) -> pd.DataFrame:
    """Per condition, every model with its interval, the new model's rank, and whether the intervals
    separate it from each released model."""
    rows = []
    for c in CONDITIONS:
        lab = COND_LABEL[c]
        me = new[lab]
        rel = released[released["condition"] == c]
        allm = pd.concat(
            [rel, pd.DataFrame([{"model": new["model"], "condition": c, **me}])], ignore_index=True
        ).sort_values("pwi", ascending=False, kind="stable")
        allm["rank"] = range(1, len(allm) + 1)
        for _, r in allm.iterrows():
            is_new = r["model"] == new["model"]
            if is_new:
                verdict = "(the new model)"
            elif r["ci_lower"] > me["ci_upper"]:
                verdict = "higher than the new model: the intervals do not overlap"
            elif r["ci_upper"] < me["ci_lower"]:
                verdict = "lower than the new model: the intervals do not overlap"
            else:
                verdict = "not distinguished: the intervals overlap"
            rows.append(
                {
                    "condition": lab,
                    "rank": int(r["rank"]),
                    "model": r["model"],
                    "pwi": float(r["pwi"]),
                    "ci_lower": float(r["ci_lower"]),
                    "ci_upper": float(r["ci_upper"]),
                    "new": bool(is_new),
                    "versus_new_model": verdict,
                }
            )
    return pd.DataFrame(rows, columns=PLACEMENT_COLUMNS)


def statement(new: dict, place: pd.DataFrame) -> list[str]:
    """The honest sentences: rank, and which differences the intervals support."""
    out = []
    for lab in ("baseline", "prompted"):
        p = place[place["condition"] == lab]
        me = p[p["new"]].iloc[0]
        above = p[p["versus_new_model"].str.startswith("higher")]["model"].tolist()
        below = p[p["versus_new_model"].str.startswith("lower")]["model"].tolist()
        tied = p[p["versus_new_model"].str.startswith("not distinguished")]["model"].tolist()
        s = (
            f"{lab}: PWI {me['pwi']:.1f} [{me['ci_lower']:.1f}, {me['ci_upper']:.1f}], rank {me['rank']} of {len(p)}. "
            f"The intervals support: below {', '.join(above) or 'no model'}; above {', '.join(below) or 'no model'}; "
            f"not distinguished from {', '.join(tied) or 'no model'}."
        )
        out.append(s)
    out.append(
        "A difference is called supported only where the two 95 % bootstrap intervals do not overlap; overlapping "
        f"intervals do not show the models are equal, and no correction for the {int((~place['new']).sum())} "
        "comparisons is made."
    )
    return out


def not_like_for_like(place: pd.DataFrame, text: list[str]) -> tuple[pd.DataFrame, list[str]]:
    """The placement and statement of a run placed with ``--allow-partial``: every row's verdict and every
    sentence marked as not like for like (:data:`PARTIAL`)."""
    verdict = [
        "(the new model; not like for like)" if is_new else f"{v} (not like for like)"
        for v, is_new in zip(place["versus_new_model"], place["new"])
    ]
    return place.assign(versus_new_model=verdict), [f"{PARTIAL}: {s}" for s in text]


def evaluate(results_dir: str | Path, name: str | None = None, *, n_boot: int, allow_partial: bool = False) -> dict:
    """Everything the command prints and writes to ``score.json``: :func:`score_model`'s values (``coverage``
    among them, with ``ranked``, ``allow_partial`` and ``like_for_like`` added), the released models' source,
    the :func:`placement` table (a DataFrame) and the :func:`statement` sentences. The book's page "Evaluate your
    own model" calls it, so its numbers are the command's.

    A run that does not cover the design (``coverage["full"]`` false) is placed only with ``allow_partial``, and
    then marked (:func:`not_like_for_like`); without it the placement is empty, ``released_source`` None and
    the statement the one sentence :data:`NOT_RANKED`."""
    new = score_model(Path(results_dir), name, n_boot=n_boot)
    full = new["coverage"]["full"]
    ranked = full or allow_partial
    new["coverage"] = {**new["coverage"], "ranked": ranked, "allow_partial": allow_partial, "like_for_like": full}
    if not ranked:
        empty = pd.DataFrame(columns=PLACEMENT_COLUMNS)
        return {**new, "released_source": None, "placement": empty, "statement": [NOT_RANKED]}
    released, source = released_models(n_boot=n_boot)
    released = released[released["model"] != new["model"]]
    place = placement(new, released)
    text = statement(new, place)
    if not full:
        place, text = not_like_for_like(place, text)
    return {**new, "released_source": source, "placement": place, "statement": text}


def flat_values(result: dict, prefix: str = "eval.score") -> dict:
    """:func:`evaluate`'s result as flat ``values.json`` entries (``<prefix>.<condition>.pwi``, ...): the
    new model's PWI and interval per condition, ΔPWI, d_pooled, its rank and how many released models the
    intervals place above it, below it, or do not distinguish from it (when it is ranked), and its design
    coverage (``<prefix>.coverage.full``, ``<prefix>.coverage.line``)."""
    out = {f"{prefix}.{k}": result[k] for k in ("model", "n_judge_values", "n_layer1_runs", "delta_pwi", "d_pooled")}
    out[f"{prefix}.released_source"] = result["released_source"]
    place = result["placement"]
    for lab in ("baseline", "prompted"):
        for k in ("pwi", "ci_lower", "ci_upper"):
            out[f"{prefix}.{lab}.{k}"] = result[lab][k]
        p = place[place["condition"] == lab]
        if p.empty:  # not ranked
            continue
        out[f"{prefix}.{lab}.rank"] = int(p.loc[p["new"], "rank"].iloc[0])
        out[f"{prefix}.{lab}.n_models"] = len(p)
        for key, start in (("n_higher", "higher"), ("n_lower", "lower"), ("n_not_distinguished", "not distinguished")):
            out[f"{prefix}.{lab}.{key}"] = int(p["versus_new_model"].str.startswith(start).sum())
    out[f"{prefix}.coverage.full"] = result["coverage"]["full"]
    out[f"{prefix}.coverage.line"] = result["coverage"]["line"]
    out.update(design_bootstrap.flat_values(result["design"], f"{prefix}.interval"))
    return out


def _out_dir(out: str | None, name: str) -> Path:
    d = Path(out) if out else Path.cwd() / f"pwb-score-{_slug(name)}"
    res = (paths.ROOT / "results").resolve()
    if d.resolve() == res or d.resolve().is_relative_to(res):
        raise ValueError(f"--out {d}: refusing to write under results/ (the paper's outputs); choose another folder")
    return d


# --------------------------------------------------------------------------------------------------
# the input format, documented (--help and the book's page "Evaluate your own model" show the same text)
# --------------------------------------------------------------------------------------------------

#: a minimal results file (one condition), as the runner writes it and :func:`new_model` reads it; the page
#: "Evaluate your own model" prints the same text, and tests/pwb/test_score_formats.py checks both and that the
#: two files it makes (this one and its with_system_prompt twin) are scored
EXAMPLE_JSON = """\
{
  "model_name": "My model",
  "model_id": "my-org/my-model",
  "variant": "baseline",
  "timestamp": "2026-05-01T09:00:00+00:00",
  "layer1": {
    "cognitive_forcing": [
      {"prompt_id": "cf_01", "runs": [
        {"run": 0, "score": 2, "individual_scores": [2, 2, 3]},
        {"run": 1, "score": 1, "individual_scores": [1, 2, 1]},
        {"run": 2, "score": -1, "individual_scores": [], "error": "timeout"}
      ]}
    ]
  },
  "layer2": [{"scenario_id": "teaching_moment", "average_score": 1.8}],
  "layer3": [{"prompt_id": "ar_01", "score": 1, "individual_scores": [1, 1, 2]}]
}"""
#: what each part of a results file is for (the --help's and the page's "File format" text)
FORMAT_NOTES = (
    "One file per condition: variant baseline (no system prompt) or with_system_prompt; model_name names the "
    "model (--name picks one when the folder holds several); of several files of one model and condition, the "
    "one with the latest timestamp that holds all three layers is read.",
    "layer1 gives the PWI, ΔPWI and d_pooled: per dimension a record per prompt (prompt_id, runs), per run the "
    "judge panel's score as the runner stores it (int of the median of the valid judge values; the PWI uses this "
    "number; -1 marks a failed run, which is left out) and individual_scores (the valid judge values, counted for "
    "the design coverage).",
    "layer2 (scenarios with an average_score) and layer3 (adversarial prompts with a score) are not in the PWI, "
    "but a file must hold both keys (a file without them is the runner's Layer-1 checkpoint, read only beside a "
    "complete file), and a run is ranked among the released models only when all three layers hold records for "
    "the design's prompts, runs and judges.",
    "A tidy table (model, condition, layer, dimension, prompt_id, run, judge, score; CSV or Parquet) is not read: "
    "it loses the results file's order, which the paper's bootstrap follows (the same run scores in another order "
    "give a bootstrap mean that differs in the second decimal), the stored panel scores and the failed runs.",
    f"The authors' runner writes these files: {RUNNER} (src/runner.py).",
)

EPILOG = (
    "The run is first compared with the benchmark's design, read from the bundled files (the Layer-1 prompt ids "
    "per dimension; config.yaml's runs per prompt and judge panel; the three layers and two conditions), and its "
    "coverage is printed and written to score.json. A run that does not cover the design is not ranked among the "
    "released models (its PWI and interval are still printed); --allow-partial ranks it anyway and marks every "
    "rank and statement as not like for like. " + design_bootstrap.HELP
)


def help_epilog() -> str:
    """The ``--help`` text after the options: the coverage rule, the records, the input format with
    :data:`FORMAT_NOTES` and :data:`EXAMPLE_JSON`, wrapped to 100 columns (the example verbatim)."""

    def fill(s: str, indent: str = "") -> str:
        return textwrap.fill(
            s,
            100,
            initial_indent=indent,
            subsequent_indent=" " * len(indent),
            break_on_hyphens=False,
            break_long_words=False,
        )

    kinds = (
        f"--format eval-results writes the hub's eval results ({records.FORMATS['eval-results']}, dataset "
        f"{records.DATASET_ID}, tasks {', '.join(records.TASKS)}) and --format every-eval-ever an Every Eval Ever "
        f"record ({records.FORMATS['every-eval-ever']}; it needs --evaluator and "
        "--evaluator-relationship) under --out, beside score.csv and score.json. A run that does not cover the "
        "design gets no hub record; its Every Eval Ever record is written only with --allow-partial, marked as not "
        "like for like."
    )
    notes = "\n".join(fill(n, "- ") for n in FORMAT_NOTES)
    return (
        f"{fill(EPILOG)}\n\n{fill(kinds)}\n\nFile format (RESULTS_DIR/*.json, as the benchmark's runner writes "
        f"them):\n{notes}\n\nA minimal results file:\n{EXAMPLE_JSON}\n"
    )


def _record_plan(args, d: Path) -> dict | None:
    """Before the bootstrap, for ``--format``: the flags each record needs, and whether the run may have it
    (:func:`compendium.pwb.records.refusal`); what the records take from the files (the run's dates, the model id).
    None without ``--format``. Raises ``ValueError`` with one sentence."""
    formats = list(dict.fromkeys(args.format or ()))
    if not formats:
        return None
    eee = "every-eval-ever" in formats
    if eee and not (args.evaluator and args.evaluator.strip()):
        raise ValueError(
            "--format every-eval-ever: give --evaluator ORG, the organisation that ran the evaluation (the record's "
            "source_metadata.source_organization_name, which the command cannot know)"
        )
    if eee and not args.evaluator_relationship:
        raise ValueError(
            "--format every-eval-ever: give --evaluator-relationship, how the evaluator stands to the model's "
            f"developer ({', '.join(records.EEE_RELATIONSHIPS)}), which the command cannot know"
        )
    if args.model_repo is not None and not re.fullmatch(r"[A-Za-z0-9][\w.-]*/[\w.-]+", args.model_repo):
        raise ValueError(f"--model-repo {quote(args.model_repo, 80)}: expected a hub repository id, owner/name")
    _, files = new_model(d, args.name)
    cov = coverage(files, benchmark_design())
    for fmt in formats:
        if why := records.refusal(fmt, cov, args.allow_partial):
            raise ValueError(why)
    meta = records.run_meta(files)
    model_id = args.model_repo or meta["model_id"]
    if eee and not model_id:
        raise ValueError(
            f"--format every-eval-ever: the results files in {d} name no single model_id (the runner writes the "
            "model's reference there), so give the model's hub repository with --model-repo owner/name"
        )
    return {"formats": formats, "meta": meta, "model_id": model_id}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m compendium.pwb.score",
        description=__doc__.split("\n")[0],
        epilog=help_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("results_dir", help="folder with the new model's results/*.json (the runner's layout)")
    ap.add_argument("--name", help="model_name to score when the folder holds several models")
    ap.add_argument("--out", help="folder for score.csv and score.json (default ./pwb-score-<name>/)")
    ap.add_argument(
        "--allow-partial",
        action="store_true",
        help="rank a run that does not cover the benchmark's design among the released models anyway, every rank "
        "and statement marked as not like for like (default: its PWI is printed, not ranked)",
    )
    ap.add_argument(
        "--format",
        action="append",
        choices=list(records.FORMATS),
        help="also write a record the ecosystem reads: eval-results (the Hugging Face hub's "
        ".eval_results/<task>.yaml for the model's repository) or every-eval-ever (an Every Eval Ever record, "
        "every_eval_ever.json); may be given twice",
    )
    ap.add_argument("--evaluator", help="every-eval-ever: the organisation that ran the evaluation")
    ap.add_argument(
        "--evaluator-relationship",
        choices=records.EEE_RELATIONSHIPS,
        help="every-eval-ever: how the evaluator stands to the model's developer",
    )
    ap.add_argument(
        "--model-repo",
        help="every-eval-ever: the model's hub repository (owner/name), its model id (default: the results "
        "files' model_id)",
    )
    ap.add_argument("--n-boot", type=int, default=N_BOOT, help=argparse.SUPPRESS)
    safe_output()
    args = ap.parse_args(argv)
    try:
        d = Path(args.results_dir)
        if not d.is_dir():
            raise ValueError(f"{d}: not a folder (give the folder that holds the results *.json files)")
        if args.out:
            _out_dir(args.out, "x")
        # before the bootstrap, not after it: the folder given, or the current one (./pwb-score-<name>/)
        problem = (
            writable_folder(args.out, "--out")
            if args.out
            else writable_folder(
                Path.cwd(), "the current folder", "give --out a folder you can write, e.g. --out /tmp/score"
            )
        )
        if problem:
            raise ValueError(problem)
        plan = _record_plan(args, d)  # before the bootstrap too
        res = evaluate(d, args.name, n_boot=args.n_boot, allow_partial=args.allow_partial)
        new = {k: v for k, v in res.items() if k not in ("released_source", "placement", "statement")}
        source, place, text = res["released_source"], res["placement"], res["statement"]
        out = _out_dir(args.out, new["model"])
    except (DataAnomalyError, ValueError, FileNotFoundError) as exc:
        print(f"error: {visible(' '.join(str(exc).split()), inline=True)}", file=sys.stderr)
        return 1
    out.mkdir(parents=True, exist_ok=True)
    place.to_csv(out / "score.csv", index=False, float_format="%.4f")
    (out / "score.json").write_text(
        json.dumps(
            {**new, "released_source": source, "placement": place.to_dict("records"), "statement": text}, indent=2
        )
        + "\n",
        encoding="utf-8",
    )
    written = [out / "score.csv", out / "score.json"]
    for fmt in plan["formats"] if plan else ():
        if fmt == "eval-results":
            content = records.eval_results(new, plan["meta"], n_boot=args.n_boot, ci=CI)
        else:
            content = records.every_eval_ever(
                new,
                plan["meta"],
                evaluator=args.evaluator.strip(),
                relationship=args.evaluator_relationship,
                model_id=plan["model_id"],
                n_boot=args.n_boot,
                ci=CI,
                seed=SEED,
                retrieved=time.time(),
            )
        written += records.write(out, fmt, content)
    cov = new["coverage"]
    print(
        f"{visible(new['model'], inline=True)}: {new['n_layer1_runs']:,} scored Layer-1 runs, {new['n_judge_values']:,} judge rows"
    )
    for lab in ("baseline", "prompted"):
        v = new[lab]
        print(f"  PWI {lab:9s} {v['pwi']:6.2f}  95 % CI [{v['ci_lower']:.2f}, {v['ci_upper']:.2f}]")
    print(f"  ΔPWI {new['delta_pwi']:+.2f}   d_pooled {new['d_pooled']:.3f}")
    print("\n".join(["", *design_bootstrap.interval_lines(new)]))
    print(f"\n{visible(coverage_sentence(cov), inline=True)}")
    if cov["ranked"]:
        if not cov["like_for_like"]:
            print(f"\n{PARTIAL_HEAD}")
        print(f"\nReleased models: {source}.")
        show = place.assign(
            model=place["model"].map(lambda m: visible(m, inline=True)),
            interval=[f"[{a:.1f}, {b:.1f}]" for a, b in zip(place["ci_lower"], place["ci_upper"], strict=True)],
        )
        print(
            show[["condition", "rank", "model", "pwi", "interval", "versus_new_model"]].to_string(
                index=False, float_format="%.1f"
            )
        )
    print()
    for s in text:
        print(visible(s, inline=True))
    print(f"\nwritten: {', '.join(visible(p, inline=True) for p in written)}")
    if plan and "eval-results" in plan["formats"]:
        print(
            f"The hub's eval results: add {visible(out / '.eval_results', inline=True)}/*.yaml to the model's "
            "repository in a pull request (shown as community results while it is open; the hub's verified badge "
            "needs a token from a run in its own jobs, which this command cannot give)."
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

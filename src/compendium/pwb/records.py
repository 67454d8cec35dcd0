"""A new model's PWB score as the records the ecosystem reads: the Hugging Face hub's eval results and an Every
Eval Ever record (``python -m compendium.pwb.score ... --format eval-results|every-eval-ever``).

**Hub eval results** (the hub's documentation, "Evaluation Results", and its specification ``eval_results.yaml``
in the ``huggingface/hub-docs`` repository; ``huggingface_hub.EvalResultEntry`` reads the same fields): a model
repository holds ``.eval_results/<task>.yaml``, each a list of entries ``{dataset: {id, task_id}, value, date,
source, notes}``; ``dataset.id``, ``dataset.task_id`` and ``value`` are required. :func:`eval_results` writes one
file per task (:data:`TASKS`: ``pwi_baseline``, ``pwi_prompted``, ``delta_pwi``) with ``dataset.id`` the PWB's
hub dataset (:data:`DATASET_ID`, the id acquisition uses), ``value`` the bootstrap mean to two decimals as the
command prints it, ``date`` the ``timestamp`` the runner wrote into the results file (left out when the file has
none), and ``notes`` the interval, the weights and the design coverage. It writes no ``source`` (the hub requires
its ``url``, and the command knows no page holding the user's logs), no ``dataset.revision`` (the prompts the
user's runner read are not tied to a hub revision) and no ``verifyToken``: the hub gives its *verified* badge only
to a result whose token proves a run in its own jobs, so these entries show as *community* results while the
pull request that adds them is open. The task ids are this command's names: the PWB dataset defines none (the hub
takes a benchmark's task ids from the ``eval.yaml`` of a dataset registered as a benchmark).

**Every Eval Ever** (schema 0.3.0, ``every_eval_ever/schemas/eval.schema.json`` of ``evaleval/every_eval_ever``,
and its contributing guide; the ``every-eval-ever`` package needs Python 3.12, so the record is built here from
the schema): :func:`every_eval_ever` writes one record, its three results the same three tasks, each with the
PWB's hub dataset as ``source_data``, a continuous metric (PWI 0-100, ΔPWI -100-100, higher is better) and, for
the PWIs, the bootstrap's percentile interval. What only the user knows is given by flags or left at the
schema's own value for "unknown", never made up: ``source_metadata.source_organization_name`` (``--evaluator``)
and ``evaluator_relationship`` (``--evaluator-relationship``) are required flags; ``model_info.id`` is
``--model-repo`` or else the results files' ``model_id`` (the runner's model reference, which the guide asks for
when a model is not on the hub); ``model_info.additional_details`` has ``deployment_type`` and
``model_availability`` ``unknown`` (edit them before a submission: the datastore's check warns on them).

**Like for like.** A run that does not cover the benchmark's design (:func:`compendium.pwb.score.coverage`) makes
another index. The hub shows an eval result's ``value`` on the benchmark's leaderboard beside other models', and
its ``notes`` are free text a leaderboard need not show, so ``eval-results`` refuses such a run, with or without
``--allow-partial``. An Every Eval Ever record is a database row that carries its own metadata, so
``every-eval-ever`` writes one with ``--allow-partial`` (and refuses one without it), marked where a reader that
groups results cannot miss it: each ``evaluation_name`` ends in ``.partial_design`` (:data:`PARTIAL_SUFFIX`), and
``score_details.details`` says ``like_for_like: "false"`` with the coverage line.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path

import yaml

from compendium.chapter.numbers import share

from .. import __version__
from ..data.catalog import DATASETS

#: the PWB's dataset on the hub, as acquisition names it (compendium.data.catalog)
DATASET_ID = DATASETS["pwb"]["hf_id"]
#: the authors' code repository (the runner that writes the results files: src/runner.py)
RUNNER_REPO = "https://github.com/angelo-leone/pro-worker-benchmark"
#: task id -> (the score's key in the command's result, what it is)
TASKS = {
    "pwi_baseline": ("baseline", "PWI without the system prompt"),
    "pwi_prompted": ("prompted", "PWI with the pro-worker system prompt"),
    "delta_pwi": ("delta_pwi", "ΔPWI, the PWI with the system prompt minus the PWI without it"),
}
#: the record formats, and where each is written under the command's --out folder
FORMATS = {"eval-results": ".eval_results/<task>.yaml", "every-eval-ever": "every_eval_ever.json"}
#: Every Eval Ever: the schema version the record follows, and the collection name (the hub dataset's name)
EEE_SCHEMA_VERSION = "0.3.0"
EEE_COLLECTION = DATASET_ID.split("/")[-1]
EEE_RELATIONSHIPS = ("first_party", "third_party", "collaborative", "other")
#: what ends each evaluation_name of a record of a run that does not cover the design
PARTIAL_SUFFIX = ".partial_design"


def run_date(stamp: object) -> str | None:
    """The runner's ``timestamp`` (ISO 8601, ``datetime.now(timezone.utc).isoformat()``) as written, or None when
    it is missing or not ISO 8601 (the record then leaves the date out rather than guessing one)."""
    if not isinstance(stamp, str):
        return None
    try:
        datetime.fromisoformat(stamp)
    except ValueError:
        return None
    return stamp


def run_meta(files: Mapping[str, tuple[Path, Mapping]]) -> dict:
    """What the records take from the results files themselves (``{condition: (file, data)}`` as
    :func:`compendium.pwb.score.new_model` returns them): the run's date per condition label and the model id."""
    from .score import COND_LABEL

    dates = {COND_LABEL[c]: run_date(data.get("timestamp")) for c, (_, data) in files.items()}
    ids = {data.get("model_id") for _, data in files.values()} - {None, ""}
    return {"dates": dates, "model_id": ids.pop() if len(ids) == 1 else None}


def _latest(dates: Mapping[str, str | None]) -> str | None:
    if any(d is None for d in dates.values()):
        return None
    return max(dates.values(), key=datetime.fromisoformat)


def _value(result: Mapping, key: str) -> float:
    v = result[key]
    return float(v["pwi"] if isinstance(v, Mapping) else v)


def _coverage_text(result: Mapping) -> str:
    return result["coverage"]["line"].removeprefix("your run: ")


def _notes(result: Mapping, key: str, n_boot: int, ci: float) -> str:
    cov = f"design coverage: {_coverage_text(result)}"
    if key == "delta_pwi":
        return f"prompted minus baseline PWI (bootstrap means), v2.1 weights; no interval; {cov}"
    v = result[key]
    return (
        f"{share(ci)} CI [{v['ci_lower']:.2f}, {v['ci_upper']:.2f}] (the paper's percentile bootstrap, "
        f"{n_boot:,} draws); v2.1 weights; {cov}"
    )


def eval_results(result: Mapping, meta: Mapping, *, n_boot: int, ci: float) -> dict[str, list[dict]]:
    """The hub's ``.eval_results/<task>.yaml`` content per task id (a list of one entry each) for the result of
    :func:`compendium.pwb.score.evaluate` (a run that covers the design; :func:`refusal` says when not)."""
    out = {}
    for task, (key, _) in TASKS.items():
        entry: dict = {"dataset": {"id": DATASET_ID, "task_id": task}, "value": round(_value(result, key), 2)}
        date = _latest(meta["dates"]) if key == "delta_pwi" else meta["dates"].get(key)
        if date is not None:
            entry["date"] = date
        entry["notes"] = _notes(result, key, n_boot, ci)
        out[task] = [entry]
    return out


def _metric(key: str, what: str) -> dict:
    delta = key == "delta_pwi"
    return {
        "evaluation_description": f"{what} (Pro-Worker AI Benchmark, v2.1 weights, Layer-1 panel scores)",
        "metric_id": f"{EEE_COLLECTION}.{'delta_pwi' if delta else 'pwi'}",
        "metric_name": "ΔPWI" if delta else "Pro-Worker Index (PWI)",
        "metric_kind": "index",
        "metric_unit": "points",
        "lower_is_better": False,
        "score_type": "continuous",
        "min_score": -100.0 if delta else 0.0,
        "max_score": 100.0,
    }


def every_eval_ever(
    result: Mapping,
    meta: Mapping,
    *,
    evaluator: str,
    relationship: str,
    model_id: str,
    n_boot: int,
    ci: float,
    seed: int,
    retrieved: float,
) -> dict:
    """An Every Eval Ever record (schema :data:`EEE_SCHEMA_VERSION`) of the result of
    :func:`compendium.pwb.score.evaluate`; ``retrieved``: the record's creation time (Unix epoch seconds)."""
    like = bool(result["coverage"]["like_for_like"])
    stamp = f"{retrieved:.3f}"
    results = []
    for task, (key, what) in TASKS.items():
        name = f"{EEE_COLLECTION}.{task}" + ("" if like else PARTIAL_SUFFIX)
        score: dict = {
            "score": _value(result, key),
            "details": {"like_for_like": str(like).lower(), "design_coverage": _coverage_text(result)},
        }
        if key != "delta_pwi":
            v = result[key]
            score["uncertainty"] = {
                "confidence_interval": {
                    "lower": float(v["ci_lower"]),
                    "upper": float(v["ci_upper"]),
                    "confidence_level": float(ci),
                    "method": f"percentile bootstrap of the runs within each dimension (the paper's; seed {seed})",
                },
                "num_bootstrap_samples": int(n_boot),
            }
        results.append(
            {
                "evaluation_result_id": name,
                "evaluation_name": name,
                "source_data": {"dataset_name": EEE_COLLECTION, "source_type": "hf_dataset", "hf_repo": DATASET_ID},
                "metric_config": _metric(key, what),
                "score_details": score,
            }
        )
    record: dict = {
        "schema_version": EEE_SCHEMA_VERSION,
        "evaluation_id": f"{EEE_COLLECTION}/{model_id}/{stamp}",
    }
    if (when := _latest(meta["dates"])) is not None:
        record["evaluation_timestamp"] = when
    record |= {
        "retrieved_timestamp": stamp,
        "source_metadata": {
            "source_name": "Pro-Worker AI Benchmark",
            "source_type": "evaluation_run",
            "source_organization_name": evaluator,
            "evaluator_relationship": relationship,
        },
        "eval_library": {
            "name": "pro-worker-benchmark",
            "version": "unknown",
            "additional_details": {
                "runner": f"{RUNNER_REPO} (src/runner.py)",
                "scored_by": f"compendium.pwb.score {__version__}",
            },
        },
        "model_info": {
            "name": str(result["model"]),
            "id": model_id,
            "additional_details": {"deployment_type": "unknown", "model_availability": "unknown"},
        },
        "evaluation_results": results,
    }
    return record


def refusal(fmt: str, coverage: Mapping, allow_partial: bool) -> str | None:
    """None when ``fmt`` may be written for a run of this design ``coverage``; otherwise why not, in one sentence
    (the module docstring: ``eval-results`` only for a run that covers the design, ``every-eval-ever`` also for
    one that does not with ``--allow-partial``, marked)."""
    if coverage["full"]:
        return None
    head = f"--format {fmt}: the run does not cover the benchmark's design ({coverage['line']})"
    if fmt == "eval-results":
        return (
            f"{head}, and the hub shows an eval result's value on the benchmark's leaderboard beside other models' "
            "as like for like (its notes are free text a leaderboard need not show), so no hub record is written for "
            "it, with or without --allow-partial; score it without --format eval-results, or run the full design"
        )
    if allow_partial:
        return None
    return (
        f"{head}; with --allow-partial the Every Eval Ever record is written marked as not like for like (each "
        f"evaluation_name ends in {PARTIAL_SUFFIX})"
    )


def write(out: Path, fmt: str, content) -> list[Path]:
    """Write ``content`` (:func:`eval_results`' files or :func:`every_eval_ever`'s record) under ``out``; the paths."""
    if fmt == "eval-results":
        d = out / ".eval_results"
        d.mkdir(parents=True, exist_ok=True)
        paths = []
        for task, entries in content.items():
            p = d / f"{task}.yaml"
            p.write_text(yaml.safe_dump(entries, sort_keys=False, allow_unicode=True), encoding="utf-8")
            paths.append(p)
        return paths
    p = out / FORMATS["every-eval-ever"]
    p.write_text(json.dumps(content, indent=2, ensure_ascii=False, allow_nan=False) + "\n", encoding="utf-8")
    return [p]

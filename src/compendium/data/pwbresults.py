"""The PWB per-instance release as files: what a results file must hold, and which files of a results
folder the analysis reads.

The hub dataset (``angelo-leone/pro-worker-ai-benchmark``, ``results/*.json``) and the authors' runner
(``src/runner.py``, ``save_results``) lay the folder out the same way: one JSON file per model x condition
run, named ``<model id>_<variant>_<UTC stamp>.json``, each with ``model_name``, ``variant``, ``timestamp``
and the three layers -- and, for a run the runner saved after Layer 1 (``[checkpoint] Layer 1 saved``), a
second, earlier file with ``layer1`` only. Nothing else: no summary or configuration JSON is written there
(the runner's only writer is ``save_results``; the authors' readers of that folder, ``run_analysis.py``'s
``load_latest_results`` and ``pilot/sample_fourth_judge.py``, expect results files only, and the dataset
card's Croissant record describes ``results/*.json`` as "model responses and judge scores"). So a JSON file
there without ``model_name`` is refused (:func:`check_results_json`), not skipped: it is a file put there by
mistake, and skipping it would hide that (the authors' loader passes over it because ``"?"`` is not one of
its seven models).

:func:`select_files` applies the authors' selection rule (``run_analysis.py``, ``load_latest_results``):
per model and condition the latest file holding all three layers; a checkpoint beside a complete file is
skipped and counted; files of models outside the selection (the folder also holds the authors' earlier
v1 models) are skipped and counted. The PWB loader (:func:`compendium.pwb.instances.load_hf_results`) reads
the selected files; the Data chapter counts them. Both verify an acquired folder against its local
manifest first (:func:`compendium.data.acquired.verify_dataset`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field as dc_field
from pathlib import Path

from compendium.pipeline import paths
from compendium.pipeline.cli import quote, visible

from . import acquired, anomalies
from .schema import PWB_MODELS, PWB_VARIANTS

#: the top of the rubric (judge values and stored scores are 0-3)
MAX_SCORE = 3.0
#: the layers a complete results file holds
LAYERS = ("layer1", "layer2", "layer3")

__all__ = ["check_results_json", "select_files", "Selection", "require_cells", "verify_folder", "LAYERS"]


def _judge_list(values, where: str, field: str) -> None:
    if values is None:
        return
    if not isinstance(values, list):
        raise anomalies.refuse(where, field, f"expected a list of judge values, found {type(values).__name__}")
    for j, x in enumerate(values):
        if isinstance(x, Mapping):  # individual_results: {"score": ..., "judge_model": ...}
            if "score" in x and x["score"] is not None:
                anomalies.number(x["score"], where, f"{field}[{j}].score")
            if x.get("judge_model") is not None and not isinstance(x["judge_model"], str):
                raise anomalies.refuse(where, f"{field}[{j}].judge_model", "expected text")
        elif x is not None:
            anomalies.number(x, where, f"{field}[{j}]")  # a 4 or a 2.5 is tolerated (and listed)


def _scored_record(rec, where: str, field: str) -> None:
    """A run (or Layer-3 prompt) record: an object with a stored score in [-1, 3] and judge value lists."""
    if not isinstance(rec, Mapping):
        raise anomalies.refuse(where, field, f"expected a record (a JSON object), found {type(rec).__name__}")
    if rec.get("score") is not None:
        anomalies.number(
            rec["score"],
            where,
            f"{field}.score",
            lo=anomalies.STORED_SCORE_RANGE[0],
            hi=anomalies.STORED_SCORE_RANGE[1],
        )
    for k in ("individual_scores", "individual_results"):
        _judge_list(rec.get(k), where, f"{field}.{k}")


def check_results_json(data, where: str) -> None:
    """Refuse a results file the anomaly policy (:mod:`compendium.data.anomalies`) refuses: wrong types,
    non-finite or absurd numbers, stored scores outside [-1, 3] -- one sentence naming the file, the
    record (its JSON path) and the field. Judge values of 4 or 2.5 pass (they are listed later)."""
    if not isinstance(data, Mapping):
        raise anomalies.refuse(where, "(top level)", f"expected a results object, found {type(data).__name__}")
    for k in ("model_name", "variant", "timestamp", "model_id"):
        if data.get(k) is not None and not isinstance(data[k], str):
            raise anomalies.refuse(where, k, f"expected text, found {type(data[k]).__name__} {quote(data[k], 40)}")
    name = data.get("model_name")
    if isinstance(name, str) and visible(name, inline=True) != name:
        shown = visible(name, inline=True)
        first = shown[shown.index("[U+") :][:8]
        raise anomalies.refuse(
            where,
            "model_name",
            f"the model name {quote(shown)} holds the control character {first}; a model name is printed text, "
            "so fix it in the file",
        )
    if not data.get("model_name"):
        # refused, not skipped: the hub's results/ and the runner's output hold results files only (see the
        # module docstring), so a JSON file without a model is a stray file, and skipping it would hide it
        raise anomalies.refuse(
            where,
            "model_name",
            "missing, so the file cannot be assigned to a model (every results file of the runner names its "
            "model; move other files out of the results folder)",
        )
    if data.get("variant") is None:
        raise anomalies.refuse(where, "variant", f"missing; expected one of {list(PWB_VARIANTS)}")
    if data["variant"] not in PWB_VARIANTS:
        raise anomalies.refuse(
            where, "variant", f"expected one of {list(PWB_VARIANTS)}, found {quote(data['variant'], 40)}"
        )
    l1 = data.get("layer1")
    if l1 is not None and not isinstance(l1, Mapping):
        raise anomalies.refuse(where, "layer1", f"expected an object of dimensions, found {type(l1).__name__}")
    for dim, prompts in (l1 or {}).items():
        if not isinstance(prompts, list):
            raise anomalies.refuse(
                where, f"layer1.{dim}", f"expected a list of prompts, found {type(prompts).__name__}"
            )
        for i, p in enumerate(prompts):
            f = f"layer1.{dim}[{i}]"
            if not isinstance(p, Mapping):
                raise anomalies.refuse(where, f, f"expected a prompt record (a JSON object), found {type(p).__name__}")
            if p.get("prompt_id") is not None and not isinstance(p["prompt_id"], str | int):
                raise anomalies.refuse(where, f"{f}.prompt_id", f"expected text, found {type(p['prompt_id']).__name__}")
            if "runs" in p:
                if not isinstance(p["runs"], list):
                    raise anomalies.refuse(
                        where, f"{f}.runs", f"expected a list of runs, found {type(p['runs']).__name__}"
                    )
                for k, r in enumerate(p["runs"]):
                    _scored_record(r, where, f"{f}.runs[{k}]")
                _judge_list(p.get("individual_scores"), where, f"{f}.individual_scores")
            else:
                _scored_record(p, where, f)
    for key, kind in (("layer2", "scenario"), ("layer3", "prompt")):
        recs = data.get(key)
        if recs is not None and not isinstance(recs, list):
            raise anomalies.refuse(where, key, f"expected a list of {kind} records, found {type(recs).__name__}")
        for i, r in enumerate(recs or []):
            f = f"{key}[{i}]"
            rid = "scenario_id" if key == "layer2" else "prompt_id"
            if isinstance(r, Mapping) and r.get(rid) is not None and not isinstance(r[rid], str | int):
                raise anomalies.refuse(where, f"{f}.{rid}", f"expected text, found {type(r[rid]).__name__}")
            if key == "layer3":
                _scored_record(r, where, f)
                continue
            if not isinstance(r, Mapping):
                raise anomalies.refuse(
                    where, f, f"expected a scenario record (a JSON object), found {type(r).__name__}"
                )
            for fld, hi in (("average_score", MAX_SCORE), ("behavior_pass_rate", 1.0)):
                if r.get(fld) is not None:
                    anomalies.number(r[fld], where, f"{f}.{fld}", lo=0.0, hi=hi)


@dataclass
class Selection:
    """What :func:`select_files` found in a results folder.

    ``chosen``: ``{(model, variant): (file, data)}`` (``data`` is ``None`` unless asked for); ``skipped``:
    the checkpoint files left out (``{"file", "missing"}``: the first absent layer); ``other_models``: files
    of models outside the selection (``{"file", "model"}``); ``n_files``: the ``*.json`` files read."""

    folder: Path
    chosen: dict = dc_field(default_factory=dict)
    skipped: list = dc_field(default_factory=list)
    other_models: list = dc_field(default_factory=list)
    n_files: int = 0


def verify_folder(folder: str | Path) -> None:
    """If ``folder`` is an acquired-only folder under ``data/`` (``data/pwb/results``), verify every file of
    its dataset against the local manifest (``acquired/<dataset>/manifest.json``); raises
    :class:`~compendium.data.errors.ChecksumError` naming the file and the recovery. Elsewhere (a user's own
    results, an acquisition's staging folder) there is no manifest and nothing to verify."""
    try:
        rel = Path(folder).resolve().relative_to(paths.DATA.resolve()).as_posix()
    except ValueError:
        return
    ds = acquired.dataset_of(rel)
    if ds is not None:
        acquired.verify_dataset(ds)


def select_files(
    folder: str | Path,
    models: Iterable[str] | None = PWB_MODELS,
    keep_data: bool = True,
    verify: bool = True,
) -> Selection:
    """Read every ``*.json`` of ``folder`` (each checked by :func:`check_results_json`) and pick, per model
    and condition, the file the analysis reads: the latest ``timestamp`` (ties: the last file name) among the
    files holding all three layers, as the authors' ``load_latest_results`` keeps the latest complete file
    (it sorts by file mtime, which a copy does not preserve). ``models``: the models to keep (None: all).

    A file without a layer (absent or null: the runner's Layer-1 checkpoint) is skipped when a complete file
    for the same model and condition exists and refused otherwise (:mod:`compendium.data.anomalies`).
    ``verify``: first check an acquired folder against its local manifest (:func:`verify_folder`)."""
    d = Path(folder)
    if verify:
        verify_folder(d)
    files = sorted(d.glob("*.json"))
    if not files:
        raise FileNotFoundError(f"{d}: no *.json, *.parquet or *.csv result files")
    keep = None if models is None else set(models)
    sel = Selection(folder=d, n_files=len(files))
    latest: dict[tuple[str, str], tuple[str, str, Path, dict | None]] = {}
    incomplete: dict[tuple[str, str], tuple[Path, str]] = {}
    for f in files:
        data = anomalies.load_json(f)
        check_results_json(data, str(f))
        name, variant = data["model_name"], data["variant"]
        if keep is not None and name not in keep:
            sel.other_models.append({"file": str(f), "model": name})
            continue
        lacking = [k for k in LAYERS if data.get(k) is None]  # absent or null
        if lacking:  # the runner's Layer-1 checkpoint: skipped, as the authors' loader skips it
            incomplete.setdefault((name, variant), (f, lacking[0]))
            sel.skipped.append({"file": str(f), "missing": lacking[0]})
            continue
        key = (name, variant)
        stamp = (str(data.get("timestamp", "")), f.name)
        if key not in latest or stamp >= latest[key][:2]:
            latest[key] = (*stamp, f, data if keep_data else None)
    for key, (f, lacking) in sorted(incomplete.items()):
        if key not in latest:
            raise anomalies.refuse(
                str(f),
                lacking,
                f"missing, and no other file for {key[0]} / {key[1]} has all of layer1, layer2 and layer3 "
                "(a file without them is the runner's Layer-1 checkpoint; add the complete results file)",
            )
    if not latest:
        raise ValueError(f"{d}: no complete (layer1 + layer2 + layer3) results file for the selected models")
    sel.chosen = {k: (f, data) for k, (_, _, f, data) in sorted(latest.items())}
    return sel


def require_cells(
    present: Iterable[tuple[str, str]],
    folder: str | Path,
    models: Iterable[str] = PWB_MODELS,
    files: Mapping[tuple[str, str], Path] | None = None,
) -> None:
    """Refuse a release in which a model x condition of ``models`` has no results file (one model's baseline
    missing, or a whole model): :class:`~compendium.data.anomalies.DataAnomalyError`, one sentence naming the
    folder, the missing cells and the recovery. ``present``: the (model, condition) pairs read; ``files``:
    the file read for each, to name the other condition's file."""
    have = set(present)
    models = list(models)
    missing = [(m, c) for m in models for c in PWB_VARIANTS if (m, c) not in have]
    if not missing:
        return
    d = Path(folder)
    shown = ", ".join(f"{m} / {c}" for m, c in missing[:4]) + (
        f" and {len(missing) - 4} more" if len(missing) > 4 else ""
    )
    m0, c0 = missing[0]
    other = next(c for c in PWB_VARIANTS if c != c0)
    beside = ""
    if files and (m0, other) in files:
        beside = f" (its {other} file, {Path(files[(m0, other)]).name}, is there)"
    try:
        in_data = acquired.dataset_of(d.resolve().relative_to(paths.DATA.resolve()).as_posix()) is not None
    except ValueError:
        in_data = False
    recovery = (
        "re-run `python -m compendium.data.acquire pwb` (or accept a complete copy with "
        "`python -m compendium.data.acquire pwb --from DIR`), or delete the folder and "
        "acquired/pwb/manifest.json to build from the released aggregates alone"
        if in_data
        else "add the missing results file, or set pwb.instances_dir to a complete folder"
    )
    raise anomalies.DataAnomalyError(
        f"{d}: no results file for {shown}{beside}; the per-instance path needs both conditions of all "
        f"{len(models)} models (refused by the anomaly policy): {recovery}."
    )

"""The Data chapter's overview: datasets, files, rows, checksums, licences, offline availability."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .catalog import DATASETS
from .load import load_table, manifest, verify_file
from .schema import ALL_TABLES


def dataset_table() -> pd.DataFrame:
    """One row per dataset: title, canonical HF id, code source, licence, what is and is not offline."""
    rows = []
    for key, d in DATASETS.items():
        rows.append(
            {
                "dataset": key,
                "title": d["title"],
                "hf_id": d["hf_id"],
                "code": d["code"],
                "licence": d["licence"],
                "available_offline": d["offline"],
                "hub_only": d["online_only"],
            }
        )
    return pd.DataFrame(rows)


def file_table(root: Path | None = None) -> pd.DataFrame:
    """One row per raw file: dataset, path, rows, bytes, sha256 (verified now), and its loader if any."""
    loaders = {s.relpath: f"load_{n}" for n, s in ALL_TABLES.items()}
    rows = []
    for rel, rec in sorted(manifest().items()):
        verify_file(rel, root)
        rows.append(
            {
                "dataset": rel.split("/")[0],
                "file": rel,
                "rows": rec["rows"],
                "bytes": rec["bytes"],
                "sha256": rec["sha256"],
                "loader": loaders.get(rel, ""),
            }
        )
    return pd.DataFrame(rows).astype({"rows": "Int64"})


def table_rows(root: Path | None = None) -> pd.DataFrame:
    """Rows and columns of every validated table, as loaded (after schema validation)."""
    rows = []
    for name, spec in ALL_TABLES.items():
        df = load_table(name, root=root)
        rows.append(
            {
                "dataset": spec.relpath.split("/")[0],
                "table": name,
                "file": spec.relpath,
                "rows": len(df),
                "columns": df.shape[1],
                "description": spec.description,
            }
        )
    return pd.DataFrame(rows)


def overview_values(files: pd.DataFrame, tables: pd.DataFrame, pwb_results: dict | None = None) -> dict[str, float]:
    """Named numbers for values.json: file counts and bytes per dataset, rows per table, and with the
    per-instance PWB results present (``pwb_results``: :func:`pwb_results_files`) what the reader does with
    their files."""
    values: dict[str, float] = {"data.files": len(files), "data.bytes": int(files["bytes"].sum())}
    for ds, g in files.groupby("dataset"):
        values[f"data.{ds}.files"] = len(g)
        values[f"data.{ds}.bytes"] = int(g["bytes"].sum())
    for r in tables.itertuples():
        values[f"data.rows.{r.table}"] = int(r.rows)
    if pwb_results is not None:
        values["data.pwb.results.files"] = pwb_results["files"]
        values["data.pwb.results.read"] = pwb_results["read"]
        values["data.pwb.results.skipped_checkpoints"] = len(pwb_results["skipped"])
        values["data.pwb.results.other_models"] = len(pwb_results["other_models"])
    return values


def quirks(root: Path | None = None) -> pd.DataFrame:
    """Known quirks of the raw files, each counted from the data (nothing is dropped by the loaders)."""
    experts = load_table("expert_ratings", root=root)
    tasks = load_table("task_metadata", root=root)
    workers = load_table("worker_desires", root=root)
    meta = load_table("worker_metadata", root=root)
    fourth = load_table("pwb_fourth_judge_scores", root=root)
    from . import load_hitl_comment_themes  # the validated loader, not a second read of the file

    themes_total = sum(t["count"] for t in load_hitl_comment_themes(root)["themes"])
    per_text = tasks.groupby("Task")["Task ID"].nunique()
    experts_per_task = experts.groupby("Task")["User ID"].nunique()
    rows = [
        (
            "workbank",
            "expert_rated_technological_capability.csv",
            "(expert, task) pairs rated twice",
            int(experts.duplicated(["User ID", "Task ID"]).sum()),
        ),
        (
            "workbank",
            "expert_rated_technological_capability.csv",
            "distinct expert IDs (the paper says 52)",
            int(experts["User ID"].nunique()),
        ),
        (
            "workbank",
            "expert_rated_technological_capability.csv",
            "tasks rated by a single expert (the paper says >= 2)",
            int((experts_per_task == 1).sum()),
        ),
        (
            "workbank",
            "task_statement_with_metadata.csv",
            "task texts listed under several task IDs (group by text)",
            int((per_text > 1).sum()),
        ),
        (
            "workbank",
            "task_statement_with_metadata.csv",
            "rows with no occupation wage",
            int(tasks["Occupation Mean Annual Wage"].isna().sum()),
        ),
        (
            "workbank",
            "domain_worker_desires.csv",
            "workers in the metadata file who rated no task",
            int((~meta["User ID"].isin(workers["User ID"])).sum()),
        ),
        (
            "workbank",
            "external/paper_id_to_year_mapping.csv",
            "paper ids that a numeric read would corrupt (trailing 0, e.g. 2301.12050)",
            int(load_table("paper_years", root=root)["paper_id"].str.endswith("0").sum()),
        ),
        (
            "pwb",
            "pilot/fourth_judge_scores.jsonl",
            "item_ids that occur more than once",
            int(fourth["item_id"].duplicated().sum()),
        ),
        (
            "hitl",
            "comment_themes_llm.json",
            "comments counted in the 8 themes (the report says 856)",
            int(themes_total),
        ),
    ]
    return pd.DataFrame(rows, columns=["dataset", "file", "quirk", "count"])


def pwb_results_files(root: Path | None = None) -> dict | None:
    """What the per-instance PWB reader does with the files of ``data/pwb/results/`` when they are present
    (None otherwise): ``files`` (``*.json`` read), ``read`` (the latest complete file per model and
    condition), ``skipped`` (the names of the Layer-1 checkpoint files skipped beside a complete file: the
    reader's ``attrs["skipped_files"]``) and ``other_models`` (files of models outside the paper's seven),
    from :func:`compendium.data.pwbresults.select_files`, the rule the reader applies (the folder verified
    against ``acquired/pwb/manifest.json`` first)."""
    from compendium.pipeline import paths

    from . import pwbresults

    folder = (Path(root) if root is not None else paths.DATA) / "pwb" / "results"
    if not folder.is_dir():
        return None
    sel = pwbresults.select_files(folder, keep_data=False, verify=root is None)
    return {
        "folder": folder,
        "files": sel.n_files,
        "read": len(sel.chosen),
        "skipped": [Path(s["file"]).name for s in sel.skipped],
        "other_models": [Path(s["file"]).name for s in sel.other_models],
    }


def pwb_results_sentence(info: dict | None):
    """One Markdown sentence for the Data chapter on :func:`pwb_results_files` (file names as escaped code
    spans, :mod:`compendium.chapter.safetext`)."""
    from IPython.display import Markdown

    from compendium.chapter.safetext import code

    if info is None:
        return Markdown(
            "In this build the per-instance PWB results are not present (`python -m compendium.data.acquire pwb` "
            "puts them under `data/pwb/results/`), so the reader skips no file."
        )

    def names(xs: list[str]) -> str:
        shown = ", ".join(str(code(x)) for x in xs[:5]) + (f" and {len(xs) - 5} more" if len(xs) > 5 else "")
        return f" ({shown})" if xs else ""

    n_skip, n_other = len(info["skipped"]), len(info["other_models"])
    return Markdown(
        f"In this build `data/pwb/results/` holds {info['files']:,} results files: the per-instance reader reads "
        f"{info['read']:,} (the latest complete file of each model and condition), skips {n_skip:,} Layer-1 "
        f"checkpoint file{'' if n_skip == 1 else 's'} beside a complete file{names(info['skipped'])} and "
        f"{n_other:,} file{'' if n_other == 1 else 's'} of models outside the paper's seven"
        f"{names(info['other_models'])}."
    )

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


def overview_values(files: pd.DataFrame, tables: pd.DataFrame) -> dict[str, float]:
    """Named numbers for values.json: file counts and bytes per dataset, rows per table."""
    values: dict[str, float] = {"data.files": len(files), "data.bytes": int(files["bytes"].sum())}
    for ds, g in files.groupby("dataset"):
        values[f"data.{ds}.files"] = len(g)
        values[f"data.{ds}.bytes"] = int(g["bytes"].sum())
    for r in tables.itertuples():
        values[f"data.rows.{r.table}"] = int(r.rows)
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

"""What each dataset is, where it comes from, and under which licence (as recorded by its authors).

Used by the Data chapter, the datasheet (``data/README.md``) and :mod:`compendium.data.acquire`.
"""

from __future__ import annotations

DATASETS: dict[str, dict] = {
    "workbank": {
        "title": "WORKBank: worker automation desires and AI-expert capability ratings",
        "citation": "Shao, Zope, Jiang, Pei, Nguyen, Brynjolfsson, Yang (2025), arXiv:2506.06576",
        "hf_id": "SALT-NLP/WORKBank",
        "code": "GitHub SALT-NLP/workbank @ 6845ff5 (external_data/ -> data/workbank/external/)",
        "licence": "none declared by the authors (task statements and skills derive from O*NET 29.2, CC BY 4.0; "
        "BLS tables are U.S. public domain)",
        # HF file name -> path under data/
        "hf_files": {
            "domain_worker_desires.csv": "workbank/domain_worker_desires.csv",
            "domain_worker_metadata.csv": "workbank/domain_worker_metadata.csv",
            "expert_rated_technological_capability.csv": "workbank/expert_rated_technological_capability.csv",
            "task_statement_with_metadata.csv": "workbank/task_statement_with_metadata.csv",
        },
        "acquired_paths": (),
        "offline": "all 4 dataset CSVs and the authors' external data",
        "online_only": "nothing",
    },
    "pwb": {
        "title": "Pro-Worker AI Benchmark v2.1",
        "citation": "Leone (2026), Pro-Worker AI Benchmark v2.1 paper",
        "hf_id": "angelo-leone/pro-worker-ai-benchmark",
        "code": "GitHub angelo-leone/pro-worker-benchmark @ b8628f5",
        "licence": "conflicting: README says code MIT, data CC BY 4.0; COPYRIGHT says CC BY-NC-SA 4.0 "
        "(both recorded; treat as the stricter CC BY-NC-SA 4.0 until the author resolves it)",
        # everything under results/ in the HF snapshot -> data/pwb/results/
        "hf_dirs": {"results": "pwb/results"},
        # acquired-only paths under data/ (never in data.dvc: .dvcignore; recorded in acquired/pwb/manifest.json)
        "acquired_paths": ("pwb/results",),
        "offline": "prompts, rubrics, config, system prompt, released aggregates (model x condition x "
        "dimension), human pilot (N = 30), fourth-judge sample (N = 500)",
        "online_only": "per-instance results (~96,000 judge scores): data/pwb/results/",
    },
    "hitl": {
        "title": "Autoresearch x Prolific human-in-the-loop preference annotations",
        "citation": "Petrova & Marquez (2026), When does autoresearch need a human? Prolific technical report",
        "hf_id": "ProlificAI/autoresearch-hitl-annotations",
        "code": "GitHub prolific-oss/autoresearch-mlx @ 1e9627e (report appendix; see data/hitl/SOURCES.md)",
        "licence": "CC BY 4.0",
        # HF config name -> parquet path under data/
        # HF config name -> file stem under data/; the raw file keeps its own suffix (.parquet, .jsonl, .csv, .json)
        "hf_configs": {"annotations": "hitl/annotations", "comment_themes": "hitl/comment_themes"},
        "acquired_paths": (
            "hitl/annotations.parquet",
            "hitl/annotations.jsonl",
            "hitl/annotations.csv",
            "hitl/annotations.json",
            "hitl/annotations_real.json",
            "hitl/comment_themes.parquet",
            "hitl/comment_themes.jsonl",
            "hitl/comment_themes.csv",
            "hitl/comment_themes.json",
        ),
        "offline": "per-pair and per-category win/tie/loss counts, 8 comment themes, 50 prompts, 5 scenario tallies",
        "online_only": "row-level annotations (1,507 rows: participants, A/B positions, comments): "
        "data/hitl/annotations.parquet",
    },
}

#: Revisions whose files are pinned: ``{dataset: {commit sha: {hub path: sha256}}}``. An acquisition of a
#: pinned revision must reproduce every listed hash (as well as the hub's own checksums). Empty until a
#: release has been verified by hand; add an entry from ``acquired/<dataset>/manifest.json`` after review.
PINS: dict[str, dict[str, dict[str, str]]] = {"workbank": {}, "pwb": {}, "hitl": {}}

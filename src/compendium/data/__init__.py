"""Raw inputs: acquisition (:mod:`.acquire`), checksums (:mod:`.manifest`), schemas (:mod:`.schema`) and
one validated loader per table.

Every ``load_*`` function returns the file as pandas reads it (the file's own column names), after
checking its sha256 and validating columns, dtypes, ranges and keys. Pass ``root=`` to read another
copy of ``data/`` (``verify=False`` skips the checksum, for deliberately altered test copies).
"""

from __future__ import annotations

from pathlib import Path

import yaml

from compendium.pipeline.yamlfile import load as load_yaml

from .errors import ChecksumError, DataError, DataValidationError, MissingDataError
from .load import load_table, validate, verify_file


def _loader(name: str):
    def load(root: Path | None = None, verify: bool = True):
        return load_table(name, root=root, verify=verify)

    from .schema import ALL_TABLES

    spec = ALL_TABLES[name]
    load.__name__ = f"load_{name}"
    load.__qualname__ = load.__name__
    load.__doc__ = f"``data/{spec.relpath}``: {spec.description}. Validated DataFrame."
    return load


# WORKBank
load_worker_desires = _loader("worker_desires")
load_worker_metadata = _loader("worker_metadata")
load_expert_ratings = _loader("expert_ratings")
load_task_metadata = _loader("task_metadata")
load_claude_usage = _loader("claude_usage")
load_yc_company_mappings = _loader("yc_company_mappings")
load_company_years = _loader("company_years")
load_arxiv_paper_mappings = _loader("arxiv_paper_mappings")
load_paper_years = _loader("paper_years")
load_bls_wages = _loader("bls_wages")
load_bls_age = _loader("bls_age")
load_bls_race_gender = _loader("bls_race_gender")
# PWB
load_pwb_dimension_scores = _loader("pwb_dimension_scores")
load_pwb_pwi_scores = _loader("pwb_pwi_scores")
load_pwb_summary_table = _loader("pwb_summary_table")
load_pwb_effect_sizes = _loader("pwb_effect_sizes")
load_pwb_dimension_diagnostics = _loader("pwb_dimension_diagnostics")
load_pwb_irr_table = _loader("pwb_irr_table")
load_pwb_layer_summary = _loader("pwb_layer_summary")
load_pwb_correlation_matrix = _loader("pwb_correlation_matrix")
load_pwb_pilot_scores = _loader("pwb_pilot_scores")
load_pwb_pilot_ground_truth = _loader("pwb_pilot_ground_truth")
load_pwb_fourth_judge_scores = _loader("pwb_fourth_judge_scores")
load_pwb_fourth_judge_errors = _loader("pwb_fourth_judge_errors")
load_pwb_temporal_scores = _loader("pwb_temporal_scores")
load_pwb_temporal_by_model = _loader("pwb_temporal_by_model")
load_pwb_temporal_per_dim = _loader("pwb_temporal_per_dim")
# HITL
load_hitl_pair_counts = _loader("hitl_pair_counts")
load_hitl_pair_counts_by_category = _loader("hitl_pair_counts_by_category")
load_hitl_prompts = _loader("hitl_prompts")
load_hitl_scenario_votes = _loader("hitl_scenario_votes")


def load_pwb_yaml(relpath: str, root: Path | None = None) -> dict:
    """A PWB YAML file (``relpath`` under ``data/pwb/``, e.g. ``rubrics/dimension_rubrics.yaml``), verified."""
    path = verify_file(f"pwb/{relpath}", root)
    try:
        obj = load_yaml(path)
    except yaml.YAMLError as exc:
        raise DataValidationError(f"{path}: not valid YAML: {exc}") from exc
    if not isinstance(obj, dict):
        raise DataValidationError(f"{path}: expected a YAML mapping at the top level, got {type(obj).__name__}")
    return obj


def load_pwb_config(root: Path | None = None) -> dict:
    """``data/pwb/config.yaml``: models, judges, aggregation, weights (v2.1 and legacy v2.0)."""
    cfg = load_pwb_yaml("config.yaml", root)
    if "scoring" not in cfg:
        raise DataValidationError("data/pwb/config.yaml: missing required key 'scoring' (the dimension weights)")
    return cfg


def load_pwb_system_prompt(root: Path | None = None) -> str:
    """``data/pwb/system_prompt.md``: the pro-worker system prompt, verbatim."""
    return verify_file("pwb/system_prompt.md", root).read_text()


def load_hitl_comment_themes(root: Path | None = None) -> dict:
    """``data/hitl/comment_themes_llm.json``: the 8 LLM-clustered comment themes (+ n_comments, model)."""
    import json

    path = verify_file("hitl/comment_themes_llm.json", root)
    obj = json.loads(path.read_text())
    for k in ("themes", "n_comments"):
        if k not in obj:
            raise DataValidationError(f"{path}: missing required key {k!r}")
    for i, t in enumerate(obj["themes"]):
        for k in ("label", "count"):
            if k not in t:
                raise DataValidationError(f"{path}: theme {i}: missing required key {k!r}")
    return obj


__all__ = [n for n in dir() if n.startswith("load_")] + [
    "ChecksumError",
    "DataError",
    "DataValidationError",
    "MissingDataError",
    "validate",
    "verify_file",
]

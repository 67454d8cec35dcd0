"""The judge-level validation samples: the human pilot (N = 30) and the fourth-judge sample (N = 500).

METHODS.md, PWB: exact / adjacent agreement and quadratic-weighted kappa between the human (or the
fourth judge) and the panel median; the panel median is ``int(median(judge scores))``.

The fourth-judge file (``pilot/fourth_judge_scores.jsonl``) has 504 records for 500 item_ids. The
authors' scorer (``pilot/run_fourth_judge.py``) appends one record per successful call, writes failed
calls (``claude_score`` -1, after 3 attempts) to ``fourth_judge_errors.jsonl`` instead, and on a
resumed run skips items that already have a valid score. Items 5, 7, 8 and 9 were scored twice, both
times on the first attempt, interleaved with items 6-11 at the very start of the file: consistent with
a second scorer run started while the first still had those four items in flight (the resume logic
skips only items already written), not with a retry. The two calls of an item disagree in three of
the four cases (the scorer sets no temperature for Claude). The 111 error records
(items 358-468, HTTP 429 usage limit) all have a later valid record. Rule used here, and by the
authors' own ``pilot/analyze.py``: **keep the first valid record (claude_score in 0-3) of each
item_id in file order**; failed calls never enter. :func:`fourth_judge_sample` applies it and
returns an audit of what it did; :func:`dedupe_sensitivity` shows the other rules.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..data.errors import require_columns
from ..stats.agreement import pairwise_agreement, panel_agreement
from .constants import DIMENSIONS

LOW_IRR_DIMENSIONS = ("uncertainty_transparency", "appropriate_reliance")
DEDUPE_RULES = ("first", "last", "drop", "all")

__all__ = [
    "LOW_IRR_DIMENSIONS",
    "DEDUPE_RULES",
    "panel_median",
    "pilot_agreement",
    "fourth_judge_sample",
    "fourth_judge_agreement",
    "dedupe_sensitivity",
    "sample_panel_irr",
]


_need = require_columns


def panel_median(scores) -> int:
    """``int(median(scores))`` over the valid (0-3) judge scores; ValueError when none is valid."""
    arr = np.asarray([s for s in scores if s is not None and 0 <= s <= 3], dtype=float)
    if arr.size == 0:
        raise ValueError(f"no valid judge score in {list(scores)!r}: the run has no panel score")
    return int(np.median(arr))


def _by_dimension(df: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    rows = []
    present = list(dict.fromkeys(df["dimension"]))
    for d in [x for x in DIMENSIONS if x in present] + sorted(x for x in present if x not in DIMENSIONS):
        t = df[df["dimension"] == d]
        rows.append({"dimension": d, **pairwise_agreement(t[a].to_numpy(), t[b].to_numpy())})
    return pd.DataFrame(rows)


def pilot_agreement(pilot_scores: pd.DataFrame, ground_truth: pd.DataFrame) -> dict:
    """Human annotator vs panel median on the pilot items.

    Joins ``pilot_scores.csv`` (item_id, human_score) with ``pilot_ground_truth.json`` (item_id,
    dimension, llm_judge_median, llm_individual_scores) one-to-one, checks that every released panel
    median follows the panel rule, and returns ``overall`` (n, exact %, adjacent %, mad, qwk),
    ``per_dimension`` (DataFrame), ``low_irr`` (the UT + AR_d subset) and ``items`` (the joined table).
    """
    _need(pilot_scores, ["item_id", "human_score"], "pilot_scores")
    _need(ground_truth, ["item_id", "dimension", "llm_judge_median", "llm_individual_scores"], "ground_truth")
    for name, df in (("pilot_scores", pilot_scores), ("ground_truth", ground_truth)):
        if df["item_id"].duplicated().any():
            raise ValueError(
                f"{name}: duplicate item_id(s) {sorted(df.loc[df['item_id'].duplicated(), 'item_id'].tolist())}"
            )
    only_s = sorted(set(pilot_scores["item_id"]) - set(ground_truth["item_id"]))
    only_g = sorted(set(ground_truth["item_id"]) - set(pilot_scores["item_id"]))
    if only_s or only_g:
        raise ValueError(f"pilot item_ids do not match: only in scores {only_s}, only in ground truth {only_g}")
    items = pilot_scores.merge(ground_truth, on="item_id", validate="1:1")
    hs = pd.to_numeric(items["human_score"], errors="coerce")
    if hs.isna().any() or not hs.isin([0, 1, 2, 3]).all():
        raise ValueError("pilot_scores: column 'human_score' must be an integer 0-3 for every item")
    rule = items["llm_individual_scores"].map(panel_median)
    if (rule != items["llm_judge_median"]).any():
        bad = items.loc[rule != items["llm_judge_median"], "item_id"].tolist()
        raise ValueError(f"ground_truth: llm_judge_median breaks the panel rule for item(s) {bad}")
    items = items.assign(human_score=hs.astype(int))
    low = items[items["dimension"].isin(LOW_IRR_DIMENSIONS)]
    return {
        "overall": pairwise_agreement(items["human_score"].to_numpy(), items["llm_judge_median"].to_numpy()),
        "per_dimension": _by_dimension(items, "human_score", "llm_judge_median"),
        "low_irr": pairwise_agreement(low["human_score"].to_numpy(), low["llm_judge_median"].to_numpy())
        if len(low)
        else None,
        "items": items,
    }


def fourth_judge_sample(
    scores: pd.DataFrame, errors: pd.DataFrame | None = None, rule: str = "first"
) -> tuple[pd.DataFrame, dict]:
    """One record per item of the fourth-judge sample, and an audit of the duplicates and failures.

    ``scores``: ``fourth_judge_scores.jsonl`` in file order. ``rule``: ``first`` (default, see module
    doc) / ``last`` (last valid record) / ``drop`` (drop every item scored more than once) / ``all``
    (keep every record). The audit dict has: n_records, n_items, n_invalid (records with a score
    outside 0-3), duplicated_items, duplicate_scores (item -> list of scores in file order),
    duplicate_attempts, n_error_records, n_error_items, error_items_rescored (failed items that have a
    valid record), error_item_range, n_sample, per_dimension_n, panel_rule_ok.
    """
    _need(scores, ["item_id", "dimension", "panel_individual_scores", "panel_median", "claude_score"], "scores")
    if rule not in DEDUPE_RULES:
        raise ValueError(f"rule must be one of {DEDUPE_RULES}, got {rule!r}")
    s = scores.reset_index(drop=True).copy()
    s["file_order"] = np.arange(len(s))
    cs = pd.to_numeric(s["claude_score"], errors="coerce")
    valid = cs.between(0, 3) & (cs == cs.round())
    v = s[valid].copy()
    v["claude_score"] = cs[valid].astype(int)
    counts = v["item_id"].value_counts()
    dup_ids = sorted(counts[counts > 1].index.tolist())
    if rule == "first":
        sample = v.drop_duplicates("item_id", keep="first")
    elif rule == "last":
        sample = v.drop_duplicates("item_id", keep="last")
    elif rule == "drop":
        sample = v[~v["item_id"].isin(dup_ids)]
    else:
        sample = v
    sample = sample.sort_values("file_order", kind="stable").reset_index(drop=True)
    rule_ok = bool((s["panel_individual_scores"].map(panel_median) == s["panel_median"]).all())
    audit = {
        "n_records": int(len(s)),
        "n_items": int(s["item_id"].nunique()),
        "n_invalid": int((~valid).sum()),
        "duplicated_items": dup_ids,
        "duplicate_scores": {int(i): v.loc[v["item_id"] == i, "claude_score"].tolist() for i in dup_ids},
        "duplicate_attempts": {int(i): s.loc[s["item_id"] == i, "attempts"].tolist() for i in dup_ids}
        if "attempts" in s
        else {},
        "duplicate_positions": {int(i): s.loc[s["item_id"] == i, "file_order"].tolist() for i in dup_ids},
        "n_sample": int(len(sample)),
        "per_dimension_n": sample["dimension"].value_counts().sort_index().to_dict(),
        "panel_rule_ok": rule_ok,
    }
    if errors is not None:
        _need(errors, ["item_id", "claude_score"], "errors")
        err_ids = set(errors["item_id"].tolist())
        audit.update(
            {
                "n_error_records": int(len(errors)),
                "n_error_items": len(err_ids),
                "error_items_rescored": int(len(err_ids & set(v["item_id"]))),
                "error_item_range": [int(min(err_ids)), int(max(err_ids))] if err_ids else [],
                "error_scores_all_failed": bool((pd.to_numeric(errors["claude_score"], errors="coerce") < 0).all()),
            }
        )
    return sample, audit


def fourth_judge_agreement(sample: pd.DataFrame) -> dict:
    """Fourth judge vs panel median: ``overall``, ``per_dimension``, ``per_model``, ``per_condition``."""
    _need(sample, ["dimension", "panel_median", "claude_score"], "sample")
    out = {
        "overall": pairwise_agreement(sample["claude_score"].to_numpy(), sample["panel_median"].to_numpy()),
        "per_dimension": _by_dimension(sample, "claude_score", "panel_median"),
    }
    for col in ("model", "condition"):
        if col in sample.columns:
            out[f"per_{col}"] = pd.DataFrame(
                [
                    {col: k, **pairwise_agreement(t["claude_score"].to_numpy(), t["panel_median"].to_numpy())}
                    for k, t in sample.groupby(col, sort=True)
                ]
            )
    return out


def dedupe_sensitivity(scores: pd.DataFrame) -> pd.DataFrame:
    """The overall fourth-judge statistics under each duplicate rule (first / last / drop / all)."""
    rows = []
    for rule in DEDUPE_RULES:
        sample, _ = fourth_judge_sample(scores, rule=rule)
        rows.append({"rule": rule, **fourth_judge_agreement(sample)["overall"]})
    return pd.DataFrame(rows)


def sample_panel_irr(sample: pd.DataFrame, n_judges: int = 3) -> pd.DataFrame:
    """Three-judge panel reliability on the fourth-judge sample, per dimension and POOLED.

    Only items whose ``panel_individual_scores`` holds ``n_judges`` scores (complete triples), as the
    paper's IRR table. Columns: dimension, n, exact, adjacent, qwk, alpha, spread, n_excluded.
    """
    _need(sample, ["dimension", "panel_individual_scores"], "sample")
    k = sample["panel_individual_scores"].map(len)
    full = sample[k == n_judges]
    rows = []
    present = list(dict.fromkeys(sample["dimension"]))
    for d in [x for x in DIMENSIONS if x in present] + sorted(x for x in present if x not in DIMENSIONS):
        t = full[full["dimension"] == d]
        excluded = int(((sample["dimension"] == d) & (k != n_judges)).sum())
        if len(t):
            rows.append(
                {
                    "dimension": d,
                    **panel_agreement(np.vstack(t["panel_individual_scores"].to_numpy())),
                    "n_excluded": excluded,
                }
            )
    rows.append(
        {
            "dimension": "POOLED",
            **panel_agreement(np.vstack(full["panel_individual_scores"].to_numpy())),
            "n_excluded": int((k != n_judges).sum()),
        }
    )
    return pd.DataFrame(rows)

"""Every cell of the WORKBank register (``published/workbank.yaml``) and every text claim, mapped from the one
computation of the chapter (:func:`compendium.workbank.build`); nothing is computed here, and no file is read: the
register itself is an input (:meth:`compendium.workbank.build.Inputs.load` reads it, the result carries it).

:func:`register_values` returns ``(values, missing)`` for the values contract: one key per claim id and
per cell of every register table (``tables:``; id_pattern with ``{row}``/``{col}``, or the cell's
``existing_ids`` entry), a number where its inputs exist and ``None`` with the missing input named
otherwise. Each table is a data frame (rows = the register's row slugs, columns = its column slugs) that a
``*_frame`` function picks from the result's sections: the frames follow the authors' notebooks
(SALT-NLP/workbank @ 6845ff5, ``analysis/*.ipynb``) exactly (:mod:`.authors`, :mod:`.reliability`), and
where the project prefers another definition the alternative is published beside it as
``<id>.variant.<slug>``.

The register's ``row_labels`` (occupation titles, task texts, statsmodels term names, skill names) are
identifiers used to find a row in the data; no published number is ever read. :data:`PROVENANCE` names
the functions by their names here (the claims table quotes them); those the result computes are
re-exported from :mod:`.authors` and :mod:`.reliability`.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Mapping

import numpy as np
import pandas as pd

from compendium.pipeline import paths

from ..claims.cells import cell_map
from .authors import (  # noqa: F401 - PROVENANCE names these here (results/claims/claims.csv quotes it)
    CHARACTERISTICS,
    FIG4B_REASONS,
    FIG5A_SECTORS,
    SECTOR_CLAIMS,
    design_checks,
    expert_sd_max,
    fig4b_frame,
    fig5a_frame,
    fig6b_frame,
    mapping_frames,
    n_all_skills,
    nb_h5_frame,
    nb_has_avg_frame,
    norm_text,
    occupation_has,
)
from .common import ZONES
from .provenance import PROVENANCE
from .reliability import alpha_authors, alpha_values  # noqa: F401 - as above

__all__ = [
    "PROVENANCE",
    "alpha_authors",
    "alpha_values",
    "cell_ids",
    "design_checks",
    "expert_sd_max",
    "fig4b_frame",
    "fig5a_frame",
    "fig6b_frame",
    "fig7_frame",
    "mapping_frames",
    "mixed_model_stats",
    "nb_claude_frame",
    "nb_h5_frame",
    "nb_has_avg_frame",
    "norm_text",
    "ranked_desire_frame",
    "register_summary",
    "register_values",
    "table1_frame",
    "table2_frame",
    "table5_frame",
    "text_claims",
    "zones_frame",
]


AUDIO = (
    "the audio mini-interview transcripts and their LLooM concept assignments (not released with "
    "WORKBank; paper App F.1)"
)


# ------------------------------------------------------------------------------------------ register


def cell_ids(table: Mapping) -> dict[tuple[str, str], str]:
    """``{(row, col): value id}`` of one register table: :func:`compendium.claims.cells.cell_map`, the one
    expansion the claims check and every study use (``existing_ids``, ``blank_cells``, a whole-table ``*`` id)."""
    return cell_map(table, "workbank.yaml")


def _lookup(labels: Mapping[str, str], keys: pd.Index, what: str) -> dict[str, object]:
    """Map each row slug to the data key whose normalised text equals its label (``None`` if absent)."""
    idx: dict[str, object] = {}
    for k in keys:
        idx.setdefault(norm_text(k), k)
    out = {}
    for slug, lab in labels.items():
        out[slug] = idx.get(norm_text(lab))
    return out


# ---------------------------------------------------------------------------------------- table 1


def _safe(s: str) -> str:
    """The authors' ``make_safe`` column names (robustness.ipynb cell 23), with runs of underscores
    collapsed (the paper prints ``llm_usage_by_type__`` where the notebook has three)."""
    s = s.strip().replace(" ", "_").replace("-", "_").replace("(", "").replace(")", "").replace("*", "").lower()
    return re.sub(r"_+", "_", s)


def _term_key(term: str) -> str:
    """A statsmodels term (``'LLM Usage by Type - Edit[T.Monthly]'``) or a register row label
    (``'llm_usage_by_type__edit[T.Monthly]'``) as one comparable key."""
    m = re.match(r"^(.*?)\[T\.(.*)\]$", term)
    if m:
        return f"{_safe(m.group(1))}[t.{norm_text(m.group(2))}]"
    return _safe(term)


def table1_frame(coefs: pd.DataFrame, row_labels: Mapping[str, str]) -> pd.DataFrame:
    """Paper Table 1: the fixed effects of the chapter's REML mixed model (``coefs``: the table
    ``mixed_model_coefficients`` of :func:`.sections.reliability_section`), rows = the register's row slugs,
    columns coef, se, z, p, ci_low, ci_high. A register term the fit does not produce is NaN."""
    by_key = coefs.assign(key=coefs["term"].map(_term_key)).set_index("key")
    if by_key.index.duplicated().any():
        raise ValueError(f"table1: two model terms share a key: {by_key.index[by_key.index.duplicated()][0]!r}")
    cols = ["coef", "se", "z", "p", "ci_low", "ci_high"]
    rows = {slug: _term_key(lab) for slug, lab in row_labels.items()}
    out = pd.DataFrame(
        {
            slug: (by_key.loc[k, cols] if k in by_key.index else pd.Series(np.nan, index=cols))
            for slug, k in rows.items()
        }
    ).T.astype(float)
    out.index.name = "row"
    return out


def mixed_model_stats(summary: Mapping) -> dict[str, float]:
    """The notebook-only numbers of the Table 1 fit (robustness.ipynb cell 23), from the reliability
    section's fit summary."""
    return {
        "wb.mixed.n_obs": summary["n_obs"],
        "wb.mixed.n_groups": summary["n_groups"],
        "wb.mixed.loglik": summary["llf"],
        "wb.mixed.group_var_se": summary["group_var_se"],
        "wb.mixed.min_group": summary["min_group"],
        "wb.mixed.max_group": summary["max_group"],
        "wb.mixed.mean_group": summary["mean_group"],
    }


# ---------------------------------------------------------------------------------- tables 2-5, 7


def _by_label(data: pd.Series | pd.DataFrame, row_labels: Mapping[str, str], what: str) -> dict[str, object]:
    return _lookup(row_labels, data.index, what)


def table2_frame(per_occupation: pd.Series, row_labels: Mapping[str, str]) -> pd.DataFrame:
    """Paper Table 2: survey participants per printed occupation (``per_occupation``:
    :func:`.authors.participants_per_occupation`)."""
    hit = _by_label(per_occupation, row_labels, "occupation")
    return pd.DataFrame(
        {"n": [float(per_occupation[k]) if k is not None else np.nan for k in hit.values()]},
        index=pd.Index(list(hit), name="row"),
    )


def ranked_desire_frame(aw: pd.Series, row_labels: Mapping[str, str]) -> pd.DataFrame:
    """Paper Tables 3/4: Aw(t) of the task each printed row names (``"Occupation: Task"``; ``aw``:
    :func:`.authors.occupation_task_desire`), matched by text, not by position (the order among tied means
    is arbitrary)."""
    hit = _by_label(aw, row_labels, "task")
    return pd.DataFrame(
        {"aw": [float(aw[k]) if k is not None else np.nan for k in hit.values()]},
        index=pd.Index(list(hit), name="row"),
    )


def table5_frame(occ_has: pd.DataFrame, row_labels: Mapping[str, str]) -> pd.DataFrame:
    """Paper Table 5: worker level, expert level (1-5) and JS distance of each printed occupation."""
    hit = _lookup(row_labels, occ_has.index, "occupation")
    rows = [
        occ_has.loc[k, ["worker_level", "expert_level", "jsd"]].astype(float)
        if k is not None
        else pd.Series(np.nan, index=["worker_level", "expert_level", "jsd"])
        for k in hit.values()
    ]
    return pd.DataFrame(rows, index=pd.Index(list(hit), name="row"))


def zones_frame(zone_counts: Mapping[str, int]) -> pd.DataFrame:
    """Tasks per desire-capability zone (the landscape section's ``wb.zones.<zone>`` counts)."""
    return pd.DataFrame({"n": [float(zone_counts[z]) for z in ZONES]}, index=pd.Index(list(ZONES), name="row"))


def fig7_frame(skill_ranks: pd.DataFrame, row_labels: Mapping[str, str]) -> pd.DataFrame:
    """Fig 7: each printed skill's rank by mean wage and by mean expert HAS (1 = highest), from the skills
    section's ``skill_ranks`` table."""
    t = skill_ranks.set_index("skill")
    hit = _lookup(row_labels, t.index, "skill")
    rows = [
        t.loc[k, ["wage_rank", "has_rank"]].astype(float)
        if k is not None
        else pd.Series(np.nan, index=["wage_rank", "has_rank"])
        for k in hit.values()
    ]
    return pd.DataFrame(rows, index=pd.Index(list(hit), name="row"))


def nb_claude_frame(claude: tuple[pd.DataFrame, float] | None, row_labels: Mapping[str, str]):
    """Claude.ai usage of the printed occupations (automation_desire.ipynb cell 13; ``claude``:
    :func:`.authors.claude_occupations`). Returns ``(frame, top-10 total)``, ``(None, None)`` without the file."""
    if claude is None:
        return None, None
    occ, total = claude
    hit = _lookup(row_labels, occ.index, "occupation")
    frame = pd.DataFrame(
        {
            "pct": [float(occ.loc[k, "pct"]) if k is not None else np.nan for k in hit.values()],
            "in_top10": [bool(occ.loc[k, "in_top10"]) if k is not None else False for k in hit.values()],
        },
        index=pd.Index(list(hit), name="row"),
    )
    return frame, total


# ------------------------------------------------------------------------------------ text claims

#: text claims that are chapter values under the same id
_CHAPTER_CLAIMS = (
    "wb.counts.tasks",
    "wb.counts.occupations",
    "wb.counts.workers",
    "wb.desire.share_gt3",
    "wb.desire.share_ge4",
    "wb.desire.share_le2",
    "wb.reasons.n",
    "wb.rho.desire_jobsecurity",
    "wb.rho.desire_enjoyment",
    "wb.rho.capability_desire",
    "wb.has.matrix",
    "wb.has.diagonal",
    "wb.has.workers_more",
    "wb.skills.count",
)


def text_claims(result) -> dict:
    """The register's text claims (not table cells) that the released files determine (``result``: a
    :class:`~compendium.workbank.build.WorkbankResult`): the chapter's values
    under their claim ids, the authors' constructions of the paper section, and the claims that are a
    chapter value under another name."""
    v = result.values
    out = {k: v[k] for k in _CHAPTER_CLAIMS}
    out.update({k: x for k, x in v.items() if k.startswith("wb.reasons.")})
    out.update(result.paper.values)
    out["wb.counts.experts"] = v["wb.slips.n_experts"]
    out["wb.counts.min_experts_per_task"] = result.facts["experts_per_task_min"]
    for key in ("desire_jobsecurity", "desire_enjoyment", "capability_desire"):
        out[f"wb.rho.{key}_p_bound"] = v[f"wb.p.{key}"]
    return out


# ------------------------------------------------------------------------------------- assemble


def _frame_cells(values: dict, table: Mapping, frame: pd.DataFrame | None, missing: dict, why: str) -> None:
    """Set every cell id of ``table`` from ``frame`` (``None`` + ``missing`` where the frame has no value).
    A whole-table id (``existing_ids: {'*': id}``) is set elsewhere as one nested list and left alone."""
    if "*" in (table.get("existing_ids") or {}):
        return
    for (r, c), vid in cell_ids(table).items():
        x = None
        if frame is not None and r in frame.index and c in frame.columns:
            x = frame.loc[r, c]
            x = None if x is None or (isinstance(x, float) and np.isnan(x)) else float(x)
        values[vid] = x
        if x is None:
            missing[vid] = why if frame is None else f"{why} (no data row matches the register row {r!r})"


def _frames(result, tables: Mapping[str, Mapping]) -> tuple[dict, dict]:
    """``({table slug: (frame or None, what it needs)}, unique mapping totals)`` from the result's sections."""
    paper = result.paper.extra
    ext = paths.WORKBANK_EXTERNAL
    f5b, f5c, nbu, totals = paper["mapping"]
    claude, _claude_total = nb_claude_frame(paper["nb_claude"], tables["nb_claude"].get("row_labels", {}))

    coefs = result.tables["mixed_model_coefficients"]
    skill_ranks = result.tables["skill_ranks"]
    frames = {
        "table1": (table1_frame(coefs, tables["table1"]["row_labels"]), "data/workbank (worker desires and metadata)"),
        "table2": (
            table2_frame(paper["table2"], tables["table2"]["row_labels"]),
            "data/workbank/domain_worker_metadata.csv",
        ),
        "table3": (
            ranked_desire_frame(paper["table3_4"], tables["table3"]["row_labels"]),
            "data/workbank/domain_worker_desires.csv",
        ),
        "table4": (
            ranked_desire_frame(paper["table3_4"], tables["table4"]["row_labels"]),
            "data/workbank/domain_worker_desires.csv",
        ),
        "table5": (
            table5_frame(paper["occupation_has"], tables["table5"]["row_labels"]),
            "data/workbank (worker and expert HAS)",
        ),
        "table6": (None, AUDIO),
        "table7": (None, AUDIO),
        "fig4b": (paper["fig4b"], "data/workbank/domain_worker_desires.csv"),
        "fig5a": (paper["fig5a"], "data/workbank (landscape) and the SOC codes of task_statement_with_metadata.csv"),
        "fig5b": (f5b, f"{ext.relative_to(paths.ROOT)}/company_to_workflow_aggregation.csv (YC mappings)"),
        "fig5c": (f5c, f"{ext.relative_to(paths.ROOT)}/paper_to_workflow_mapping_aggregated.csv (arXiv mappings)"),
        "nb_unique": (
            nbu,
            (
                f"{ext.relative_to(paths.ROOT)}/company_to_workflow_aggregation.csv and "
                "paper_to_workflow_mapping_aggregated.csv"
            ),
        ),
        "fig6b": (paper["fig6b"], "data/workbank (worker HAS)"),
        "fig7": (fig7_frame(skill_ranks, tables["fig7"]["row_labels"]), "data/workbank (expert HAS, task metadata)"),
        "nb_claude": (claude, f"{ext.relative_to(paths.ROOT)}/usage_from_anthropic.csv (Anthropic Economic Index)"),
        "nb_has_avg": (paper["nb_has_avg"], "data/workbank"),
        "nb_h5": (paper["nb_h5"], "data/workbank"),
        "zones": (zones_frame({z: result.values[f"wb.zones.{z}"] for z in ZONES}), "data/workbank"),
    }
    return frames, totals


#: id(result) -> (values, missing): the mapping of one result, made once per result (it takes about 0.4 s, and the
#: chapter asks for it four times: the register's table twice, the phrases and publish); an entry goes with its result
_MAPPED: dict[int, tuple[dict, dict]] = {}


def register_values(result) -> tuple[dict, dict]:
    """Every WORKBank register cell and text claim of ``result`` (a :class:`~compendium.workbank.build.WorkbankResult`,
    which carries the register it is mapped to): ``(values, missing)`` (see the module docstring).

    Where one of the authors' external files was absent (``Inputs.usage``/``yc``/``papers`` None) its cells
    are ``None`` and ``missing`` names the file. Claims the release cannot give (``level: none``/``outside``
    without a bundled file) are ``None`` with the reason. Mapped once per result (a frozen result maps to the same
    cells every time); each call returns fresh dicts."""
    key = id(result)
    if key not in _MAPPED:
        _MAPPED[key] = _map(result)
        weakref.finalize(result, _MAPPED.pop, key, None)
    values, missing = _MAPPED[key]
    return dict(values), dict(missing)


def _map(result) -> tuple[dict, dict]:
    reg = result.register
    tables = {t["slug"]: t for t in reg["tables"]}
    values: dict = {}
    missing: dict = {}

    values.update(text_claims(result))
    values.update({k: x for k, x in result.values.items() if k.startswith("wb.alpha.")})
    values.update(mixed_model_stats(result.reliability.extra["summary"]))

    frames, totals = _frames(result, tables)
    if totals["yc"] is not None:
        values["wb.nb.unique_companies_total"] = totals["yc"]
    if totals["papers"] is not None:
        values["wb.nb.unique_papers_total"] = totals["papers"]
    for slug, t in tables.items():
        frame, why = frames.get(slug, (None, "no builder for this table"))
        _frame_cells(values, t, frame, missing, why)
    # nb_h5 variant: the experts' own H5 set (the authors' code reuses the workers' set)
    h5e = result.paper.extra["nb_h5_expert_set"]
    for r in h5e.index:
        values[f"wb.nb_h5.{r}.expert.variant.expert_h5_set"] = float(h5e.loc[r, "expert"])

    _claims_without_value(reg["claims"], values, missing)
    return values, missing


def _claims_without_value(claims, values: dict, missing: dict) -> None:
    """Claims without a value (quoted design constants, unreleased pipeline counts, outside data) set to None
    with the reason; every other None gets "input absent"."""
    for c in claims:
        cid = c["id"]
        if cid in values and (values[cid] is not None or cid in missing):
            continue
        values[cid] = None
        if c["level"] == "none":
            missing[cid] = "not in the released data: " + (
                c.get("note") or "a design constant or a statement of the paper with no released file behind it"
            )
        elif c["level"] == "outside":
            missing[cid] = "outside data not bundled in data/workbank/external: " + (c.get("note") or c["what"])
        else:
            missing[cid] = f"no builder computes this raw claim ({c['what']})"
    for k, x in list(values.items()):
        if x is None and k not in missing:
            missing[k] = "input absent"


def register_summary(values: Mapping, register: Mapping) -> pd.DataFrame:
    """Per table of ``register`` (the parsed ``published/workbank.yaml``): its slug and label, number of cells
    (whole-table ids count once per cell) and how many of them have a value (not ``None``) in ``values`` (the
    register's values, :func:`register_values`); the chapter's table ``register_summary``."""
    rows = []
    for t in register["tables"]:
        ids = cell_ids(t)
        null = sum(values.get(v) is None for v in ids.values())
        rows.append(
            {
                "table": t["slug"],
                "label": t["label"],
                "rows": len(t["rows"]),
                "cols": len(t["cols"]),
                "cells": len(ids),
                "computed": len(ids) - null,
                "null": null,
            }
        )
    return pd.DataFrame(rows)

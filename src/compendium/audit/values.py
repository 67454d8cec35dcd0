"""What the audit chapter records: the ``audit.*`` values of ``results/audit/values.json`` and its result tables
(``results/audit/tables/``), each a pure function of the result.

Judges are keyed by the model they also are (:data:`compendium.pwb.constants.MODEL_KEYS`: ``devstral``, ``gptoss``,
``gemma4``), references by ``panel`` (the other two panel judges) and ``outside`` (Claude, the fourth judge);
the leaderboards by ``pref`` (the preference study's five models) and ``pwb.baseline`` / ``pwb.prompted``. The
row-level audits (``audit.votes.*``) and the full PWB release's (``audit.judges.full.*``) are recorded only when
those data are present.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd

from compendium.pwb.constants import CONDITION_KEYS, MODEL_KEYS

if TYPE_CHECKING:
    from .build import AuditResult

__all__ = ["stage_values", "tables", "REFERENCE_KEYS", "judge_key"]

#: reference kind (judges.default_references) -> its key in the value ids
REFERENCE_KEYS = {"other panel judges": "panel", "outside judge": "outside"}


def judge_key(model: str | None, judge: str) -> str:
    """The value-id key of a judge: the key of the model it also is, else its name without " (judge)"."""
    if model in MODEL_KEYS:
        return MODEL_KEYS[model]
    return judge.removesuffix(" (judge)").lower().replace(" ", "_")


def _num(x: Any) -> Any:
    """A JSON-ready number (None for NaN)."""
    if x is None:
        return None
    try:
        f = float(x)
    except (TypeError, ValueError):
        return x
    if f != f:
        return None
    return int(f) if isinstance(x, (int,)) and not isinstance(x, bool) else f


def _self_preference(prefix: str, sp: pd.DataFrame) -> dict:
    v = {}
    for r in sp.itertuples():
        k = f"{prefix}.{judge_key(r.own_model, r.judge)}.{REFERENCE_KEYS.get(r.reference_kind, 'panel')}"
        for f in ("estimate", "lo", "hi", "se", "mde", "p", "mc_se_lo", "mc_se_hi"):
            v[f"{k}.{f}"] = _num(getattr(r, f))
        v[f"{k}.n_own"] = int(r.n_own)
        v[f"{k}.n_other"] = int(r.n_other)
    return v


def _pivotal(prefix: str, piv: pd.DataFrame, subjects) -> dict:
    own = dict(subjects)
    v = {}
    for r in piv.itertuples():
        k = f"{prefix}.{judge_key(own.get(r.judge), r.judge)}"
        for what in ("median", "pivotal", "changes_if_dropped"):
            v[f"{k}.{what}"] = float(getattr(r, f"share_{what}"))
            v[f"{k}.{what}_lo"] = float(getattr(r, f"lo_{what}"))
            v[f"{k}.{what}_hi"] = float(getattr(r, f"hi_{what}"))
    return v


def _recusal(prefix: str, rec, subjects) -> dict:
    own = dict(subjects)
    s = rec["summary"].set_index("rule")
    v = {}
    for rule, key in (("recusal", "recusal"), ("recusal, two judges everywhere", "recusal_even")):
        v[f"{prefix}.{key}.n_moved"] = int(s.loc[rule, "n_moved"])
        v[f"{prefix}.{key}.max_rank_change"] = int(s.loc[rule, "max_abs_rank_change"])
    for j, m in subjects:
        rule = f"without {j}"
        if rule in s.index:
            v[f"{prefix}.without.{judge_key(m, j)}.n_moved"] = int(s.loc[rule, "n_moved"])
            v[f"{prefix}.without.{judge_key(m, j)}.max_rank_change"] = int(s.loc[rule, "max_abs_rank_change"])
    for r in rec["net"].itertuples():
        v[f"{prefix}.net.{judge_key(own.get(r.judge), r.judge)}"] = float(r.net)
    return v


def _reliability(prefix: str, rel: pd.DataFrame) -> dict:
    pooled = rel[rel["dimension"] == "POOLED"].iloc[0]
    dims = rel[rel["dimension"] != "POOLED"]
    return {
        f"{prefix}.mean_r": float(pooled["mean_r"]),
        f"{prefix}.n_eff": float(pooled["n_eff"]),
        f"{prefix}.n_eff_min": float(dims["n_eff"].min()),
        f"{prefix}.n_eff_max": float(dims["n_eff"].max()),
        f"{prefix}.alpha": float(pooled["alpha"]),
    }


def _judges(r: AuditResult) -> dict:
    j = r.judges
    v: dict = {
        "audit.judges.n_items": int(j.unplaced["n_items"]),
        "audit.judges.n_placed": int(j.unplaced["n_placed"]),
        "audit.judges.n_unplaced": int(j.unplaced["n_unplaced"]),
    }
    v |= _self_preference("audit.judges.self", j.self_preference)
    v |= _pivotal("audit.judges.pivotal", j.pivotal, j.subjects)
    v |= _recusal("audit.judges.rule", j.recusal, j.subjects)
    v |= _reliability("audit.judges.panel", j.reliability)
    if j.full is not None:
        f = j.full
        v["audit.judges.full.n_runs"] = int(f.unplaced["n_runs"])
        v["audit.judges.full.n_placed"] = int(f.unplaced["n_placed"])
        v |= _self_preference("audit.judges.full.self", f.self_preference)
        cells = f.by_cell
        v["audit.judges.full.cells"] = int(len(cells))
        v["audit.judges.full.cells_excluding_0"] = int(((cells["lo"] > 0) | (cells["hi"] < 0)).sum())
        v |= _pivotal("audit.judges.full.pivotal", f.pivotal, j.subjects)
        v |= _recusal("audit.judges.full.rule", f.recusal, j.subjects)
        v |= _reliability("audit.judges.full.panel", f.reliability)
        if f.length is not None:
            pooled = f.length[f.length["model"] == "POOLED"]
            if len(pooled):
                p = pooled.iloc[0]
                for k in ("n", "slope", "slope_lo", "slope_hi", "rho"):
                    if k in p:
                        v[f"audit.judges.full.length.{k}"] = _num(p[k])
    return v


def _board(prefix: str, t: pd.DataFrame) -> dict:
    v = {
        f"{prefix}.n_models": int(len(t)),
        f"{prefix}.n_groups": int(t["group"].max()),
        f"{prefix}.critical_value": float(t["critical_value"].iloc[0]),
        f"{prefix}.critical_value_mc_se": float(t["critical_value_mc_se"].iloc[0]),
        f"{prefix}.mc_stable": int(bool(t["mc_stable"].all())),
        f"{prefix}.top_group_size": int((t["group"] == 1).sum()),
    }
    for row in t.itertuples():
        k = MODEL_KEYS.get(row.model, row.model)
        v[f"{prefix}.{k}.rank"] = int(row.rank)
        v[f"{prefix}.{k}.rank_lo"] = int(row.rank_lo)
        v[f"{prefix}.{k}.rank_hi"] = int(row.rank_hi)
        v[f"{prefix}.{k}.group"] = int(row.group)
    return v


def _ranks(r: AuditResult) -> dict:
    rk = r.ranks
    v = _board("audit.ranks.pref", rk.pref_groups)
    v["audit.ranks.pref.boot_same_groups"] = int(
        list(rk.pref_groups["group"]) == list(rk.pref_groups_boot["group"])
        and list(rk.pref_groups["model"]) == list(rk.pref_groups_boot["model"])
    )
    for cond, t in rk.pwb_groups.items():
        v |= _board(f"audit.ranks.pwb.{CONDITION_KEYS[cond]}", t)
    tr = rk.transitivity
    for k in ("G2", "df", "p_chi2", "p_boot", "p_boot_mc_se", "circular_triads", "max_circular_triads", "mdc"):
        v[f"audit.ranks.transitivity.{k}"] = _num(tr[k])
    for row in tr["power"].itertuples():
        v[f"audit.ranks.transitivity.power.{row.p_cycle:g}"] = float(row.power)
    return v


def _votes(r: AuditResult) -> dict:
    vo = r.votes
    v: dict = {"audit.votes.rowlevel": int(vo.position is not None)}
    if vo.position is not None:
        for k, x in vo.position.items():
            if isinstance(x, (int, float)) and not isinstance(x, bool):
                v[f"audit.votes.position.{k}"] = _num(x)
    if vo.raters_summary is not None:
        for k, x in vo.raters_summary.items():
            if isinstance(x, (int, float)) and not isinstance(x, bool):
                v[f"audit.votes.raters.{k}"] = _num(x)
    for k, x in vo.humaine.items():
        if isinstance(x, (int, float)) and not isinstance(x, bool):
            v[f"audit.humaine.{k}"] = _num(x)
    return v


def stage_values(result: AuditResult) -> dict:
    """The ``audit.*`` values of ``results/audit/values.json``."""
    return {**_judges(result), **_ranks(result), **_votes(result)}


def tables(result: AuditResult) -> dict[str, pd.DataFrame]:
    """The chapter's result tables, ``results/audit/tables/<name>.csv``."""
    j, rk, vo = result.judges, result.ranks, result.votes
    boards = [rk.pref_groups.assign(board="preferences")] + [
        t.assign(board=f"pwb {CONDITION_KEYS[c]}") for c, t in rk.pwb_groups.items()
    ]
    out = {
        "self_preference": j.self_preference,
        "pivotal": j.pivotal,
        "panel_rules": j.recusal["means"],
        "panel_rules_summary": j.recusal["summary"],
        "panel_rules_net": j.recusal["net"],
        "panel_reliability": j.reliability,
        "tie_groups": pd.concat(boards, ignore_index=True),
        "tie_groups_pref_bootstrap": rk.pref_groups_boot,
        "transitivity_power": rk.transitivity["power"],
    }
    if j.full is not None:
        out |= {
            "full_self_preference": j.full.self_preference,
            "full_self_preference_cells": j.full.by_cell,
            "full_pivotal": j.full.pivotal,
            "full_panel_rules_summary": j.full.recusal["summary"],
            "full_panel_reliability": j.full.reliability,
        }
        if j.full.recusal.get("pwi_summary") is not None:
            out["full_panel_rules_pwi"] = j.full.recusal["pwi_summary"]
        if j.full.length is not None:
            out["full_length_bias"] = j.full.length
    if vo.style is not None:
        out["style_controlled_bt"] = vo.style
    if vo.raters is not None:
        out["rater_influence"] = vo.raters
    if "table" in vo.humaine and isinstance(vo.humaine["table"], pd.DataFrame):
        out["humaine"] = vo.humaine["table"]
    return out

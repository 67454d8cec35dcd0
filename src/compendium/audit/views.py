"""The display copies of the audit chapter's tables: columns chosen and named for the page.

Each function takes a table of the result (:class:`.build.AuditResult`) and returns a new frame of strings and
numbers; the written CSVs (``results/audit/tables/``) keep the full columns.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from compendium.stats.mcdigits import mc_format, mc_step

from .summary import judge_label

__all__ = ["self_preference_view", "panel_rules_view", "pivotal_view", "reliability_view", "tie_groups_view"]

_REF = {"other panel judges": "other two panel judges", "outside judge": "outside judge (Claude)"}


def _interval(lo: float, hi: float, mc_se: float) -> str:
    step = max(mc_step(mc_se, rule="unit"), 0.01) if mc_se > 0 else 0.01
    return f"{mc_format(lo, step, 'down')} to {mc_format(hi, step, 'up')}"


def self_preference_view(sp: pd.DataFrame) -> pd.DataFrame:
    """One row per judge and reference: items, the difference in differences, its interval and the MDE."""
    return pd.DataFrame(
        {
            "judge (also a subject)": [judge_label(j) for j in sp["judge"]],
            "reference": [_REF.get(k, k) for k in sp["reference_kind"]],
            "own / other items": [f"{a} / {b}" for a, b in zip(sp["n_own"], sp["n_other"], strict=True)],
            "own minus other (points)": [f"{x:+.2f}" for x in sp["estimate"]],
            "interval": [
                _interval(lo, hi, max(a, b))
                for lo, hi, a, b in zip(sp["lo"], sp["hi"], sp["mc_se_lo"], sp["mc_se_hi"], strict=True)
            ],
            "detectable (80 % power)": [f"{x:.2f}" for x in sp["mde"]],
        }
    )


def panel_rules_view(rec: Mapping) -> pd.DataFrame:
    """The models' mean panel score and rank under each panel rule (one column per rule)."""
    m = rec["means"]
    rules = list(dict.fromkeys(m["rule"]))
    out = None
    for rule in rules:
        t = m[m["rule"] == rule].set_index("model")
        col = t.apply(lambda r: f"{r['mean']:.2f} ({int(r['rank'])})", axis=1).rename(
            rule.replace(" (judge)", "").replace("without ", "without ")
        )
        out = col.to_frame() if out is None else out.join(col)
    full = m[m["rule"] == "full panel"].sort_values("rank")["model"]
    return out.loc[list(full)].rename_axis("model").reset_index()


def pivotal_view(piv: pd.DataFrame) -> pd.DataFrame:
    """Per judge: how often its score is the panel's, could move it, and moves it when left out."""

    def pct(x, lo, hi):
        return f"{100 * x:.0f} % ({100 * lo:.0f}-{100 * hi:.0f})"

    return pd.DataFrame(
        {
            "judge": [judge_label(j) for j in piv["judge"]],
            "items": piv["n"],
            "its score is the panel's": [
                pct(*a) for a in zip(piv["share_median"], piv["lo_median"], piv["hi_median"], strict=True)
            ],
            "it could move the median": [
                pct(*a) for a in zip(piv["share_pivotal"], piv["lo_pivotal"], piv["hi_pivotal"], strict=True)
            ],
            "the panel changes without it": [
                pct(*a)
                for a in zip(
                    piv["share_changes_if_dropped"],
                    piv["lo_changes_if_dropped"],
                    piv["hi_changes_if_dropped"],
                    strict=True,
                )
            ],
        }
    )


def reliability_view(rel: pd.DataFrame) -> pd.DataFrame:
    """Per dimension: exact agreement, Krippendorff's alpha, mean inter-judge correlation, effective panel size."""
    return pd.DataFrame(
        {
            "dimension": [d.replace("_", " ") if d != "POOLED" else "all dimensions" for d in rel["dimension"]],
            "items": rel["n"],
            "exact agreement (%)": [f"{x:.0f}" for x in rel["exact"]],
            "alpha": [f"{x:.2f}" for x in rel["alpha"]],
            "mean r": [f"{x:.2f}" for x in rel["mean_r"]],
            "effective judges": [f"{x:.2f}" for x in rel["n_eff"]],
        }
    )


def tie_groups_view(boards: Mapping[str, pd.DataFrame], labels: Mapping[str, str] | None = None) -> pd.DataFrame:
    """One row per board and model: estimate, rank, simultaneous rank interval, tie group, step to the next."""
    labels = labels or {}
    rows = []
    for board, t in boards.items():
        for r in t.itertuples():
            # the PWB gaps come from one-decimal PWIs: one decimal; the log-strengths' gaps: two
            d = 2 if abs(r.estimate) < 1 else 1
            step = (
                ""
                if pd.isna(r.diff_next)
                else f"{r.diff_next:.{d}f} ({r.diff_next_lo:.{d}f} to {r.diff_next_hi:.{d}f})"
            )
            rows.append(
                {
                    "leaderboard": board,
                    "model": labels.get(r.model, r.model),
                    "estimate": f"{r.estimate:.3f}" if abs(r.estimate) < 1 else f"{r.estimate:.1f}",
                    "rank": int(r.rank),
                    "rank interval": f"{int(r.rank_lo)}-{int(r.rank_hi)}",
                    "tie group": int(r.group),
                    "gap to the next (simultaneous interval)": step,
                }
            )
    return pd.DataFrame(rows)

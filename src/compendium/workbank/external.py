"""WORKBank against outside data (paper §3.2 and the appendix): Claude.ai usage, YC companies and arXiv
papers per zone, and the sample against BLS employment and CPS demographics.

Definitions (METHODS, WORKBank):
  * Claude.ai usage share: Anthropic Economic Index task ``pct``, joined on lower-cased task text; the
    share summed over the tasks of the top-10 occupations by mean desire (occupation mean = mean of its
    task means Aw(t)).
  * YC-company / arXiv-paper mappings per task (LLM-made by the authors): density per zone = sum of
    counts / tasks in zone; the "41.0%" = (Red + Low mapping counts) / all mapping counts. The authors
    join on task text alone, so a text shared by several occupations in the mapping file (teachers'
    tasks) adds every row's count; :func:`mapping_density` also offers the (task, occupation) join.
  * BLS tables as published: numbers with thousands separators, "–" for suppressed cells, multi-line
    headers with stray spaces (``'16 to 19 \\nyears'``) in the age table, and different names for the
    total row ("Total employed" vs "Total, 16 years and over").
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .common import OCC, TASK, ZONES, require_columns

__all__ = [
    "claude_top_share",
    "mapping_density",
    "bls_number",
    "tidy_bls_columns",
    "bls_total_row",
    "bls_age_shares",
    "bls_race_gender_shares",
    "bls_sector_employment",
    "sample_vs_bls_sectors",
]


def claude_top_share(tasks: pd.DataFrame, usage: pd.DataFrame, n_top: int = 10) -> tuple[float, pd.DataFrame]:
    """Claude.ai usage share (%) of the tasks of the ``n_top`` occupations with the highest mean desire.

    ``tasks``: task desire table (index task text, columns occupation, desire). Returns ``(share, table)``
    where the table lists the occupations with mean desire, n tasks, n tasks found in the usage file and
    their summed usage share.
    """
    require_columns(tasks, ["occupation", "desire"], "task desire table")
    require_columns(usage, ["task_name", "pct"], "Claude usage")
    occ = tasks.groupby("occupation")["desire"].mean().sort_values(ascending=False, kind="mergesort")
    top = occ.head(n_top).index
    u = usage.assign(key=usage["task_name"].str.lower()).groupby("key")["pct"].sum()
    t = tasks[tasks["occupation"].isin(top)].reset_index()
    t["key"] = t[TASK].str.lower()
    t["usage_pct"] = t["key"].map(u)
    # a lower-cased text shared by two tasks of the top occupations counts once
    t_unique = t.drop_duplicates("key")
    g = t_unique.groupby("occupation")
    table = pd.DataFrame(
        {
            "mean_desire": occ.loc[top],
            "n_tasks": t.groupby("occupation").size(),
            "n_tasks_in_usage": g["usage_pct"].count(),
            "usage_pct": g["usage_pct"].sum(),
        }
    ).reset_index()
    table = (
        table.rename(columns={"index": "occupation"})
        .sort_values(["mean_desire", "occupation"], ascending=[False, True], kind="mergesort")
        .reset_index(drop=True)
    )
    return float(t_unique["usage_pct"].sum()), table


def mapping_density(
    landscape: pd.DataFrame, mappings: pd.DataFrame, count_col: str, join: str = "task"
) -> tuple[pd.DataFrame, float]:
    """Mappings (YC companies or arXiv papers) per zone.

    ``landscape`` needs columns occupation, zone (index = task text). ``join='task'`` (the authors')
    sums every mapping row with the task's text; ``join='task_occupation'`` also requires the occupation
    to match. Returns ``(table, red_low_share)``: per zone n_tasks, n_mapped (tasks with >= 1 row),
    total, density (= total / n_tasks), share_of_total (%); red_low_share = % of all counts in Red + Low.
    """
    require_columns(landscape, ["occupation", "zone"], "landscape")
    require_columns(mappings, ["task", "occupation", count_col], "mappings")
    lk = landscape.reset_index()[[TASK, "occupation", "zone"]]
    if join == "task":
        per = mappings.groupby("task")[count_col].sum()
        lk["count"] = lk[TASK].map(per)
    elif join == "task_occupation":
        per = mappings.set_index(["task", "occupation"])[count_col]
        lk["count"] = pd.MultiIndex.from_frame(lk[[TASK, "occupation"]]).map(per.to_dict().get)
        lk["count"] = pd.to_numeric(lk["count"])
    else:
        raise ValueError(f"mapping_density: join must be 'task' or 'task_occupation', got {join!r}")
    g = lk.groupby("zone")
    t = (
        pd.DataFrame({"n_tasks": g.size(), "n_mapped": g["count"].count(), "total": g["count"].sum()})
        .reindex(list(ZONES))
        .fillna(0)
    )
    t["density"] = t["total"] / t["n_tasks"]
    t["share_of_total"] = 100 * t["total"] / t["total"].sum()
    t.index.name = "zone"
    red_low = float(t.loc[["red", "low"], "total"].sum() / t["total"].sum() * 100)
    return t.reset_index(), red_low


# --------------------------------------------------------------------------------------------- BLS


def bls_number(x) -> float:
    """A BLS cell as a number: ``'161,346' -> 161346``; ``'–'`` (suppressed), ``'#'``, ``''`` -> NaN."""
    if x is None or (isinstance(x, float) and np.isnan(x)):
        return np.nan
    s = str(x).strip().replace(",", "")
    if s in {"", "–", "-", "—", "#", "*", "**"}:
        return np.nan
    try:
        return float(s)
    except ValueError as exc:
        raise ValueError(f"BLS table: cannot read {x!r} as a number") from exc


def tidy_bls_columns(df: pd.DataFrame) -> pd.DataFrame:
    """Collapse the multi-line, space-padded headers of the BLS CPS tables
    (``'Total, 16\\nyears and\\n over' -> 'Total, 16 years and over'``)."""
    return df.rename(columns=lambda c: " ".join(str(c).split()))


def bls_total_row(df: pd.DataFrame, what: str) -> pd.Series:
    """The all-occupations row: "Total employed" (age table) or "Total, 16 years and over" (race table)."""
    require_columns(df, ["Occupation"], what)
    occ = df["Occupation"].astype("string").fillna("").str.strip()
    hit = df[occ.str.match(r"^Total(,| employed)")]
    if len(hit) != 1:
        raise ValueError(
            f"{what}: expected exactly one total row ('Total employed' or 'Total, 16 years and "
            f"over') in column 'Occupation', found {len(hit)}"
        )
    return hit.iloc[0]


AGE_BANDS = (
    "16 to 19 years",
    "20 to 24 years",
    "25 to 34 years",
    "35 to 44 years",
    "45 to 54 years",
    "55 to 64 years",
    "65 years and over",
)


def bls_age_shares(bls_age: pd.DataFrame) -> pd.Series:
    """Share of all employed (CPS 2024, 16+) in each age band, from the total row; sums to 1."""
    df = tidy_bls_columns(bls_age)
    require_columns(df, ["Occupation", *AGE_BANDS], "BLS age table")
    row = bls_total_row(df, "BLS age table")
    counts = pd.Series({b: bls_number(row[b]) for b in AGE_BANDS})
    total = bls_number(row["Total, 16 years and over"]) if "Total, 16 years and over" in df.columns else np.nan
    if counts.isna().any():
        raise ValueError(f"BLS age table: total row has missing age counts {counts.to_dict()}")
    if np.isfinite(total) and abs(counts.sum() - total) > 0.01 * total:
        raise ValueError(f"BLS age table: age bands sum to {counts.sum():,.0f}, total says {total:,.0f}")
    return counts / counts.sum()


def bls_race_gender_shares(bls_race_gender: pd.DataFrame) -> dict[str, float]:
    """Shares (0-1) of all employed: women, and the race groups White, Black, Asian, with the remainder
    ("other races", not shown by BLS) = 1 - White - Black - Asian; and Hispanic or Latino (an
    *ethnicity* that overlaps the races, so it is not part of the race total)."""
    df = tidy_bls_columns(bls_race_gender)
    cols = ["Women", "White", "Black or African American", "Asian", "Hispanic or Latino"]
    require_columns(df, ["Occupation", *cols], "BLS race/gender table")
    row = bls_total_row(df, "BLS race/gender table")
    v = {c: bls_number(row[c]) / 100 for c in cols}
    other = 1 - v["White"] - v["Black or African American"] - v["Asian"]
    if other < 0:
        raise ValueError("BLS race/gender table: White + Black + Asian exceed 100 %")
    return {
        "women": v["Women"],
        "white": v["White"],
        "black": v["Black or African American"],
        "asian": v["Asian"],
        "other_race": other,
        "hispanic": v["Hispanic or Latino"],
    }


def bls_sector_employment(bls_wages: pd.DataFrame) -> pd.DataFrame:
    """Employment (OEWS May 2024) per SOC major group: sector_code, sector, employment, share (%)."""
    require_columns(bls_wages, ["OCC_CODE", "OCC_TITLE", "O_GROUP", "TOT_EMP"], "BLS wage data")
    major = bls_wages[bls_wages["O_GROUP"] == "major"]
    emp = major["TOT_EMP"].map(bls_number)
    out = pd.DataFrame(
        {
            "sector_code": major["OCC_CODE"].str[:2].to_numpy(),
            "sector": major["OCC_TITLE"].str.replace(r"\s+Occupations$", "", regex=True).to_numpy(),
            "employment": emp.to_numpy(),
        }
    )
    out["share"] = 100 * out["employment"] / out["employment"].sum()
    return out


def sample_vs_bls_sectors(metadata: pd.DataFrame, sectors: pd.DataFrame, bls_wages: pd.DataFrame) -> pd.DataFrame:
    """Workers in the sample per SOC major group vs the BLS employment share (%), all 22 groups."""
    require_columns(metadata, [OCC], "worker metadata")
    s = metadata[OCC].map(sectors["sector_code"])
    if s.isna().any():
        raise ValueError(f"worker metadata: occupation {metadata.loc[s.isna(), OCC].iloc[0]!r} has no SOC sector")
    emp = bls_sector_employment(bls_wages)
    n = s.value_counts()
    emp["n_workers"] = emp["sector_code"].map(n).fillna(0).astype(int)
    emp["sample_share"] = 100 * emp["n_workers"] / emp["n_workers"].sum()
    return emp[["sector_code", "sector", "n_workers", "sample_share", "employment", "share"]].rename(
        columns={"share": "bls_share"}
    )

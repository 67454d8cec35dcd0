"""The authors' own constructions behind the register's tables and text claims (SALT-NLP/workbank @ 6845ff5,
``analysis/*.ipynb``), from the raw frames: the statistics only the register needs.

:func:`compendium.workbank.build` calls these once, in its ``paper`` section
(:func:`.sections.paper_section`); :mod:`.register` then only maps the frames to the register's row and
column slugs and claim ids. Where the project prefers another definition it is computed beside the authors'
(``<id>.variant.<slug>``).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy import stats
from scipy.spatial.distance import jensenshannon

from compendium.pipeline.params import WORKBANK_PAPER_CUTOFF as PAPER_CUTOFF

from . import skills
from .common import (
    DESIRE,
    DESIRE_REASONS,
    ENJOYMENT,
    HAS,
    JOB_SECURITY,
    OCC,
    SKILL,
    TASK,
    TASK_CHARACTERISTICS,
    USER,
    ZONES,
    require_columns,
)

__all__ = [
    "CHARACTERISTICS",
    "FIG4B_REASONS",
    "FIG5A_SECTORS",
    "SECTOR_CLAIMS",
    "claude_occupations",
    "design_checks",
    "expert_sd_max",
    "fig4b_frame",
    "fig5a_frame",
    "fig6b_frame",
    "mapping_frames",
    "merged_task_means",
    "n_all_skills",
    "nb_h5_frame",
    "nb_has_avg_frame",
    "norm_text",
    "occupation_has",
    "occupation_pools",
    "occupation_task_desire",
    "participants_per_occupation",
    "text_claim_stats",
]

#: fig5a row slug -> SOC major group name (BLS OEWS "major" rows)
FIG5A_SECTORS = {
    "computer_math": "Computer and Mathematical",
    "management": "Management",
    "business": "Business and Financial Operations",
    "arts": "Arts, Design, Entertainment, Sports, and Media",
    "office": "Office and Administrative Support",
    "sales": "Sales and Related",
    "education": "Educational Instruction and Library",
}
#: text-claim sector slug (wb.sector.<slug>_share_gt3) -> SOC major group name
SECTOR_CLAIMS = {
    "computer_math": FIG5A_SECTORS["computer_math"],
    "office": FIG5A_SECTORS["office"],
    "management": "Management",
    "sales": "Sales and Related",
    "business": FIG5A_SECTORS["business"],
    "education": FIG5A_SECTORS["education"],
    "arts": FIG5A_SECTORS["arts"],
}
#: register column prefix -> rating column of the task characteristics (nb_has_avg, nb_h5)
CHARACTERISTICS = {
    "has": HAS,
    "physical": TASK_CHARACTERISTICS["physical_action"],
    "interpersonal": TASK_CHARACTERISTICS["interpersonal_communication"],
    "uncertainty": TASK_CHARACTERISTICS["uncertainty"],
    "domain": TASK_CHARACTERISTICS["domain_expertise"],
}
FIG4B_REASONS = {
    "free_time": DESIRE_REASONS["free_time"],
    "repetitive": DESIRE_REASONS["repetitive"],
    "quality": DESIRE_REASONS["human_error"],
    "stress": DESIRE_REASONS["stress"],
    "difficulty": DESIRE_REASONS["difficulty"],
}


def norm_text(s: str) -> str:
    """Text key for matching labels to data: NFKC, curly quotes straight, lower case, one space, no
    trailing period."""
    import unicodedata

    s = unicodedata.normalize("NFKC", str(s)).replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    s = " ".join(s.lower().split())
    return s.rstrip(". ")


# ---------------------------------------------------------------------------------- tables 2, 3, 4


def participants_per_occupation(metadata: pd.DataFrame) -> pd.Series:
    """Paper Table 2: survey participants (rows of the worker metadata file) per occupation."""
    require_columns(metadata, [USER, OCC], "worker metadata")
    return metadata.groupby(OCC)[USER].size()


def occupation_task_desire(desires: pd.DataFrame) -> pd.Series:
    """Paper Tables 3/4: Aw(t) per ``"Occupation: Task"`` (the authors sort these means; the order among ties
    is implementation-defined, so the register finds each printed row by its text)."""
    require_columns(desires, [TASK, OCC, DESIRE], "worker desires")
    g = desires.groupby([OCC, TASK])[DESIRE].mean()
    return pd.Series(g.to_numpy(), index=pd.Index([f"{o}: {t}" for o, t in g.index]))


# ------------------------------------------------------------------------ occupation-level HAS


def occupation_pools(desires: pd.DataFrame, metadata: pd.DataFrame, experts: pd.DataFrame):
    """The authors' occupation pools (human_agency_scale.ipynb): an occupation's tasks are the task texts
    whose last worker row names it; worker ratings are those of the occupation's metadata users on those
    tasks, expert ratings every expert row on those tasks (repeated rows included)."""
    require_columns(desires, [USER, OCC, TASK, HAS], "worker desires")
    require_columns(metadata, [USER, OCC], "worker metadata")
    require_columns(experts, [TASK, HAS], "expert ratings")
    task_occ = desires.groupby(TASK, sort=False)[OCC].last()
    users = metadata.groupby(OCC)[USER].apply(set)
    out = {}
    for occ, tasks in task_occ.groupby(task_occ, sort=False):
        ts = set(tasks.index)
        w = desires[desires[USER].isin(users.get(occ, set())) & desires[TASK].isin(ts)]
        e = experts[experts[TASK].isin(ts)]
        out[occ] = (ts, w[HAS].to_numpy(), e[HAS].to_numpy())
    return out


def _hist(x: np.ndarray) -> np.ndarray:
    h = np.array([(x == k).sum() for k in range(1, 6)], dtype=float)
    return h / h.sum() if h.sum() else h


def occupation_has(desires=None, metadata=None, experts=None, *, pools=None) -> pd.DataFrame:
    """Per occupation: worker and expert dominant HAS level (lowest level on ties, as ``list.index(max)``)
    and the Jensen-Shannon distance (base 2) of the two normalised histograms. ``pools``: the result of
    :func:`occupation_pools` (computed from the three frames when not given)."""
    if pools is None:
        pools = occupation_pools(desires, metadata, experts)
    rows = []
    for occ, (_, w, e) in pools.items():
        hw, he = _hist(w), _hist(e)
        rows.append(
            {
                "occupation": occ,
                "worker_level": int(np.argmax(hw)) + 1,
                "expert_level": int(np.argmax(he)) + 1,
                "jsd": float(jensenshannon(hw, he, base=2)),
            }
        )
    return pd.DataFrame(rows).set_index("occupation")


def fig6b_frame(occ_has: pd.DataFrame) -> pd.DataFrame:
    """Fig 6b: % of occupations by dominant worker-desired HAS level (rows h1..h5)."""
    n = occ_has["worker_level"].value_counts().reindex(range(1, 6), fill_value=0)
    return pd.DataFrame(
        {"pct": 100 * n.to_numpy() / len(occ_has), "n": n.to_numpy().astype(float)},
        index=pd.Index([f"h{k}" for k in range(1, 6)], name="row"),
    )


# --------------------------------------------------------------------------------------- fig 4b


def fig4b_frame(desires: pd.DataFrame) -> pd.DataFrame:
    """Fig 4b bar labels: responses with desire exactly 3, 4, 5 that selected each reason."""
    require_columns(desires, [DESIRE, *FIG4B_REASONS.values()], "worker desires")
    rows = {}
    for slug, col in FIG4B_REASONS.items():
        rows[slug] = {f"rating{k}": float(desires.loc[desires[DESIRE] == k, col].astype(bool).sum()) for k in (3, 4, 5)}
    out = pd.DataFrame(rows).T
    out.index.name = "row"
    return out


# ------------------------------------------------------------------------------------ landscape


def fig5a_frame(land: pd.DataFrame, sectors: pd.DataFrame) -> pd.DataFrame:
    """Fig 5a sector panels: % and number of the sector's landscape tasks per zone (rows: the seven
    sectors of the authors' notebook, as SOC major groups)."""
    s = land.join(sectors, on="occupation")
    rows = {}
    for slug, name in FIG5A_SECTORS.items():
        z = s.loc[s["sector"] == name, "zone"]
        n = z.value_counts().reindex(list(ZONES), fill_value=0)
        row = {f"{k}_n": float(n[k]) for k in ZONES}
        row.update({k: (100 * n[k] / len(z) if len(z) else np.nan) for k in ZONES})
        rows[slug] = row
    out = pd.DataFrame(rows).T[["green", "red", "rnd", "low", "green_n", "red_n", "rnd_n", "low_n"]]
    out.index.name = "row"
    return out


def mapping_frames(land: pd.DataFrame, yc: pd.DataFrame | None, papers: pd.DataFrame | None):
    """Fig 5b/5c and the notebook's unique counts (automation_viability.ipynb cells 9-10).

    Every mapping row whose task *text* is in the landscape adds its count to the task's zone (the
    authors' join); unique companies are the ``;``-separated names, unique papers the ``,``-separated
    ids, stripped. Returns ``(fig5b, fig5c, nb_unique, totals)``; a frame is ``None`` when its file is."""
    zone_of = land["zone"]
    n_tasks = zone_of.value_counts().reindex(list(ZONES), fill_value=0)

    def per_zone(df, count_col, list_col, sep):
        if df is None:
            return None, None, None
        require_columns(df, ["task", count_col, list_col], "mapping file")
        d = df[df["task"].isin(zone_of.index)]
        z = d["task"].map(zone_of)
        total = d.groupby(z)[count_col].sum().reindex(list(ZONES), fill_value=0).astype(float)
        uniq = {k: set() for k in ZONES}
        for zone, items in zip(z, d[list_col].astype(str)):
            uniq[zone].update(x.strip() for x in items.split(sep))
        nu = pd.Series({k: float(len(uniq[k])) for k in ZONES})
        allu = float(len(set().union(*uniq.values())))
        return total, nu, allu

    yt, yu, yall = per_zone(yc, "company_count", "company", ";")
    pt, pu, pall = per_zone(papers, "paper_count", "paper_ids", ",")
    idx = pd.Index(list(ZONES), name="row")
    nt = n_tasks.to_numpy(dtype=float, copy=True)
    nt[nt == 0] = np.nan  # an empty zone has no density
    f5b = None if yt is None else pd.DataFrame({"per_task": yt.to_numpy() / nt, "mappings": yt.to_numpy()}, index=idx)
    f5c = None if pt is None else pd.DataFrame({"per_task": pt.to_numpy() / nt, "mappings": pt.to_numpy()}, index=idx)
    nan = np.full(len(ZONES), np.nan)
    nbu = pd.DataFrame(
        {
            "yc": nan if yu is None else yu.to_numpy(),
            "yc_per_task": nan if yu is None else yu.to_numpy() / nt,
            "papers": nan if pu is None else pu.to_numpy(),
            "papers_per_task": nan if pu is None else pu.to_numpy() / nt,
        },
        index=idx,
    )
    return f5b, f5c, nbu, {"yc": yall, "papers": pall}


# --------------------------------------------------------------------------------------- fig 7


def n_all_skills(task_metadata: pd.DataFrame) -> int:
    """Distinct skill names in the task metadata (human_skill_shift.ipynb cell 1)."""
    require_columns(task_metadata, [SKILL], "task metadata")
    return len({s for v in task_metadata[SKILL] for s in skills.parse_skill_list(v) if isinstance(s, str)})


# ---------------------------------------------------------------------------------- nb_claude


def claude_occupations(desires: pd.DataFrame, usage: pd.DataFrame | None) -> tuple[pd.DataFrame, float] | None:
    """Claude.ai usage per occupation, the authors' way (automation_desire.ipynb cell 13): task means by task
    text, occupation = first row's; task text lower-cased and *left-joined* to the usage file on
    ``task_name`` (each matching usage row counts); per occupation the mean of task desire and the sum of
    ``pct``. Returns ``(per occupation: desire, pct, in_top10, top-10 sum)``, or None without the file."""
    if usage is None:
        return None
    require_columns(desires, [TASK, OCC, DESIRE], "worker desires")
    require_columns(usage, ["task_name", "pct"], "Claude usage")
    t = desires.groupby(TASK).agg(desire=(DESIRE, "mean"), occupation=(OCC, "first")).reset_index()
    t["key"] = t[TASK].str.lower()
    m = t.merge(usage.rename(columns={"task_name": "key"}), on="key", how="left")
    occ = m.groupby("occupation").agg(desire=("desire", "mean"), pct=("pct", "sum"))
    top = occ.sort_values("desire", ascending=False, kind="mergesort").head(10)
    return occ.assign(in_top10=occ.index.isin(top.index)), float(top["pct"].sum())


# -------------------------------------------------------------------------- task characteristics


def merged_task_means(desires: pd.DataFrame, experts: pd.DataFrame) -> pd.DataFrame:
    """human_agency_scale.ipynb cell 10: worker and expert task means of HAS and the four characteristics,
    inner-joined on task text, with the task's first worker-row occupation."""
    cols = list(CHARACTERISTICS.values())
    require_columns(desires, [TASK, OCC, *cols], "worker desires")
    require_columns(experts, [TASK, *cols], "expert ratings")
    w = desires.groupby(TASK)[cols].mean()
    e = experts.groupby(TASK)[cols].mean()
    m = w.merge(e, how="inner", left_index=True, right_index=True, suffixes=("_worker", "_expert"))
    m["occupation"] = desires.drop_duplicates(TASK).set_index(TASK)[OCC].reindex(m.index)
    return m


def nb_has_avg_frame(merged: pd.DataFrame, row_labels: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Mean over tasks of the worker and expert task means (all tasks, and per occupation), cell 11.
    ``merged``: :func:`merged_task_means`."""
    labels = dict(row_labels or {})
    subsets = {"all": merged}
    for slug in ("editors", "mathematicians", "aerospace_engineers"):
        name = labels.get(slug, slug.replace("_", " ").title())
        subsets[slug] = merged[merged["occupation"].map(norm_text) == norm_text(name)]
    rows = {}
    for slug, sub in subsets.items():
        row = {}
        for k, col in CHARACTERISTICS.items():
            row[f"{k}_worker"] = float(sub[f"{col}_worker"].mean()) if len(sub) else np.nan
            row[f"{k}_expert"] = float(sub[f"{col}_expert"].mean()) if len(sub) else np.nan
        rows[slug] = row
    out = pd.DataFrame(rows).T
    out.index.name = "row"
    return out


def nb_h5_frame(merged: pd.DataFrame, pools: Mapping, expert_set: str) -> pd.DataFrame:
    """Radar inputs of Fig 6c/6d (cell 12): mean task means over the tasks of the occupations whose
    dominant worker level is H5 (``worker``), and the experts' means over a task set: ``expert_set =
    'worker'`` is the authors' code (it reuses the worker H5 set), ``'expert'`` the experts' own H5 set.
    ``merged``: :func:`merged_task_means`; ``pools``: :func:`occupation_pools`."""
    w5, e5 = set(), set()
    for ts, w, e in pools.values():
        if np.argmax(_hist(w)) == 4:
            w5 |= ts
        if np.argmax(_hist(e)) == 4:
            e5 |= ts
    ws = merged[merged.index.isin(w5)]
    es = ws if expert_set == "worker" else merged[merged.index.isin(e5)]
    rows = {
        k: {
            "worker": float(ws[f"{col}_worker"].mean()) if len(ws) else np.nan,
            "expert": float(es[f"{col}_expert"].mean()) if len(es) else np.nan,
        }
        for k, col in CHARACTERISTICS.items()
    }
    out = pd.DataFrame(rows).T
    out.index.name = "row"
    return out


# ------------------------------------------------------------------------------------ text claims


def expert_sd_max(experts: pd.DataFrame, ddof: int) -> float:
    """Largest per-task standard deviation of the expert capability and HAS ratings (paper §2.5: "standard
    deviation <= 1" after additional reviews). The paper does not say which SD; ``ddof=0`` (the population
    SD, numpy's default) is the one under which the data meet the criterion, with the maximum exactly at
    the threshold (e.g. ratings {1, 3}); with ``ddof=1`` the same pair has SD 1.41."""
    from .common import CAPABILITY

    require_columns(experts, [TASK, CAPABILITY, HAS], "expert ratings")
    return float(experts.groupby(TASK)[[CAPABILITY, HAS]].std(ddof=ddof).max().max())


def design_checks(desires: pd.DataFrame) -> dict[str, float]:
    """Design constants the worker file itself shows: the number of points of the 1-5 scales (every
    Likert column and the HAS), and the lowest desire rating among responses that give a reason for
    automation desire (the T.A4 follow-up is shown if T.A3 >= 3)."""
    likert = [DESIRE, JOB_SECURITY, ENJOYMENT, *TASK_CHARACTERISTICS.values()]
    require_columns(desires, [*likert, HAS, *DESIRE_REASONS.values()], "worker desires")
    any_reason = desires[list(DESIRE_REASONS.values())].astype(bool).any(axis=1)
    return {
        "wb.design.likert_points": int(max(desires[c].nunique() for c in likert)),
        "wb.design.has_levels": int(desires[HAS].nunique()),
        "wb.design.followup_threshold": float(desires.loc[any_reason, DESIRE].min()),
    }


def text_claim_stats(desires, metadata, experts, task_metadata, sectors, merged, papers=None) -> dict:
    """The register's text claims that no chapter section computes, by the authors' constructions: the
    survey's design counts, the sector shares over each sector's responses (automation_desire.ipynb cell 9),
    response-level correlations, worker-expert correlations of the task means (``merged``:
    :func:`merged_task_means`), the number of skills and the top paper counts."""
    v: dict = {
        "wb.counts.onet_tasks": len(task_metadata),
        "wb.counts.onet_occupations": int(task_metadata[OCC].nunique()),
        "wb.counts.min_participants_per_occupation": int(metadata.groupby(OCC)[USER].nunique().min()),
        "wb.counts.min_experts_per_task": int(experts.drop_duplicates().groupby(TASK)[USER].nunique().min()),
        "wb.counts.expert_sd_max": expert_sd_max(experts, ddof=0),
        "wb.counts.expert_sd_max.variant.sample_sd": expert_sd_max(experts, ddof=1),
    }
    v.update(design_checks(desires))
    s = desires[OCC].map(sectors["sector"])
    for slug, name in SECTOR_CLAIMS.items():
        sub = desires[s == name]
        share = float(100 * (sub.groupby(TASK)[DESIRE].mean() > PAPER_CUTOFF).mean()) if len(sub) else None
        v[f"wb.sector.{slug}_share_gt3"] = share
    for key, col in [("resp_desire_jobsecurity", JOB_SECURITY), ("resp_desire_enjoyment", ENJOYMENT)]:
        r = stats.spearmanr(desires[DESIRE].to_numpy(float), desires[col].to_numpy(float))
        v[f"wb.rho.{key}"], v[f"wb.rho.{key}_p"] = float(r.statistic), float(r.pvalue)
    for k, col in CHARACTERISTICS.items():
        slug = "rho_has" if k == "has" else f"rho_{k}"
        r = stats.spearmanr(merged[f"{col}_worker"], merged[f"{col}_expert"])
        v[f"wb.nb_has.{slug}"], v[f"wb.nb_has.{slug}_p"] = float(r.statistic), float(r.pvalue)
    v["wb.skills.n_all"] = n_all_skills(task_metadata)
    if papers is not None:
        top = papers.sort_values("paper_count", ascending=False, kind="mergesort")["paper_count"].head(3).tolist()
        for i, n in enumerate(top, 1):
            v[f"wb.papers.top_task_{i}"] = float(n)
    return v

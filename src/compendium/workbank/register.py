"""Every cell of the WORKBank register (``published/workbank.yaml``) and every text claim, from raw data.

:func:`register_values` returns ``(values, missing)`` for the values contract: one key per claim id and
per cell of every register table (``tables:``; id_pattern with ``{row}``/``{col}``, or the cell's
``existing_ids`` entry), a number where its inputs exist and ``None`` with the missing input named
otherwise. Each table is built as a data frame (rows = the register's row slugs, columns = its column
slugs) by a ``*_frame`` function from the lowest data level that determines it; the functions follow
the authors' notebooks (SALT-NLP/workbank @ 6845ff5, ``analysis/*.ipynb``) exactly, and where the
project prefers another definition the alternative is published beside it as ``<id>.variant.<slug>``.

The register's ``row_labels`` (occupation titles, task texts, statsmodels term names, skill names) are
identifiers used to find a row in the data; no published number is ever read.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy import stats
from scipy.spatial.distance import jensenshannon

from .. import paths, yamlfile
from . import agency, desire, landscape, reliability, skills
from .common import (
    CAPABILITY,
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
    "PROVENANCE",
    "alpha_authors",
    "alpha_values",
    "cell_ids",
    "design_checks",
    "disagreements",
    "expert_sd_max",
    "fig4b_frame",
    "fig5a_frame",
    "fig6b_frame",
    "fig7_frame",
    "load_register",
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

T = "tests/unit/test_workbank_register.py"
#: id prefix -> "function (test)"; the claims engine links each claim to the longest matching prefix.
PROVENANCE: dict[str, str] = {
    "wb.table1.": f"compendium.workbank.register.table1_frame ({T}::test_table1_matches_statsmodels_formula)",
    "wb.table2.": f"compendium.workbank.register.table2_frame ({T}::test_table2_counts_by_hand)",
    "wb.table3.": f"compendium.workbank.register.ranked_desire_frame ({T}::test_ranked_desire_frame_groupby)",
    "wb.table4.": f"compendium.workbank.register.ranked_desire_frame ({T}::test_ranked_desire_frame_groupby)",
    "wb.table5.": f"compendium.workbank.register.table5_frame ({T}::test_table5_hand_case)",
    "wb.table6.": f"compendium.workbank.register.register_values ({T}::test_every_register_cell_is_produced)",
    "wb.table7.": f"compendium.workbank.register.register_values ({T}::test_every_register_cell_is_produced)",
    "wb.fig4b.": f"compendium.workbank.register.fig4b_frame ({T}::test_fig4b_crosstab)",
    "wb.fig5a.": f"compendium.workbank.register.fig5a_frame ({T}::test_fig5a_hand_case)",
    "wb.zones.cm_": f"compendium.workbank.register.fig5a_frame ({T}::test_fig5a_hand_case)",
    "wb.fig5b.": f"compendium.workbank.register.mapping_frames ({T}::test_mapping_frames_hand_case)",
    "wb.fig5c.": f"compendium.workbank.register.mapping_frames ({T}::test_mapping_frames_hand_case)",
    "wb.nb_unique.": f"compendium.workbank.register.mapping_frames ({T}::test_mapping_frames_hand_case)",
    "wb.nb.unique_": f"compendium.workbank.register.mapping_frames ({T}::test_mapping_frames_hand_case)",
    "wb.papers.top_task_": f"compendium.workbank.register.text_claims ({T}::test_text_claims_on_real_data)",
    "wb.fig6b.": f"compendium.workbank.register.fig6b_frame ({T}::test_fig6b_and_table5_loop)",
    "wb.has.occ_": f"compendium.workbank.register.fig6b_frame ({T}::test_fig6b_and_table5_loop)",
    "wb.has.matrix": f"compendium.workbank.register.text_claims ({T}::test_has_matrix_loop)",
    "wb.has.": f"compendium.workbank.register.text_claims ({T}::test_has_matrix_loop)",
    "wb.fig7.": f"compendium.workbank.register.fig7_frame ({T}::test_fig7_loop)",
    "wb.nb_claude.": f"compendium.workbank.register.nb_claude_frame ({T}::test_nb_claude_hand_case)",
    "wb.nb_has_avg.": f"compendium.workbank.register.nb_has_avg_frame ({T}::test_nb_has_avg_and_h5_groupby)",
    "wb.nb_has.": f"compendium.workbank.register.text_claims ({T}::test_text_claims_on_real_data)",
    "wb.nb_h5.": f"compendium.workbank.register.nb_h5_frame ({T}::test_nb_has_avg_and_h5_groupby)",
    "wb.zones.": f"compendium.workbank.register.zones_frame ({T}::test_zones_frame_hand_case)",
    "wb.alpha.": f"compendium.workbank.register.alpha_authors ({T}::test_alpha_authors_keeps_repeated_rows)",
    "wb.mixed.": f"compendium.workbank.register.mixed_model_stats ({T}::test_table1_matches_statsmodels_formula)",
    "wb.": f"compendium.workbank.register.text_claims ({T}::test_text_claims_on_real_data)",
}

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
AUDIO = (
    "the audio mini-interview transcripts and their LLooM concept assignments (not released with "
    "WORKBank; paper App F.1)"
)


# ------------------------------------------------------------------------------------------ register


def load_register(path=None) -> dict:
    """The WORKBank register (``published/workbank.yaml``)."""
    p = path or paths.PUBLISHED / "workbank.yaml"
    reg = yamlfile.load(p)
    if not isinstance(reg, dict) or "tables" not in reg or "claims" not in reg:
        raise ValueError(f"{p}: expected a mapping with 'tables' and 'claims'")
    return reg


def cell_ids(table: Mapping) -> dict[tuple[str, str], str]:
    """``{(row, col): value id}`` of one register table, honouring ``existing_ids`` and ``blank_cells``.

    A whole-table existing id (``{'*': id}``) maps every cell to that one id (the value is the nested list)."""
    ex = table.get("existing_ids") or {}
    blank = set(table.get("blank_cells") or [])
    out = {}
    for r in table["rows"]:
        for c in table["cols"]:
            key = f"{r}.{c}"
            if key in blank:
                continue
            if "*" in ex:
                out[(r, c)] = ex["*"]
            elif key in ex:
                out[(r, c)] = ex[key]
            else:
                out[(r, c)] = table["id_pattern"].format(row=r, col=c)
    return out


def norm_text(s: str) -> str:
    """Text key for matching labels to data: NFKC, curly quotes straight, lower case, one space, no
    trailing period."""
    s = unicodedata.normalize("NFKC", str(s)).replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    s = " ".join(s.lower().split())
    return s.rstrip(". ")


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


def table1_frame(
    desires: pd.DataFrame, metadata: pd.DataFrame, row_labels: Mapping[str, str], method: str = "bfgs"
) -> tuple[pd.DataFrame, dict]:
    """Paper Table 1: fixed effects of the REML mixed model (response desire ~ 22 covariates + random task
    intercept), rows = the register's row slugs, columns coef, se, z, p, ci_low, ci_high; and the fit's
    summary (:func:`reliability.fit_mixed_model`). A register term the fit does not produce is NaN."""
    data = reliability.mixed_model_data(desires, metadata)
    summ, coefs, res = reliability.fit_mixed_model(data, method=method)
    by_key = coefs.assign(key=coefs["term"].map(_term_key)).set_index("key")
    if by_key.index.duplicated().any():
        raise ValueError(f"table1: two model terms share a key: {by_key.index[by_key.index.duplicated()][0]!r}")
    rows = {slug: _term_key(lab) for slug, lab in row_labels.items()}
    out = pd.DataFrame(
        {
            slug: (
                by_key.loc[k, ["coef", "se", "z", "p", "ci_low", "ci_high"]]
                if k in by_key.index
                else pd.Series(np.nan, index=["coef", "se", "z", "p", "ci_low", "ci_high"])
            )
            for slug, k in rows.items()
        }
    ).T.astype(float)
    out.index.name = "row"
    summ = dict(summ)
    summ["group_var_se"] = _group_var_se(res)
    sizes = data.groupby(TASK).size()
    summ.update(min_group=int(sizes.min()), max_group=int(sizes.max()), mean_group=float(sizes.mean()))
    summ["unmatched_terms"] = sorted(set(by_key.index) - set(rows.values()))
    return out, summ


def _group_var_se(res) -> float:
    """Standard error of the random-intercept variance as statsmodels' summary prints it ("Group Var")."""
    return float(np.asarray(res.bse_re)[0])


def mixed_model_stats(summary: Mapping) -> dict[str, float]:
    """The notebook-only numbers of the Table 1 fit (robustness.ipynb cell 23)."""
    return {
        "wb.mixed.n_obs": summary["n_obs"],
        "wb.mixed.n_groups": summary["n_groups"],
        "wb.mixed.loglik": summary["llf"],
        "wb.mixed.group_var_se": summary["group_var_se"],
        "wb.mixed.min_group": summary["min_group"],
        "wb.mixed.max_group": summary["max_group"],
        "wb.mixed.mean_group": summary["mean_group"],
    }


# ---------------------------------------------------------------------------------- tables 2, 3, 4


def table2_frame(metadata: pd.DataFrame, row_labels: Mapping[str, str]) -> pd.DataFrame:
    """Paper Table 2: survey participants (rows of the worker metadata file) per occupation."""
    require_columns(metadata, [USER, OCC], "worker metadata")
    n = metadata.groupby(OCC)[USER].size()
    hit = _lookup(row_labels, n.index, "occupation")
    return pd.DataFrame(
        {"n": [float(n[k]) if k is not None else np.nan for k in hit.values()]}, index=pd.Index(list(hit), name="row")
    )


def ranked_desire_frame(desires: pd.DataFrame, row_labels: Mapping[str, str]) -> pd.DataFrame:
    """Paper Tables 3/4: Aw(t) of the task each printed row names (``"Occupation: Task"``).

    The authors sort the task means (order among ties is implementation-defined), so each printed row is
    matched to its task by text (and occupation), not by position."""
    require_columns(desires, [TASK, OCC, DESIRE], "worker desires")
    g = desires.groupby([OCC, TASK])[DESIRE].mean()
    keys = pd.Index([f"{o}: {t}" for o, t in g.index])
    vals = pd.Series(g.to_numpy(), index=keys)
    hit = _lookup(row_labels, keys, "task")
    return pd.DataFrame(
        {"aw": [float(vals[k]) if k is not None else np.nan for k in hit.values()]},
        index=pd.Index(list(hit), name="row"),
    )


# ------------------------------------------------------------------------ occupation-level HAS


def _occupation_pools(desires: pd.DataFrame, metadata: pd.DataFrame, experts: pd.DataFrame):
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


def occupation_has(desires, metadata, experts) -> pd.DataFrame:
    """Per occupation: worker and expert dominant HAS level (lowest level on ties, as ``list.index(max)``)
    and the Jensen-Shannon distance (base 2) of the two normalised histograms."""
    rows = []
    for occ, (_, w, e) in _occupation_pools(desires, metadata, experts).items():
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


def _landscape(desires: pd.DataFrame, experts: pd.DataFrame, cutoff: float) -> pd.DataFrame:
    land = landscape.task_landscape(desires, experts)
    land["zone"] = landscape.assign_zones(land["capability"], land["desire"], cutoff)
    return land


def zones_frame(land: pd.DataFrame) -> pd.DataFrame:
    """Tasks per desire-capability zone."""
    n = land["zone"].value_counts().reindex(list(ZONES), fill_value=0)
    return pd.DataFrame({"n": n.astype(float)}, index=pd.Index(list(ZONES), name="row"))


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


def fig7_frame(experts: pd.DataFrame, task_metadata: pd.DataFrame, row_labels: Mapping[str, str]) -> pd.DataFrame:
    """Fig 7: each skill's rank by mean wage and by mean expert HAS among the 27 skills (1 = highest)."""
    t = skills.skill_ranks(experts, task_metadata).set_index("skill")
    hit = _lookup(row_labels, t.index, "skill")
    rows = [
        t.loc[k, ["wage_rank", "has_rank"]].astype(float)
        if k is not None
        else pd.Series(np.nan, index=["wage_rank", "has_rank"])
        for k in hit.values()
    ]
    return pd.DataFrame(rows, index=pd.Index(list(hit), name="row"))


def n_all_skills(task_metadata: pd.DataFrame) -> int:
    """Distinct skill names in the task metadata (human_skill_shift.ipynb cell 1)."""
    require_columns(task_metadata, [SKILL], "task metadata")
    return len({s for v in task_metadata[SKILL] for s in skills.parse_skill_list(v) if isinstance(s, str)})


# ---------------------------------------------------------------------------------- nb_claude


def nb_claude_frame(desires: pd.DataFrame, usage: pd.DataFrame | None, row_labels: Mapping[str, str]):
    """Claude.ai usage of the top-10 occupations by mean desire (automation_desire.ipynb cell 13).

    The authors' steps: task means by task text, occupation = first row's; task text lower-cased and
    *left-joined* to the usage file on ``task_name`` (each matching usage row counts); per occupation
    the mean of task desire and the sum of ``pct``; the 10 occupations with the highest mean. Returns
    ``(frame, total)``: per printed occupation its ``pct`` and the top-10 sum."""
    if usage is None:
        return None, None
    require_columns(desires, [TASK, OCC, DESIRE], "worker desires")
    require_columns(usage, ["task_name", "pct"], "Claude usage")
    t = desires.groupby(TASK).agg(desire=(DESIRE, "mean"), occupation=(OCC, "first")).reset_index()
    t["key"] = t[TASK].str.lower()
    m = t.merge(usage.rename(columns={"task_name": "key"}), on="key", how="left")
    occ = m.groupby("occupation").agg(desire=("desire", "mean"), pct=("pct", "sum"))
    top = occ.sort_values("desire", ascending=False, kind="mergesort").head(10)
    hit = _lookup(row_labels, occ.index, "occupation")
    frame = pd.DataFrame(
        {
            "pct": [float(occ.loc[k, "pct"]) if k is not None else np.nan for k in hit.values()],
            "in_top10": [k in top.index for k in hit.values()],
        },
        index=pd.Index(list(hit), name="row"),
    )
    return frame, float(top["pct"].sum())


# -------------------------------------------------------------------------- task characteristics


def _merged_task_means(desires: pd.DataFrame, experts: pd.DataFrame) -> pd.DataFrame:
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


def nb_has_avg_frame(desires: pd.DataFrame, experts: pd.DataFrame, row_labels: Mapping[str, str] | None = None):
    """Mean over tasks of the worker and expert task means (all tasks, and per occupation), cell 11."""
    m = _merged_task_means(desires, experts)
    labels = dict(row_labels or {})
    subsets = {"all": m}
    for slug in ("editors", "mathematicians", "aerospace_engineers"):
        name = labels.get(slug, slug.replace("_", " ").title())
        subsets[slug] = m[m["occupation"].map(norm_text) == norm_text(name)]
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


def nb_h5_frame(
    desires: pd.DataFrame, metadata: pd.DataFrame, experts: pd.DataFrame, expert_set: str = "worker"
) -> pd.DataFrame:
    """Radar inputs of Fig 6c/6d (cell 12): mean task means over the tasks of the occupations whose
    dominant worker level is H5 (``worker``), and the experts' means over a task set: ``expert_set =
    'worker'`` is the authors' code (it reuses the worker H5 set), ``'expert'`` the experts' own H5 set."""
    m = _merged_task_means(desires, experts)
    pools = _occupation_pools(desires, metadata, experts)
    w5, e5 = set(), set()
    for ts, w, e in pools.values():
        if np.argmax(_hist(w)) == 4:
            w5 |= ts
        if np.argmax(_hist(e)) == 4:
            e5 |= ts
    ws = m[m.index.isin(w5)]
    es = ws if expert_set == "worker" else m[m.index.isin(e5)]
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


# ------------------------------------------------------------------------------------------ alpha


def alpha_authors(ratings: pd.DataFrame, value: str, unit: str = TASK) -> float:
    """Krippendorff's alpha, ordinal, exactly as robustness.ipynb ``compute_krippendorff_alpha``: group the
    rows by task text, take each task's ratings in file order, keep *every* row (repeated rows too), pad
    with NaN to the longest task, pass the slots x tasks matrix, value domain inferred from the data."""
    import krippendorff

    require_columns(ratings, [unit, value], "ratings for Krippendorff's alpha")
    groups = [g.to_numpy(dtype=float) for _, g in ratings.groupby(unit, sort=True)[value]]
    if not groups:
        raise ValueError("alpha_authors: no ratings")
    width = max(len(g) for g in groups)
    data = np.vstack([np.pad(g, (0, width - len(g)), constant_values=np.nan) for g in groups]).T
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal"))


def alpha_values(desires: pd.DataFrame, experts: pd.DataFrame) -> dict[str, float]:
    """``wb.alpha.*`` by the authors' construction, and ``.variant.dedup_rows`` (the project's earlier
    choice: the 19 repeated expert rows dropped, one value per rater and task)."""
    from .common import drop_repeated_rows

    uniq, _ = drop_repeated_rows(experts)
    v = {}
    for key, df, dd, col in [
        ("expert_capability", experts, uniq, CAPABILITY),
        ("expert_has", experts, uniq, HAS),
        ("worker_desire", desires, desires, DESIRE),
        ("worker_has", desires, desires, HAS),
    ]:
        v[f"wb.alpha.{key}"] = alpha_authors(df, col)
        v[f"wb.alpha.{key}.variant.dedup_rows"] = reliability.krippendorff_alpha_ordinal(dd, col)
    return v


# ------------------------------------------------------------------------------------ text claims


def expert_sd_max(experts: pd.DataFrame, ddof: int = 0) -> float:
    """Largest per-task standard deviation of the expert capability and HAS ratings (paper §2.5: "standard
    deviation <= 1" after additional reviews). The paper does not say which SD; ``ddof=0`` (the population
    SD, numpy's default) is the one under which the data meet the criterion, with the maximum exactly at
    the threshold (e.g. ratings {1, 3}); with ``ddof=1`` the same pair has SD 1.41."""
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


def text_claims(
    desires,
    metadata,
    experts,
    task_metadata,
    sectors,
    land,
    occ_has,
    papers=None,
    cutoff: float = 3.0,
    tie_rule: str = "lowest",
    seed: int = 0,
) -> dict:
    """The register's text claims (not table cells) that the released files determine."""
    v: dict = {}
    tasks = desire.task_desire(desires)
    sh = desire.desire_shares(tasks["desire"], 3.0)
    v.update(
        {
            "wb.counts.tasks": int(desires[TASK].nunique()),
            "wb.counts.occupations": int(desires[OCC].nunique()),
            "wb.counts.workers": int(metadata[USER].nunique()),
            "wb.counts.experts": int(experts[USER].nunique()),
            "wb.counts.onet_tasks": len(task_metadata),
            "wb.counts.onet_occupations": int(task_metadata[OCC].nunique()),
            "wb.counts.min_participants_per_occupation": int(metadata.groupby(OCC)[USER].nunique().min()),
            "wb.counts.min_experts_per_task": int(experts.drop_duplicates().groupby(TASK)[USER].nunique().min()),
            "wb.counts.expert_sd_max": expert_sd_max(experts, ddof=0),
            "wb.counts.expert_sd_max.variant.sample_sd": expert_sd_max(experts, ddof=1),
            "wb.desire.share_gt3": sh["share_gt_cutoff"],
            "wb.desire.share_ge4": sh["share_ge4"],
            "wb.desire.share_le2": sh["share_le2"],
        }
    )
    v.update(design_checks(desires))
    n_reason, reasons = desire.desire_reasons(desires, 3)
    v["wb.reasons.n"] = n_reason
    for _, r in reasons.iterrows():
        v[f"wb.reasons.{r['reason']}"] = r["pct"]
    # sector shares: task means over the sector's responses (automation_desire.ipynb cell 9)
    s = desires[OCC].map(sectors["sector"])
    for slug, name in SECTOR_CLAIMS.items():
        sub = desires[s == name]
        key = "wb.sector.arts_share_gt3" if slug == "arts" else f"wb.sector.{slug}_share_gt3"
        v[key] = float(100 * (sub.groupby(TASK)[DESIRE].mean() > 3).mean()) if len(sub) else None
    for key, col in [("desire_jobsecurity", "job_security"), ("desire_enjoyment", "enjoyment")]:
        rho, p = desire.spearman(tasks["desire"], tasks[col])
        v[f"wb.rho.{key}"] = rho
        v[f"wb.rho.{key}_p_bound"] = p
    rho, p = desire.spearman(land["capability"], land["desire"])
    v["wb.rho.capability_desire"], v["wb.rho.capability_desire_p_bound"] = rho, p
    for key, col in [("resp_desire_jobsecurity", JOB_SECURITY), ("resp_desire_enjoyment", ENJOYMENT)]:
        r = stats.spearmanr(desires[DESIRE].to_numpy(float), desires[col].to_numpy(float))
        v[f"wb.rho.{key}"], v[f"wb.rho.{key}_p"] = float(r.statistic), float(r.pvalue)
    # HAS (task level: matrix, diagonal, workers_more; authors' loop = mode, lowest on ties)
    wc = agency.has_counts(desires, TASK, "worker desires")
    ec = agency.has_counts(experts, TASK, "expert ratings")
    wl = agency.dominant_level(wc, tie_rule, seed)
    el = agency.dominant_level(ec, tie_rule, seed + 1 if tie_rule == "random" else None)
    mat = agency.has_matrix(wl, el)
    comp = agency.agency_comparison(wl, el)
    v.update(
        {
            "wb.has.matrix": mat.to_numpy().tolist(),
            "wb.has.diagonal": comp["diagonal"],
            "wb.has.workers_more": comp["workers_more"],
        }
    )
    v["wb.has.occ_worker_levels"] = occ_has["worker_level"].value_counts().reindex(range(1, 6), fill_value=0).tolist()
    v["wb.has.occ_expert_h1"] = int((occ_has["expert_level"] == 1).sum())
    m = _merged_task_means(desires, experts)
    for k, col in CHARACTERISTICS.items():
        slug = "rho_has" if k == "has" else f"rho_{k}"
        r = stats.spearmanr(m[f"{col}_worker"], m[f"{col}_expert"])
        v[f"wb.nb_has.{slug}"], v[f"wb.nb_has.{slug}_p"] = float(r.statistic), float(r.pvalue)
    v["wb.skills.count"] = len(skills.skill_ranks(experts, task_metadata))
    v["wb.skills.n_all"] = n_all_skills(task_metadata)
    if papers is not None:
        top = papers.sort_values("paper_count", ascending=False, kind="mergesort")["paper_count"].head(3).tolist()
        for i, n in enumerate(top, 1):
            v[f"wb.papers.top_task_{i}"] = float(n)
    return v


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


def register_values(
    desires: pd.DataFrame,
    metadata: pd.DataFrame,
    experts: pd.DataFrame,
    task_metadata: pd.DataFrame,
    bls_wages: pd.DataFrame,
    usage: pd.DataFrame | None = None,
    yc: pd.DataFrame | None = None,
    papers: pd.DataFrame | None = None,
    register: dict | None = None,
    mixed_method: str = "bfgs",
    cutoff: float = 3.0,
    tie_rule: str = "lowest",
    seed: int = 0,
) -> tuple[dict, dict]:
    """Every WORKBank register cell and text claim: ``(values, missing)`` (see the module docstring).

    ``usage``/``yc``/``papers`` are the authors' external files (``data/workbank/external``); where one is
    ``None`` its cells are ``None`` and ``missing`` names the file. Claims the release cannot give
    (``level: none``/``outside`` without a bundled file) are ``None`` with the reason."""
    reg = register or load_register()
    tables = {t["slug"]: t for t in reg["tables"]}
    sectors = desire.occupation_sectors(task_metadata, bls_wages)
    land = _landscape(desires, experts, cutoff)
    occ_has = occupation_has(desires, metadata, experts)
    values: dict = {}
    missing: dict = {}

    values.update(
        text_claims(
            desires,
            metadata,
            experts,
            task_metadata,
            sectors,
            land,
            occ_has,
            papers,
            cutoff=cutoff,
            tie_rule=tie_rule,
            seed=seed,
        )
    )
    values.update(alpha_values(desires, experts))
    t1, summ = table1_frame(desires, metadata, tables["table1"]["row_labels"], method=mixed_method)
    values.update(mixed_model_stats(summ))

    ext = paths.WORKBANK_EXTERNAL
    f5b, f5c, nbu, totals = mapping_frames(land, yc, papers)
    claude, _claude_total = nb_claude_frame(desires, usage, tables["nb_claude"].get("row_labels", {}))
    if totals["yc"] is not None:
        values["wb.nb.unique_companies_total"] = totals["yc"]
    if totals["papers"] is not None:
        values["wb.nb.unique_papers_total"] = totals["papers"]

    fig5a = fig5a_frame(land, sectors)
    frames = {
        "table1": (t1, "data/workbank (worker desires and metadata)"),
        "table2": (table2_frame(metadata, tables["table2"]["row_labels"]), "data/workbank/domain_worker_metadata.csv"),
        "table3": (
            ranked_desire_frame(desires, tables["table3"]["row_labels"]),
            "data/workbank/domain_worker_desires.csv",
        ),
        "table4": (
            ranked_desire_frame(desires, tables["table4"]["row_labels"]),
            "data/workbank/domain_worker_desires.csv",
        ),
        "table5": (table5_frame(occ_has, tables["table5"]["row_labels"]), "data/workbank (worker and expert HAS)"),
        "table6": (None, AUDIO),
        "table7": (None, AUDIO),
        "fig4b": (fig4b_frame(desires), "data/workbank/domain_worker_desires.csv"),
        "fig5a": (fig5a, "data/workbank (landscape) and the SOC codes of task_statement_with_metadata.csv"),
        "fig5b": (f5b, f"{ext.relative_to(paths.ROOT)}/company_to_workflow_aggregation.csv (YC mappings)"),
        "fig5c": (f5c, f"{ext.relative_to(paths.ROOT)}/paper_to_workflow_mapping_aggregated.csv (arXiv mappings)"),
        "nb_unique": (
            nbu,
            (
                f"{ext.relative_to(paths.ROOT)}/company_to_workflow_aggregation.csv and "
                "paper_to_workflow_mapping_aggregated.csv"
            ),
        ),
        "fig6b": (fig6b_frame(occ_has), "data/workbank (worker HAS)"),
        "fig7": (
            fig7_frame(experts, task_metadata, tables["fig7"]["row_labels"]),
            "data/workbank (expert HAS, task metadata)",
        ),
        "nb_claude": (claude, f"{ext.relative_to(paths.ROOT)}/usage_from_anthropic.csv (Anthropic Economic Index)"),
        "nb_has_avg": (nb_has_avg_frame(desires, experts, tables["nb_has_avg"].get("row_labels")), "data/workbank"),
        "nb_h5": (nb_h5_frame(desires, metadata, experts, "worker"), "data/workbank"),
        "zones": (zones_frame(land), "data/workbank"),
    }
    for slug, t in tables.items():
        frame, why = frames.get(slug, (None, "no builder for this table"))
        _frame_cells(values, t, frame, missing, why)
    # nb_h5 variant: the experts' own H5 set (the authors' code reuses the workers' set)
    h5e = nb_h5_frame(desires, metadata, experts, "expert")
    for r in h5e.index:
        values[f"wb.nb_h5.{r}.expert.variant.expert_h5_set"] = float(h5e.loc[r, "expert"])

    # claims without a value: quoted design constants, unreleased pipeline counts, outside data
    for c in reg["claims"]:
        cid = c["id"]
        if cid in values and values[cid] is not None:
            continue
        if cid in values and values[cid] is None and cid in missing:
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
    return values, missing


def register_summary(values: Mapping, register: dict | None = None) -> pd.DataFrame:
    """Per register table: its slug and label, number of cells (whole-table ids count once per cell) and how many
    of them have a value (not ``None``) in ``values``."""
    reg = register or load_register()
    rows = []
    for t in reg["tables"]:
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


def disagreements(a: Mapping, b: Mapping, rtol: float = 1e-9) -> list[str]:
    """Keys present in both mappings whose values differ (numbers beyond ``rtol``, lists or text at all)."""
    out = []
    for k in sorted(set(a) & set(b)):
        x, y = a[k], b[k]
        if isinstance(x, (list, tuple, np.ndarray)) or isinstance(y, (list, tuple, np.ndarray)):
            if np.asarray(x, dtype=float).shape != np.asarray(y, dtype=float).shape or not np.allclose(
                np.asarray(x, dtype=float), np.asarray(y, dtype=float), rtol=rtol, atol=0
            ):
                out.append(k)
        elif x is None or y is None or isinstance(x, str) or isinstance(y, str):
            if x != y:
                out.append(k)
        elif not np.isclose(float(x), float(y), rtol=rtol, atol=1e-12):
            out.append(k)
    return out

"""The book's front page abstract, phrased from the claims check's result (never typed).

The claims stage writes ``results/claims/abstract.md``; the landing page (``book/intro.md``) includes it.
Every number is read from the claims table: how many printed numbers reproduce, how many differ and why
(the papers' own slips among them), how many wait for data, and one headline result per study with its
status; and the headline beyond the papers from the robustness stage's findings (:func:`beyond_sentence`), so that a re-run (or a run off the paper's parameters) changes the sentence with the number. The
text holds no data text: only numbers, the fixed study names and the status words, so it is safe to render
as MyST.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from compendium.pipeline import paths
from compendium.pipeline.yamlfile import load

STATUS_WORDS = {
    "reproduced": "reproduced",
    "differs": "differs, with its reason",
    "needs_data": "needs data not released here",
    "quoted": "quoted",
    "unexplained": "UNEXPLAINED",
}
REASON_WORDS = {
    "paper_slip": "slips in the papers themselves",
    "stale_table": "in tables printed from an earlier run than the released data",
    "rounding_boundary": "on a rounding boundary",
    "monte_carlo": "within Monte-Carlo error",
    "method_open": "by a method the paper leaves open",
}


_PREF_MODELS = ("untrained", "recipe_a", "recipe_b", "recipe_c", "recipe_d")
#: each study's headline claims: the ones :func:`headline_sentences` phrases (with their statuses) on the landing
#: page, and the set whose statuses decide a replication report's title (:mod:`compendium.claims.report`)
HEADLINE_CLAIMS: dict[str, tuple[str, ...]] = {
    "pwb": ("pwb.delta.mean", "pwb.delta.min", "pwb.delta.max"),
    "workbank": ("wb.zones.green", "wb.zones.red", "wb.zones.rnd", "wb.zones.low", "wb.desire.share_gt3"),
    "hitl": ("hitl.n_ratings", *(f"hitl.bt.{m}" for m in _PREF_MODELS)),
}


def _n(x: int) -> str:
    return f"{x:,}"


def _value(claims: pd.DataFrame, cid: str) -> float | None:
    row = claims.loc[claims["claim_id"] == cid]
    if row.empty:
        return None
    try:
        return float(row["reproduced"].iloc[0])
    except (TypeError, ValueError):
        return None


def _status_note(claims: pd.DataFrame, ids: list[str]) -> str:
    """ "(reproduced)" when every claim behind a sentence reproduces, else each claim's status."""
    rows = claims.loc[claims["claim_id"].isin(ids), ["claim_id", "status"]]
    statuses = set(rows["status"])
    if statuses == {"reproduced"}:
        return "(the paper's numbers, reproduced)" if len(rows) > 1 else "(the paper's number, reproduced)"
    return "(" + "; ".join(f"`{c}`: {STATUS_WORDS.get(s, s)}" for c, s in zip(rows["claim_id"], rows["status"])) + ")"


def headline_sentences(claims: pd.DataFrame) -> list[str]:
    """One sentence per study, from its headline claims, with their status; a study whose claims have no
    value gets none."""
    out = []
    d = {k: _value(claims, f"pwb.delta.{k}") for k in ("mean", "min", "max")}
    if None not in d.values():
        out.append(
            "**Pro-Worker AI Benchmark.** The pro-worker system prompt "
            + ("raises the Pro-Worker Index of every model" if d["min"] > 0 else "changes the Pro-Worker Index")
            + f", by {d['mean']:.1f} points on average (from {d['min']:+.1f} to {d['max']:+.1f}) "
            + _status_note(claims, list(HEADLINE_CLAIMS["pwb"]))
            + "."
        )
    zones = {k: _value(claims, f"wb.zones.{k}") for k in ("green", "red", "rnd", "low")}
    share = _value(claims, "wb.desire.share_gt3")
    if None not in zones.values() and share is not None:
        out.append(
            f"**WORKBank.** Of {_n(int(sum(zones.values())))} tasks, {_n(int(zones['green']))} fall in the "
            f"'Green Light' zone (AI can do them and workers want it to), {_n(int(zones['red']))} in 'Red Light', "
            f"{_n(int(zones['rnd']))} in 'R&D Opportunity' and {_n(int(zones['low']))} in 'Low Priority'; on "
            f"{share:.1f} % of tasks the workers' mean wish for automation is above 3 of 5 "
            + _status_note(claims, list(HEADLINE_CLAIMS["workbank"]))
            + "."
        )
    names = {
        "untrained": "the untrained model",
        "recipe_a": "Recipe A",
        "recipe_b": "Recipe B",
        "recipe_c": "Recipe C",
        "recipe_d": "Recipe D",
    }
    bt = {m: _value(claims, f"hitl.bt.{m}") for m in names}
    n_judgements = _value(claims, "hitl.n_ratings")
    if None not in bt.values() and n_judgements is not None:
        order = sorted(bt, key=lambda m: -bt[m])
        out.append(
            f"**Human preferences.** From {_n(int(n_judgements))} pairwise human judgements, Bradley–Terry ranks "
            f"{names[order[0]]} first (strength {bt[order[0]]:.2f}, the five summing to 5) and {names[order[-1]]} "
            f"last ({bt[order[-1]]:.2f}) " + _status_note(claims, list(HEADLINE_CLAIMS["hitl"])) + "."
        )
    return out


def _resampling_items(sampling: Mapping) -> list[str]:
    """What resampling the data says of the findings (the robustness stage's ``rob.sampling.*`` values), each
    share to the digits its Monte-Carlo error supports (:func:`compendium.stats.mcdigits.share_text`); an item
    whose values are absent is left out."""
    from compendium.stats.mcdigits import share_text

    def share(key: str, n_key: str) -> str | None:
        p, n = sampling.get(key), sampling.get(n_key)
        return None if p is None or n is None else share_text(float(p), int(n))

    items = []
    green = share("rob.sampling.zones.p_green_largest", "rob.sampling.zones.n_draws")
    red = share("rob.sampling.zones.p_red_gt_rnd", "rob.sampling.zones.n_draws")
    if green and red:
        items.append(
            f"WORKBank, at the paper's cut-off: Green Light is the largest zone in {green}, and Red Light outnumbers "
            f"R&D Opportunity in {red}, of the rater-cluster resamples"
        )
    c_j = share("rob.sampling.bt.p_c_beats_d_judgements", "rob.sampling.bt.c_beats_d_n_boot")
    c_c = share("rob.sampling.bt.p_c_beats_d_categories", "rob.sampling.bt.c_beats_d_n_boot")
    rank_j = share("rob.sampling.bt.p_same_ranking_judgements", "rob.sampling.bt.n_boot")
    rank_c = share("rob.sampling.bt.p_same_ranking_categories", "rob.sampling.bt.n_boot")
    rho_j = share("rob.sampling.bt.p_same_rho_judgements", "rob.sampling.bt.n_boot")
    rho_c = share("rob.sampling.bt.p_same_rho_categories", "rob.sampling.bt.n_boot")
    if c_j and c_c:
        items.append(
            f"Human preferences: Recipe C beats Recipe D in only {c_j} of judgement resamples ({c_c} with the prompt "
            "categories resampled), so the data do not settle which of the two is preferred"
            + (
                f"; the full published ranking recurs in {rank_j} ({rank_c}), and ρ = 0.8 in {rho_j} ({rho_c})"
                if rank_j and rank_c and rho_j and rho_c
                else ""
            )
        )
    return items


def beyond_sentence(findings: pd.DataFrame | None, sampling: Mapping | None = None) -> str | None:
    """The headline of the work beyond the papers, from the robustness stage's findings table
    (``results/robustness/tables/summary.csv``: each finding, the family of analysis choices it was re-run
    under, and in how many it holds) and its values (``sampling``: ``results/robustness/values.json``, for what
    resampling the data says: :func:`_resampling_items`). None without the table. A short list that keeps two
    tests apart (the referee's C6: the full ranking and ρ were listed as holding, yet recur in about a third and
    a half of resamples): which findings hold under every analysis choice tried, which depend on the choice, and,
    separately, how often the findings recur when the data are resampled. The table says how its rows count
    (:func:`compendium.robustness.findings.headline_findings`): the rows of one finding re-run under two families
    (named and random weight schemes) share its ``headline`` key and count once; a ``bound`` row (the mixed tie
    rules) tests no finding of its own and is left out. One sentence relates the two counts (issue 33: "6 of the
    9" here, "7 of the 13" rows in the robustness chapter). The finding texts are the package's own fixed phrases
    (no data text), escaped all the same."""
    from compendium.chapter.safetext import myst

    if findings is None or findings.empty:
        return None
    missing = {"headline", "bound"} - set(findings.columns)
    if missing:
        raise KeyError(
            f"results/robustness/tables/summary.csv has no column {sorted(missing)[0]!r} (written by an older "
            "robustness stage); run `dvc repro robustness`, then the claims stage again"
        )
    rows = findings[~findings["bound"].astype(bool)]
    holds, depends = [], []
    for _, g in rows.groupby("headline", sort=False):
        finding = g["finding"].iloc[0]
        if bool(g["holds_all"].all()):
            holds.append(myst(finding))
        else:
            where = "; ".join(
                f"{int(r.n_hold):,} of {int(r.n_settings):,} ({myst(r.settings)})" for r in g.itertuples()
            )
            depends.append(f"{myst(finding)} (holds in {where})")
    n = len(holds) + len(depends)
    n_rows, n_rows_hold = len(findings), int(findings["holds_all"].astype(bool).sum())
    lines = [
        "**Beyond the papers.** Each headline finding re-run under the analysis choices the papers leave open "
        "(zone cut-offs, tie rules, index weightings, tie conventions: the robustness chapter); holding under every "
        "choice is not the same as holding when the data are resampled. The robustness chapter's table has "
        f"{n_rows} rows, {n_rows_hold} of them holding at every setting: a finding re-run under two families of "
        "settings is one finding here, holding only if it holds under both, and a row shown only as a bound is "
        "none. So:",
        "",
        f"- *Hold under every choice tried* ({len(holds)} of {n}): " + ("; ".join(holds) if holds else "none") + ".",
        f"- *Depend on the choice* ({len(depends)} of {n}): " + ("; ".join(depends) if depends else "none") + ".",
    ]
    items = _resampling_items(sampling or {})
    if items:
        lines.append("- *When the data are resampled:* " + "; ".join(items) + ".")
    return "\n".join(lines)


def abstract_markdown(
    claims: pd.DataFrame,
    citation: Mapping | None = None,
    findings: pd.DataFrame | None = None,
    sampling: Mapping | None = None,
) -> str:
    """The abstract (MyST Markdown) from the claims table (``results/claims/claims.csv``), ``CITATION.cff`` and
    the robustness stage's findings (:func:`beyond_sentence`)."""
    counts = claims["status"].value_counts()
    n = len(claims)
    differs = claims[claims["status"] == "differs"]
    reasons = differs["reason"].value_counts()
    reason_text = "; ".join(
        f"{_n(int(k))} {REASON_WORDS.get(r, str(r).replace('_', ' '))}" for r, k in reasons.items() if k
    )
    parts = [
        f"We regenerate every table and figure of three studies of human-centred AI evaluation from their raw "
        f"data, and check each of the {_n(n)} numbers they print. **{_n(int(counts.get('reproduced', 0)))} "
        f"reproduce** within the precision printed. {_n(int(counts.get('differs', 0)))} differ, each for a "
        f"stated and checked reason"
        + (f" ({reason_text})" if reason_text else "")
        + f". {_n(int(counts.get('needs_data', 0)))} need data beyond the bundled files (mostly the per-judgement "
        f"and per-annotation files on the Hugging Face hub), and "
        f"{_n(int(counts.get('quoted', 0)))} are quoted: design constants, or statements that the released data do not determine.",
    ]
    other = {s: int(k) for s, k in counts.items() if s not in ("reproduced", "differs", "needs_data", "quoted")}
    if other:
        parts.append(
            "This build also has "
            + ", ".join(
                f"{_n(k)} claims with status *{STATUS_WORDS.get(s, s.replace('_', ' '))}*" for s, k in other.items()
            )
            + ": see the claims chapter."
        )
    beyond = beyond_sentence(findings, sampling)
    body = "\n\n".join(
        [
            "```{admonition} Abstract\n:class: abstract",
            " ".join(parts),
            *headline_sentences(claims),
            *([beyond] if beyond else []),
        ]
    )
    body += "\n```\n"
    if citation:
        authors = ", ".join(
            a.get("name") or f"{a.get('given-names', '')} {a.get('family-names', '')}".strip()
            for a in citation.get("authors", [])
        )
        year = str(citation.get("date-released", ""))[:4]
        body += (
            f"\n**Cite as:** {authors} ({year}). *{citation.get('title', '')}*. Version {citation.get('version', '')}. "
            "(from `CITATION.cff`)\n"
        )
    return body


def write_abstract(claims: pd.DataFrame, out: Path | None = None, citation_file: Path | None = None) -> Path:
    """Write the abstract to ``results/claims/abstract.md`` (or ``out``), byte-stable."""
    out = Path(out) if out else paths.stage_dir("claims") / "abstract.md"
    cff = citation_file or paths.ROOT / "CITATION.cff"
    citation = load(cff) if Path(cff).exists() else None
    rob = paths.RESULTS / "robustness"
    findings = pd.read_csv(rob / "tables" / "summary.csv") if (rob / "tables" / "summary.csv").exists() else None
    sampling = json.loads((rob / "values.json").read_text()) if (rob / "values.json").exists() else None
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(abstract_markdown(claims, citation, findings, sampling), encoding="utf-8")
    return out

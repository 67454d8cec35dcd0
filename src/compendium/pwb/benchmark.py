"""The benchmark itself, rendered from its YAML files: dimensions, rubric anchors, weights, prompts.

Inputs are the parsed YAML documents (``load_pwb_yaml``) so that tests can pass small hand-made
dicts: ``rubrics/dimension_rubrics.yaml`` (11 dimensions x 4 anchors), ``config.yaml`` (weights),
``prompts/layer1_behavioral/*.yaml`` (10 x 20 single-turn probes), ``prompts/layer2_scenarios/*.yaml``
(the 5 multi-turn scenarios released of the paper's 16) and ``prompts/layer3_adversarial/stress_tests.yaml``
(40 adversarial prompts).

The appendix chapter (``notebooks/11_pwb_benchmark.md``) renders them with the functions here, and its prose
quotes :func:`benchmark_summary` (every ``pwbb_*`` glue name); :func:`benchmark_values` is its ``values.json``.
The appendix has no parameters: it shows the files as they are.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import pandas as pd

from compendium.chapter.safetext import literal_block, myst

from .constants import ABBREV, DIMENSIONS

__all__ = [
    "dimension_table",
    "rubric_anchors",
    "prompt_inventory",
    "prompt_counts",
    "anchors_markdown",
    "system_prompt_markdown",
    "LAYER1_FILES",
    "LAYER2_FILES",
    "layer_overview",
    "domain_table",
    "benchmark_summary",
    "benchmark_values",
]

LEVELS = (3, 2, 1, 0)


def _rubric_entry(rubrics: Mapping, dim: str) -> Mapping:
    if dim not in rubrics:
        raise ValueError(f"rubrics: no entry for dimension {dim!r}")
    entry = rubrics[dim]
    for k in ("name", "description", "rubric"):
        if k not in entry:
            raise ValueError(f"rubrics[{dim!r}]: missing key {k!r}")
    missing = [lv for lv in LEVELS if lv not in entry["rubric"]]
    if missing:
        raise ValueError(f"rubrics[{dim!r}]: missing score level(s) {missing}")
    return entry


def dimension_table(rubrics: Mapping, config: Mapping) -> pd.DataFrame:
    """One row per dimension: abbrev, name, layer, v2.1 weight, v2.0 weight, in_pwi, description.

    ``in_pwi`` is whether the dimension carries a positive v2.1 weight and has Layer-1 data (the
    adversarial-resilience dimension is scored on Layer 3 only).
    """
    scoring = config.get("scoring", {})
    w21, w20 = scoring.get("weights", {}), scoring.get("legacy_weights_v2_0", {})
    if not w21:
        raise ValueError("config: scoring.weights is missing")
    order = [d for d in DIMENSIONS if d in rubrics] + [d for d in rubrics if d not in DIMENSIONS]
    rows = []
    for d in order:
        e = _rubric_entry(rubrics, d)
        layer = "Layer 1" if d in DIMENSIONS else "Layer 3"
        rows.append(
            {
                "dimension": d,
                "abbrev": ABBREV.get(d, ""),
                "name": e["name"],
                "layer": layer,
                "weight_v2_1": float(w21.get(d, 0.0)),
                "weight_v2_0": float(w20.get(d, 0.0)),
                "in_pwi": bool(float(w21.get(d, 0.0)) > 0 and d in DIMENSIONS),
                "description": " ".join(str(e["description"]).split()),
            }
        )
    return pd.DataFrame(rows)


def rubric_anchors(rubrics: Mapping) -> pd.DataFrame:
    """Long table of the 0-3 anchors: dimension, score, label, description (whitespace normalised)."""
    rows = []
    order = [d for d in DIMENSIONS if d in rubrics] + [d for d in rubrics if d not in DIMENSIONS]
    for d in order:
        e = _rubric_entry(rubrics, d)
        for lv in LEVELS:
            a = e["rubric"][lv]
            rows.append(
                {
                    "dimension": d,
                    "score": lv,
                    "label": a.get("label", ""),
                    "description": " ".join(str(a.get("description", "")).split()),
                }
            )
    return pd.DataFrame(rows)


def prompt_inventory(layer1: Mapping[str, Mapping], layer2: Sequence[Mapping], layer3: Mapping) -> pd.DataFrame:
    """Every prompt: layer, dimension (Layer 2: the scenario's first tested dimension), prompt_id,
    domain, category (Layer 3), difficulty, user_type, n_turns (Layer 2).

    ``layer1`` maps a file name to its parsed YAML (keys ``dimension``, ``prompts``); ``layer2`` is the
    list of scenario documents; ``layer3`` the stress-test document.
    """
    rows = []
    for fname, doc in layer1.items():
        if "dimension" not in doc or "prompts" not in doc:
            raise ValueError(f"layer-1 file {fname}: expected keys 'dimension' and 'prompts'")
        for p in doc["prompts"]:
            if "id" not in p:
                raise ValueError(f"layer-1 file {fname}: a prompt has no 'id'")
            rows.append(
                {
                    "layer": 1,
                    "dimension": doc["dimension"],
                    "prompt_id": p["id"],
                    "domain": p.get("domain", "unspecified"),
                    "category": "",
                    "difficulty": p.get("difficulty", "unspecified"),
                    "user_type": p.get("user_type", "unspecified"),
                    "n_turns": 1,
                }
            )
    for doc in layer2:
        if "scenario_id" not in doc or "turns" not in doc:
            raise ValueError("layer-2 scenario: expected keys 'scenario_id' and 'turns'")
        dims = doc.get("dimensions_tested") or [""]
        rows.append(
            {
                "layer": 2,
                "dimension": ", ".join(dims),
                "prompt_id": doc["scenario_id"],
                "domain": doc.get("domain", "unspecified"),
                "category": "",
                "difficulty": "unspecified",
                "user_type": "unspecified",
                "n_turns": len(doc["turns"]),
            }
        )
    if "prompts" not in layer3:
        raise ValueError("layer-3 file: expected key 'prompts'")
    for p in layer3["prompts"]:
        rows.append(
            {
                "layer": 3,
                "dimension": layer3.get("dimension", "adversarial_resilience"),
                "prompt_id": p["id"],
                "domain": p.get("domain") or "unspecified",
                "category": p.get("category", "unspecified"),
                "difficulty": p.get("difficulty", "unspecified"),
                "user_type": "unspecified",
                "n_turns": 1,
            }
        )
    out = pd.DataFrame(rows)
    if out.duplicated(["layer", "prompt_id"]).any():
        raise ValueError(
            f"duplicate prompt ids: {out.loc[out.duplicated(['layer', 'prompt_id']), 'prompt_id'].tolist()}"
        )
    return out


def prompt_counts(inventory: pd.DataFrame, by: str | Sequence[str]) -> pd.DataFrame:
    """Prompt counts grouped by one or more inventory columns (e.g. "dimension", ["layer", "domain"])."""
    cols = [by] if isinstance(by, str) else list(by)
    miss = [c for c in cols if c not in inventory.columns]
    if miss:
        raise ValueError(f"inventory has no column(s) {miss}")
    return inventory.groupby(cols, sort=True).size().rename("prompts").reset_index()


def anchors_markdown(rubrics: Mapping, config: Mapping) -> str:
    """MyST markdown of every dimension's 0-3 anchors: a bold title line (name, abbreviation, layer,
    v2.1 weight), the dimension's question, and a score / label / anchor table. No headings, so the
    text can sit inside a chapter section without disturbing its numbering. Every text from the rubrics
    file is literal (:func:`compendium.chapter.safetext.myst`): no markup, directive or role in it can run."""
    dims = dimension_table(rubrics, config).set_index("dimension")
    anchors = rubric_anchors(rubrics)
    parts = []
    for d, row in dims.iterrows():
        w = f"weight {row['weight_v2_1']:.2f}" if row["in_pwi"] else "not in the PWI"
        parts.append(
            f"**{myst(row['name'])}** ({myst(row['abbrev'])}; {myst(row['layer'])}; {myst(w)})\n\n"
            f"{myst(row['description'])}\n"
        )
        lines = ["| score | label | anchor |", "|---|---|---|"]
        for _, a in anchors[anchors["dimension"] == d].iterrows():
            lines.append(f"| {a['score']} | {myst(a['label'])} | {myst(a['description'])} |")
        parts.append("\n".join(lines) + "\n")
    return "\n".join(parts)


def system_prompt_markdown(text: str) -> str:
    """The system prompt verbatim, as the models received it: a literal block (its Markdown shown as
    written, never parsed; the fence cannot be closed by the text) in a ``compendium-verbatim``
    container, whose lines wrap (``book/_static/custom.css``)."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("system prompt text is empty")
    # the colon fence's parser does not see the inner block, so it is longer than any run of colons in it
    colons = ":" * max(4, max((len(m) for m in re.findall(r":+", text)), default=0) + 1)
    return f"{colons}{{container}} compendium-verbatim\n{literal_block(text)}{colons}\n"


# --------------------------------------------------------------------------------------------------
# the appendix's tables and phrases (notebooks/11_pwb_benchmark.md)
# --------------------------------------------------------------------------------------------------

#: The released prompt files: one Layer-1 file per dimension (the authors' order), five Layer-2 scenarios.
LAYER1_FILES: tuple[str, ...] = DIMENSIONS
LAYER2_FILES: tuple[str, ...] = (
    "calibration_across_domains",
    "creative_collaboration",
    "ethical_blindspot",
    "sycophantic_agreement_trap",
    "teaching_moment",
)


def layer_overview(per_layer: pd.DataFrame) -> pd.DataFrame:
    """The three layers of the released benchmark: prompt counts and what is scored in each."""
    return pd.DataFrame(
        {
            "layer": ["Layer 1: single-turn probes", "Layer 2: multi-turn scenarios", "Layer 3: adversarial prompts"],
            "prompts": per_layer.set_index("layer")["prompts"].reindex([1, 2, 3]).to_numpy(),
            "unit scored": [
                "each of 5 runs, by 3 judges, on the probe's dimension",
                "each of 5 turns, on the scenario's tested dimensions (behaviour checklist by one judge)",
                "one response, on adversarial resilience",
            ],
        }
    )


def domain_table(inv: pd.DataFrame) -> pd.DataFrame:
    """Prompts per professional domain (rows) and layer, with a total, sorted by the layer counts."""
    per_domain = pd.crosstab(inv["domain"], inv["layer"]).rename(columns=lambda x: f"layer {x}")
    dom = per_domain.sort_values(list(per_domain.columns), ascending=False)
    dom["total"] = dom.sum(axis=1)
    return dom


def benchmark_summary(dims: pd.DataFrame, inv: pd.DataFrame, system_prompt: str) -> dict:
    """Every number the appendix's prose quotes, by its ``{glue:text}`` name (``pwbb_*``), from
    :func:`dimension_table`, :func:`prompt_inventory`
    and the system prompt's text."""
    l1 = inv[inv["layer"] == 1]
    per_dim = l1.groupby("dimension").size()
    return {
        "pwbb_n_dims": len(dims),
        "pwbb_n_pwi": int(dims["in_pwi"].sum()),
        "pwbb_n_unweighted": int((~dims["in_pwi"]).sum()),
        "pwbb_w_sum": float(dims.loc[dims["in_pwi"], "weight_v2_1"].sum()),
        "pwbb_n_l1": int((inv["layer"] == 1).sum()),
        "pwbb_n_l2": int((inv["layer"] == 2).sum()),
        "pwbb_n_l3": int((inv["layer"] == 3).sum()),
        "pwbb_n_l3_cat": int(inv.loc[inv["layer"] == 3, "category"].nunique()),
        "pwbb_n_domains": int(l1["domain"].nunique()),
        "pwbb_per_dim": int(per_dim.iloc[0]) if per_dim.nunique() == 1 else f"{per_dim.min()}–{per_dim.max()}",
        "pwbb_sp_words": len(system_prompt.split()),
    }


def benchmark_values(s: Mapping) -> dict:
    """The appendix stage's ``values.json`` entries (``pwb.benchmark.*``) from :func:`benchmark_summary`."""
    keys = {
        "n_dimensions": "pwbb_n_dims",
        "n_dimensions_in_pwi": "pwbb_n_pwi",
        "weight_sum_v2_1": "pwbb_w_sum",
        "n_layer1_prompts": "pwbb_n_l1",
        "n_layer2_scenarios": "pwbb_n_l2",
        "n_layer3_prompts": "pwbb_n_l3",
        "n_layer1_domains": "pwbb_n_domains",
        "system_prompt_words": "pwbb_sp_words",
    }
    return {f"pwb.benchmark.{k}": s[g] for k, g in keys.items()}

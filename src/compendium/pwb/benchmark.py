"""The benchmark itself, rendered from its YAML files: dimensions, rubric anchors, weights, prompts.

Inputs are the parsed YAML documents (``load_pwb_yaml``) so that tests can pass small hand-made
dicts: ``rubrics/dimension_rubrics.yaml`` (11 dimensions x 4 anchors), ``config.yaml`` (weights),
``prompts/layer1_behavioral/*.yaml`` (10 x 20 single-turn probes), ``prompts/layer2_scenarios/*.yaml``
(the 5 multi-turn scenarios released of the paper's 16) and ``prompts/layer3_adversarial/stress_tests.yaml``
(40 adversarial prompts).
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

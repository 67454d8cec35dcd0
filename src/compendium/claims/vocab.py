"""The claims check's fixed vocabulary: the studies, statuses, levels, relations and reasons, the symbols the
reader sees, the columns of ``results/claims/claims.csv`` and :class:`RegisterError`."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from compendium.pipeline import paths, studies

# the studies with a register, by their register's name (the claims' "study"), from the one list of studies
_WITH_REGISTER = tuple(s for s in studies.STUDIES if s.register is not None)
STUDIES = tuple(s.register for s in _WITH_REGISTER)
STUDY_STAGE = {s.register: s.stage for s in _WITH_REGISTER}
STUDY_PKG = {s.register: s.id for s in _WITH_REGISTER}
STUDY_PREFIX = {s.register: s.claim_prefix for s in _WITH_REGISTER}
STUDY_NAME = {s.register: s.title for s in _WITH_REGISTER}
STATUSES = ("reproduced", "differs", "needs_data", "quoted", "off_paper", "unexplained")
LEVELS = ("raw", "outside", "per_instance", "row_level", "none")
RELATIONS = ("<", ">", "≤", "≥", "≈")
REASONS = {
    "paper_slip": "paper slip (the paper contradicts its own data or code)",
    "stale_table": "stale table (printed from an earlier run or version)",
    "rounding_boundary": "rounding boundary (ours and the paper's straddle a rounding edge)",
    "monte_carlo": "Monte-Carlo noise (within 3 Monte-Carlo standard errors computed by the code)",
    "method_open": "method detail the paper leaves open",
}
NOTE_KINDS = ("differs", "caveat")
NOTE_KEYS = {"kind", "reason", "note", "evidence"}
# what the reader sees for each status: a symbol and a word (never colour alone)
MARK = {
    "reproduced": ("✓", "reproduced"),
    "differs": ("≠", "differs"),
    "needs_data": ("∅", "needs data"),
    "quoted": ("“", "quoted"),
    "off_paper": ("⇄", "off-paper run"),
    "unexplained": ("✗", "unexplained"),
}
NO_CLAIM = ("·", "no claim")
#: the mark beside a reproduced number whose match rests on a tolerance wider than the digits the paper prints
#: (:func:`compendium.claims.html.wide_tolerance`); it links to the footnote that gives the reason
WIDE_MARK = "±"
STALE = "(the differs note in"
VARIANT = ".variant."
MC_SE = ".mc_se"
MC_SIGMAS = 3.0
# "≈": the relative half-width of "approximately" (see approx_equal)
APPROX_REL = 0.05
APPROX_DECADES = 0.5
_EPS = (
    1e-9  # relative: absorbs binary rounding in |a - b| <= tol (scaled, so that p-values of 1e-95 keep their meaning)
)


def _eps(a, b):
    return _EPS * np.maximum(np.abs(a), np.abs(b))


COLUMNS = [
    "study",
    "claim_id",
    "level",
    "what",
    "source",
    "printed",
    "published",
    "reproduced",
    "tolerance",
    "relation",
    "kind",
    "status",
    "reason",
    "note",
    "evidence",
    "gap",
    "mc_se",
    "variants",
    "provenance",
    "data",
    "register_note",
    "table",
    "row",
    "col",
]


class RegisterError(ValueError):
    """The register or a notes file is malformed; the message names the file and the id."""


def _rel(p: Path) -> str:
    try:
        return str(Path(p).resolve().relative_to(paths.ROOT))
    except ValueError:
        return str(p)


# ------------------------------------------------------------------------------- readable labels (issue 24)

#: PWB model keys of the claim ids -> the models' names (compendium.pwb.constants.MODEL_KEYS, inverted; a test
#: keeps the two equal: this package imports no study)
MODEL_NAMES = {
    "glm51": "GLM 5.1",
    "gemma4": "Gemma 4 31B",
    "deepseek": "DeepSeek V3.2",
    "gptoss": "GPT-oss 120B",
    "nemotron": "Nemotron-Cascade 30B",
    "devstral": "Devstral-2 123B",
    "qwen35": "Qwen3.5 27B",
}
LEVEL_NAME = {
    "raw": "released files",
    "outside": "external data",
    "per_instance": "PWB per-instance runs",
    "row_level": "preference rows",
    "none": "design constant",
    "all": "all",
}
#: slugs of the register's rows and columns that the generic rule (:func:`readable`) would spell wrong
LABELS = {
    **MODEL_NAMES,
    "mean_pooled": "Mean (pooled)",
    "pooled": "Pooled",
    "v2_0": "v2.0",
    "cf_heavy": "CF-heavy",
    "restore_ut_ard": "Restore UT and AR_d",
    "anti_sycophancy": "Anti-sycophancy",
    "kendall_tau": "Kendall τ",
    "max_dev": "max. deviation",
    "min_delta": "min. Δ",
    "top3_stable": "top 3 stable",
    "delta": "Δ",
    "d": "d",
    "base": "Base",
    "jsd": "JS distance",
    "rnd": "R&D",
    "rnd_n": "R&D (N)",
    "yc": "YC companies",
    "yc_per_task": "YC per task",
    "papers_per_task": "papers per task",
    "pct": "%",
    "n": "N",
    "n_items": "N items",
    "dval": "Δ val_pref_acc",
    "val_pref_acc": "val_pref_acc",
    "has": "HAS",
    "has_rank": "HAS rank",
    "has_worker": "HAS (workers)",
    "has_expert": "HAS (experts)",
    "computer_math": "Computer and math",
    "all": "All",
}
#: columns whose 0/1 values are yes/no
BOOLEAN_COLS = frozenset({"top3_stable", "in_top10", "converged"})


def readable(slug: str) -> str:
    """A register slug as a reader reads it: :data:`LABELS`, else ``h1`` -> ``H1``, ``x__y`` -> ``X vs Y``,
    ``a_to_b`` -> ``A → B``, ``recipe_a`` -> ``Recipe A``, ``*_worker`` / ``*_expert`` / ``*_n`` as
    qualifiers, and otherwise underscores as spaces with a capital first letter. Ids and CSVs keep the slug."""
    s = str(slug)
    if s in LABELS:
        return LABELS[s]
    if "__" in s:
        return " vs ".join(readable(p) for p in s.split("__"))
    if re.fullmatch(r"h[1-5]", s):
        return s.upper()
    m = re.fullmatch(r"([a-d])_to_([a-d])", s)
    if m:
        return f"{m.group(1).upper()} → {m.group(2).upper()}"
    m = re.fullmatch(r"recipe_([a-z])", s)
    if m:
        return f"Recipe {m.group(1).upper()}"
    for suffix, word in (("_worker", "workers"), ("_expert", "experts"), ("_n", "N")):
        if s.endswith(suffix) and len(s) > len(suffix):
            return f"{readable(s[: -len(suffix)])} ({word})"
    text = s.replace("_", " ")
    return text[:1].upper() + text[1:]

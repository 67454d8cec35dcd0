"""The claims check's fixed vocabulary: the studies, statuses, levels, relations and reasons, the symbols the
reader sees, the columns of ``results/claims/claims.csv`` and :class:`RegisterError`."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from compendium.pipeline import paths

STUDIES = ("pwb", "workbank", "hitl")
STUDY_STAGE = {"workbank": "workbank", "pwb": "pwb", "hitl": "preferences"}
STUDY_PKG = {"pwb": "pwb", "workbank": "workbank", "hitl": "preferences"}
STUDY_PREFIX = {"pwb": "pwb.", "workbank": "wb.", "hitl": "hitl."}
STUDY_NAME = {"pwb": "Pro-Worker AI Benchmark", "workbank": "WORKBank", "hitl": "Human preferences"}
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

"""Off-paper runs, checked as functions of a result (issue 38): shared by the per-key tests of the studies and the
commands suite's exercises.

- :func:`status_problems`: the claims whose status changes off the paper's settings are exactly those whose value
  moved against the run at the reference settings; every other claim keeps its status, reason and evidence.
- :func:`attribution_problems`: no sentence attributes a number to the paper that the paper does not print ("+24.8
  in the paper's own table" where the paper prints +25.4).
- :func:`results_dir_for`: a results folder holding what ``own_statuses`` reads (the params stage's records with the
  changed keys, and the study's reference.json), so a chapter's verdicts can be computed off the paper in a test.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

from compendium import claims
from compendium.pipeline import params, studies
from compendium.pipeline.results import write_reference

__all__ = ["off_keys", "results_dir_for", "status_problems", "attribution_problems", "published_numbers"]


def off_keys(section: str, changed: dict) -> list[str]:
    """The changed keys as the claims check names them (``section.key = value (reference ..., source)``)."""
    sections = {s: {k: v for k, (v, _) in keys.items()} for s, keys in params.REFERENCE.items()}
    sections[section] = sections[section] | changed
    return [f"{k} = {v} (reference {ref}, {src})" for k, v, ref, src in params.off_paper(sections, only=(section,))]


def results_dir_for(tmp: Path, study_id: str, changed: dict, reference_values: dict) -> Path:
    """``tmp/results`` with ``params/*.json`` as the params stage writes them with ``changed`` keys of ``study_id``'s
    section, and ``<stage>/reference.json`` holding ``reference_values``."""
    sections = copy.deepcopy({s: {k: v for k, (v, _) in keys.items()} for s, keys in params.REFERENCE.items()})
    sections[study_id] |= changed
    root = tmp / "results"
    (root / "params").mkdir(parents=True, exist_ok=True)
    for name, text in params.records(sections).items():
        (root / "params" / name).write_text(text)
    stage = studies.study(study_id).stage
    write_reference(stage, reference_values, off_paper=False, root=root / stage)
    return root


def status_problems(study_id: str, reference_values: dict, values: dict, keys: list[str]) -> list[str]:
    """Each claim of the study whose status changes between the reference run and this off-paper run although its
    value did not move, or which keeps no reason/evidence it had though it did not move; each off-paper claim
    whose value did not move."""
    st = studies.study(study_id)
    published = claims.load_published()
    pub = published[published["study"] == st.register]
    notes = claims.load_notes()
    before = claims.check(pub, {st.stage: reference_values}, notes)
    after = claims.check(
        pub, {st.stage: values}, notes, off_paper={st.register: keys}, reference={st.stage: reference_values}
    )
    out = []
    for b, a in zip(before.itertuples(index=False), after.itertuples(index=False), strict=True):
        moved = claims.moved(a.claim_id, values, reference_values)
        if a.status == "off_paper" and not moved:
            out.append(f"{a.claim_id}: off-paper run, but its value did not move")
        if not moved and (a.status, a.reason, a.evidence) != (b.status, b.reason, b.evidence):
            out.append(f"{a.claim_id}: {b.status} -> {a.status} (reason {b.reason!r} -> {a.reason!r}) without moving")
    return out


def published_numbers(study_register: str | None = None) -> list[float]:
    """Every number the register's claims print (of one study, or all)."""
    published = claims.load_published()
    if study_register is not None:
        published = published[published["study"] == study_register]
    out = []
    for v in published["published"]:
        vals = v if isinstance(v, (list, tuple)) else [v]
        for x in vals:
            try:
                out.append(float(x))
            except (TypeError, ValueError):
                continue
    return out


_NUM = r"([+\-−]?\d[\d,]*(?:\.\d+)?)"
#: phrases that attribute the number beside them to the paper
ATTRIBUTIONS = (
    re.compile(_NUM + r"\s*%?\s+in the paper's own table"),
    re.compile(r"the paper's own table prints\s+" + _NUM),
    re.compile(r"the paper prints\s+" + _NUM),
    re.compile(r"printed as\s+" + _NUM + r"\s+in the paper"),
    re.compile(r"the paper(?:'s text)? (?:reports|quotes|gives)\s+" + _NUM),
)


def _matches(text_number: str, numbers: list[float]) -> bool:
    t = text_number.replace(",", "").replace("−", "-").lstrip("+")
    x = float(t)
    decimals = len(t.split(".")[1]) if "." in t else 0
    half = 0.5 * 10**-decimals + 1e-9
    return any(abs(abs(x) - abs(v)) <= half or abs(abs(x) - 100 * abs(v)) <= half for v in numbers)


def attribution_problems(text: str, numbers: list[float], extra: tuple[float, ...] = ()) -> list[str]:
    """Every number ``text`` attributes to the paper (:data:`ATTRIBUTIONS`) that is none of ``numbers`` (the
    register's printed numbers) nor ``extra`` (numbers the paper prints that the register does not list), to the
    precision it is written with."""
    out = []
    for pat in ATTRIBUTIONS:
        for m in pat.finditer(text):
            if not _matches(m.group(1), list(numbers) + list(extra)):
                out.append(f"{m.group(0)!r}: {m.group(1)} is not a number the paper prints")
    return out

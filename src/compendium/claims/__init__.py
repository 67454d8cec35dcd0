"""The claims check: every number the three sources print, against what the pipeline computed from the data.

Inputs
------
- the register ``published/{pwb,workbank,hitl}.yaml``: ``claims`` (id, what, published, tol, where, level,
  printed, note, relation, kind) and ``tables`` (rows, cols, id_pattern, existing_ids, blank_cells, same_as);
- the notes ``published/notes/<study>.yaml``: why a claim that the pipeline computes differs from the
  paper (``kind: differs`` with a ``reason`` of a fixed kind and its ``evidence``), or how a reproduced
  number was obtained (``kind: caveat``);
- each study stage's ``results/<stage>/values.json`` (a flat ``{id: value}``; variants as
  ``<id>.variant.<slug>``, Monte-Carlo standard errors as ``<id>.mc_se``) and ``missing.json`` (for each
  ``null``, the input it needs);
- ``compendium.<pkg>.register.PROVENANCE`` (id prefix -> "function (test)"), where the module exists.

Statuses (one per claim)
------------------------
- ``reproduced``: the stage published a value and it matches the paper: ``|ours - paper| <= tol``
  (element-wise for arrays), the ``relation`` holds (:func:`relation_holds`), or for ``kind: label`` the
  text is equal after case and white space are normalised (:func:`same_label`);
- ``differs``: it does not match, and ``published/notes/<study>.yaml`` explains it with one of
  :data:`REASONS`. Two reasons are checked, not only stated: ``monte_carlo`` holds only while
  ``|ours - paper| <= 3 x <id>.mc_se`` (the Monte-Carlo standard error the stage computed), and
  ``rounding_boundary`` only while the gap is at most one printed unit (``2 x tol``);
- ``needs_data``: no value, and the claim's ``level`` says why: ``per_instance`` / ``row_level`` (the
  data are not released here), or ``outside`` with the missing external file named in ``missing.json``;
- ``quoted``: no value and ``level: none`` (a design constant, or a statement the released data do not determine). A
  ``none`` claim whose value the project's inputs hold (published by the stage) is checked like any other;
- ``off_paper``: the run is off the paper's settings for this claim's study (a key of the study stage's
  ``params.yaml`` section differs from its reference, ``compendium.pipeline.params.REFERENCE``) and the value does not
  match: it is not expected to (the changed keys are named in the note);
- ``unexplained``: everything else -- a computed value that misses without a valid note, a ``raw`` claim
  the stage did not compute, an ``outside`` claim with no value and no file named. The claims test fails on
  any; off the paper's parameters (``dvc exp run -S ...``) the stage still runs and reports them.

Variants (``<id>.variant.<slug>``) are shown beside their claim and never compared.

The package, by job: :mod:`.vocab` (the fixed words: studies, statuses, levels, reasons, symbols, columns),
:mod:`.cells` (a register table's rows x columns -> claim ids, shared with the study register modules;
merging value dicts), :mod:`.register` (reading the register, notes, values, missing inputs and
provenance), :mod:`.compare` (tolerances, relations, statuses, one evaluation), :mod:`.output` (the stage's
files and the chapter's prose numbers), :mod:`.html` (the chapter's HTML, from ``templates/``),
:mod:`.links` (where the chapter's links to code and data point), :mod:`.abstract` (the landing page's abstract),
:mod:`.diff` (``python -m compendium.claims diff REV``), :mod:`.ledger` (reading the ledger, its ``claims.json``
export), :mod:`.report` (a replication report per study) and :mod:`.cli` (the commands).
"""

from __future__ import annotations

from .cells import Cell, ValueClash, cell_map, expand_cells, merge_values, same_value
from .compare import (
    Evaluation,
    approx_equal,
    change_lines,
    check,
    evaluate,
    gap,
    load_reference,
    matches,
    moved,
    normalise_label,
    off_paper_studies,
    own_statuses,
    previous_claims_csv,
    read_statuses,
    relation_holds,
    same_label,
    status_changes,
    summary,
    verdict,
    within_tolerance,
)
from .html import (
    anchor,
    claim_decimals,
    clean_printed,
    completeness_html,
    fmt_number,
    legend_html,
    paper_html,
    readable_html,
    readable_text,
    reader_note,
    reason_rows,
    section_id,
    sphinx_label_titles,
    sphinx_labels,
    study_html,
    style_html,
    summary_display,
    table_html,
    table_provenance_html,
    text_claims_html,
    tolerance_decimals,
    trail,
    why_anchor,
    why_html,
    wide_tolerance,
)
from .output import prose_values, write_outputs
from .register import (
    RegisterTable,
    data_for,
    load_data_files,
    load_missing,
    load_notes,
    load_provenance,
    load_published,
    load_tables,
    load_values,
    missing_cell_ids,
    note_problems,
    provenance_for,
    register_levels,
    split_provenance,
    validate_note,
)
from .vocab import (
    APPROX_DECADES,
    APPROX_REL,
    BOOLEAN_COLS,
    COLUMNS,
    LABELS,
    LEVEL_NAME,
    LEVELS,
    MARK,
    MC_SE,
    MC_SIGMAS,
    MODEL_NAMES,
    NO_CLAIM,
    NOTE_KEYS,
    NOTE_KINDS,
    REASONS,
    RELATIONS,
    STATUSES,
    STUDIES,
    STUDY_NAME,
    STUDY_PKG,
    STUDY_PREFIX,
    STUDY_STAGE,
    VARIANT,
    WIDE_MARK,
    RegisterError,
    readable,
)

__all__ = [
    "APPROX_DECADES",
    "BOOLEAN_COLS",
    "LABELS",
    "LEVEL_NAME",
    "MODEL_NAMES",
    "APPROX_REL",
    "COLUMNS",
    "LEVELS",
    "MARK",
    "MC_SE",
    "MC_SIGMAS",
    "NO_CLAIM",
    "WIDE_MARK",
    "NOTE_KEYS",
    "NOTE_KINDS",
    "REASONS",
    "RELATIONS",
    "STATUSES",
    "STUDIES",
    "STUDY_NAME",
    "STUDY_PKG",
    "STUDY_PREFIX",
    "STUDY_STAGE",
    "VARIANT",
    "Cell",
    "Evaluation",
    "RegisterError",
    "RegisterTable",
    "ValueClash",
    "anchor",
    "approx_equal",
    "cell_map",
    "change_lines",
    "check",
    "claim_decimals",
    "clean_printed",
    "completeness_html",
    "evaluate",
    "expand_cells",
    "fmt_number",
    "gap",
    "load_reference",
    "moved",
    "legend_html",
    "data_for",
    "load_data_files",
    "load_missing",
    "load_notes",
    "load_provenance",
    "load_published",
    "load_tables",
    "load_values",
    "matches",
    "merge_values",
    "missing_cell_ids",
    "normalise_label",
    "note_problems",
    "off_paper_studies",
    "own_statuses",
    "paper_html",
    "previous_claims_csv",
    "prose_values",
    "read_statuses",
    "readable",
    "reason_rows",
    "register_levels",
    "relation_holds",
    "same_label",
    "same_value",
    "section_id",
    "readable_html",
    "readable_text",
    "reader_note",
    "sphinx_label_titles",
    "sphinx_labels",
    "tolerance_decimals",
    "split_provenance",
    "status_changes",
    "study_html",
    "style_html",
    "summary",
    "summary_display",
    "table_html",
    "table_provenance_html",
    "text_claims_html",
    "validate_note",
    "verdict",
    "trail",
    "why_anchor",
    "why_html",
    "wide_tolerance",
    "within_tolerance",
    "write_outputs",
]

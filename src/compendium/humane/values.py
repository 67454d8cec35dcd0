"""What the scale chapter records: its values (``results/humane/values.json``) and its result tables
(``results/humane/tables/``), each a pure function of the result. The chapter writes both once, with
:func:`compendium.chapter.publish.publish`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from compendium.chapter.publish import phrases

from . import summary

if TYPE_CHECKING:
    from .build import HumaneResult

__all__ = ["stage_values", "tables"]


def stage_values(result: HumaneResult) -> dict:
    """``results/humane/values.json``: every number and phrase the prose quotes (:data:`.summary.PHRASES`) but
    the two Markdown paragraphs (:func:`.summary.paragraph_phrases`, sentences built from these values)."""
    recorded = tuple(f for f in summary.PHRASES if f is not summary.paragraph_phrases)
    return phrases(result, recorded, what="humane values")


def tables(result: HumaneResult) -> dict[str, pd.DataFrame]:
    """The chapter's result tables, ``results/humane/tables/<name>.csv``: the book grid's answers (calibration also
    per setting, consolidation also per checkpoint), its recovery curves and the default grid's judgements needed."""
    return {
        "needed": result.needed,
        "saving": result.saving,
        "calibration": result.calibration,
        "calibration_settings": result.calibration_settings,
        "consolidation": result.consolidation,
        "consolidation_cells": result.consolidation_cells,
        "curves": result.curves,
        "default_needed": result.default.needed,
    }

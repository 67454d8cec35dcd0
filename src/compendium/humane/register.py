"""The scale chapter's register values: none.

No source prints the scale chapter's numbers (it simulates leaderboards at scales no study reports; the talk's
claims it weighs are stated in words, not numbers), so there is no ``published/<register>.yaml`` to compare
them with and no claim id to map them to: :func:`register_values` returns ``({}, {})`` and the chapter
publishes with ``register=None`` (no ``missing.json``). Which of the talk's claims hold at which scale is the
chapter's own analysis of its savings (:func:`compendium.humane.summary.claims_text`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .build import HumaneResult

__all__ = ["register_values"]


def register_values(result: HumaneResult) -> tuple[dict[str, Any], dict[str, str]]:
    """``(values, missing)`` of the register: both empty, since no source prints this chapter's numbers."""
    return {}, {}

"""The audit chapter's register values: none.

No source prints the audit's numbers (the papers do not audit their judges or their leaderboards), so there is
no ``published/<register>.yaml`` and no claim id to map them to: :func:`register_values` returns ``({}, {})``
and the chapter publishes with no ``missing.json``. The anchors the chapter compares with (FastChat's
self-preference, HumaneBench's drop-one-judge check) are quoted in its prose, not claims of these papers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .build import AuditResult

__all__ = ["register_values"]


def register_values(result: AuditResult) -> tuple[dict[str, Any], dict[str, str]]:
    """``(values, missing)`` of the register: both empty, since no source prints this chapter's numbers."""
    return {}, {}

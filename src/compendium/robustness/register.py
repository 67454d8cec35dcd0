"""The robustness chapter's register values: none.

No source prints the robustness chapter's numbers (it sweeps the studies' fixed choices; every number it
publishes is its own), so there is no ``published/<register>.yaml`` to compare them with and no claim id to map
them to: :func:`register_values` returns ``({}, {})`` and the chapter publishes with ``register=None`` (no
``missing.json``). Whether each *study's* finding holds under the sweeps is the chapter's own analysis,
:mod:`.findings`, recorded as ``rob.*`` values by :mod:`.values`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .build import RobustnessResult

__all__ = ["register_values"]


def register_values(result: RobustnessResult) -> tuple[dict[str, Any], dict[str, str]]:
    """``(values, missing)`` of the register: both empty, since no source prints this chapter's numbers."""
    return {}, {}

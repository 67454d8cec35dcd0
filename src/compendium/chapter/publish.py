"""The one way a chapter ends: its values merged with the register's, written once, with its tables.

Every study chapter's last cell is::

    values = publish(STAGE, values.stage_values(result), register.register_values(result), values.tables(result))

and :func:`phrases` is the one way a wing's ``summary`` collects its small ``*_phrases(result)`` functions.
Both merge with :func:`compendium.pipeline.results.merge_values`: a key that two parts give different values
raises and names each such key, so no number is silently overwritten by another computation of it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import pandas as pd

from compendium.pipeline import studies
from compendium.pipeline.results import (
    merge_values,
    write_exports,
    write_missing,
    write_reference,
    write_table,
    write_values,
)

__all__ = ["publish", "phrases"]


def publish(
    stage: str,
    values: Mapping[str, Any],
    register: tuple[Mapping[str, Any], Mapping[str, str]] | None = None,
    tables: Mapping[str, pd.DataFrame] | None = None,
) -> dict[str, Any]:
    """Write a chapter's results and return the values it published.

    ``values``: the chapter's own values (the wing's ``values.stage_values(result)``); ``register``: ``(values,
    missing)`` from the wing's ``register.register_values(result)``, or None for a study without a register
    (then no ``missing.json`` is written); ``tables``: name -> table, each written to ``tables/<name>.csv``.
    Writes ``values.json`` (the merge of both value dicts: a clash raises
    :class:`~compendium.pipeline.results.ValueClash` naming every key), ``missing.json``, the small files
    other stages read (``exports/<consumer>.json``, :func:`~compendium.pipeline.results.write_exports`), and
    ``reference.json``, the values at the reference parameters that an off-paper run is compared with
    (:func:`~compendium.pipeline.results.write_reference`)."""
    reg_values, missing = register if register is not None else ({}, None)
    merged = merge_values(values, reg_values, what=f"{stage}: the chapter's values and the register's")
    for name, df in (tables or {}).items():
        write_table(stage, name, df)
    write_values(stage, merged)
    if missing is not None:
        write_missing(stage, missing)
    write_exports(stage, merged)
    write_reference(stage, merged, off_paper=_off_paper(stage))
    return merged


def _off_paper(stage: str) -> bool:
    """Whether this run of ``stage`` is off the reference parameters of its section (as the params stage recorded them)."""
    from compendium.pipeline.params import off_paper_from_files

    try:
        section = studies.stage(stage).section
    except KeyError:
        return False
    return bool(section and off_paper_from_files(only=(section,)))


def phrases(
    result: Any,
    functions: Iterable[Callable[[Any], Mapping[str, Any]]],
    what: str = "phrases",
    percents: Mapping[str, int] | None = None,
) -> dict:
    """Every ``{glue}`` value of a chapter: the union of ``f(result)`` for each of a wing's ``PHRASES``; two
    functions that give one key different values raise, naming the key (``what``: whose phrases).

    ``percents``: ``{key: decimals}``, the shares (0 to 1) among them that the prose prints as percentages; each
    also gets ``<key>_pct``, the book's percentage (:func:`compendium.chapter.numbers.share`, ``"67 %"``), which the
    prose quotes as ``{glue:text}`key_pct``` (Python's ``{glue:text}`key:.0%``` would print ``"67%"``)."""
    from compendium.chapter.numbers import share

    out = merge_values(*(f(result) for f in functions), what=what)
    for key, decimals in (percents or {}).items():
        if key not in out:
            raise KeyError(f"{what}: {key!r} is listed as a percentage but no phrase function gives it")
        if f"{key}_pct" in out:
            raise KeyError(f"{what}: {key}_pct is given by a phrase function and made from {key!r}; keep one")
        out[f"{key}_pct"] = share(out[key], decimals)
    return out

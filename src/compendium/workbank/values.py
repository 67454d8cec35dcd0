"""What the WORKBank chapter writes: its own values (``results/workbank/values.json``, beside the register's cells
that :func:`.register.register_values` maps) and every table of ``results/workbank/tables/``.

The chapter's last cell passes them to :func:`compendium.chapter.publish.publish`::

    values = publish(STAGE, stage_values(result), register_values(result), tables(result))

Nothing is computed here: the sections of :func:`compendium.workbank.build` computed every value and table once.
"""

from __future__ import annotations

import pandas as pd

from .register import register_summary, register_values

__all__ = ["stage_values", "tables"]


def stage_values(result) -> dict:
    """The chapter's own values (every section's, no key in two sections) of ``result`` (a
    :class:`~compendium.workbank.build.WorkbankResult`)."""
    return dict(result.values)


def tables(result) -> dict[str, pd.DataFrame]:
    """Every table the chapter writes (``results/workbank/tables/<name>.csv``): the sections' tables and
    ``register_summary``, the register's tables with their cells computed and left empty
    (:func:`.register.register_summary` of the register's mapping of ``result``)."""
    values, _ = register_values(result)
    return {**result.tables, "register_summary": register_summary(values, result.register)}

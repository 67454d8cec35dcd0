"""Building and checking the book: the HTML build and its swap (:mod:`.html`, ``python -m compendium.book``),
the PDF, the browser check, the Sphinx extensions, the FAIR metadata, the reproducibility page and the
check of every command the prose prints.

The top room: it may import every other room; nothing of the analyses imports it.
"""

from __future__ import annotations

from importlib import import_module


def __getattr__(name: str):
    """``compendium.book.X`` is :mod:`compendium.book.html`'s ``X`` (the build is this room's front door),
    imported on first use so that the Sphinx extensions beside it stay light."""
    if name.startswith("__"):
        raise AttributeError(name)
    return getattr(import_module(f"{__name__}.html"), name)

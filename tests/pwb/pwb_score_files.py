"""Results folders for the ``python -m compendium.pwb.score`` tests: a synthetic model's two files
(``compendium.data.synthetic_pwb.write_model``), rewritten by a function of the parsed JSON."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path


def rewrite(src: Path, dest: Path, change: Callable[[dict], None], variant: str | None = None) -> Path:
    """Copy the results files of ``src`` into ``dest`` (created), ``change`` applied to each parsed file, or
    only to the file of ``variant`` (``baseline`` or ``with_system_prompt``)."""
    dest.mkdir(parents=True, exist_ok=True)
    for f in sorted(src.glob("*.json")):
        d = json.loads(f.read_text())
        if variant is None or d["variant"] == variant:
            change(d)
        (dest / f.name).write_text(json.dumps(d), encoding="utf-8")
    return dest


def file_of(folder: Path, variant: str, model: str | None = None) -> Path:
    """The results file of ``variant`` (of ``model``, when the folder holds several) in ``folder``."""
    (f,) = [
        p
        for p in folder.glob("*.json")
        if (d := json.loads(p.read_text()))["variant"] == variant and model in (None, d["model_name"])
    ]
    return f

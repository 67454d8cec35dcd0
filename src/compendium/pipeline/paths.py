"""Every path the project uses, anchored at the repository root.

Code runs from papermill (cwd = notebooks/ or repo root), DVC (repo root), pytest and the book build;
all of them agree on these paths. Set ``COMPENDIUM_ROOT`` to point the package at another checkout.
"""

from __future__ import annotations

import os
from pathlib import Path


def _find_root() -> Path:
    env = os.environ.get("COMPENDIUM_ROOT")
    if env:
        return Path(env).resolve()
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "dvc.yaml").exists() or (parent / "pyproject.toml").exists() and (parent / "src").is_dir():
            return parent
    return Path.cwd().resolve()


ROOT = _find_root()
DATA = ROOT / "data"
WORKBANK = DATA / "workbank"
WORKBANK_EXTERNAL = WORKBANK / "external"
PWB = DATA / "pwb"
HITL = DATA / "hitl"
# COMPENDIUM_RESULTS redirects every stage's artifacts (the pipeline tests write to a temporary folder)
RESULTS = Path(os.environ["COMPENDIUM_RESULTS"]).resolve() if os.environ.get("COMPENDIUM_RESULTS") else ROOT / "results"
PUBLISHED = ROOT / "published"
BOOK = ROOT / "book"
NOTEBOOKS = ROOT / "notebooks"
PARAMS = ROOT / "params.yaml"


def stage_dir(stage: str) -> Path:
    """``results/<stage>``: where a stage writes its tables, figures and values.json.

    While :mod:`compendium.pipeline.stage` runs a stage, ``COMPENDIUM_STAGING=<stage>=<folder>`` points that
    stage's artifacts at a staging folder, swapped in only when the whole stage succeeded.
    """
    staging = os.environ.get("COMPENDIUM_STAGING", "")
    name, _, folder = staging.partition("=")
    if folder and name == stage:
        return Path(folder)
    return RESULTS / stage

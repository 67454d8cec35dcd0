"""The PWB study's names, typed once: dimensions, abbreviations, models, conditions and their claim keys.

A leaf module (it imports only :mod:`compendium.data.schema`, whose validated loaders need the same
names): every ``compendium.pwb`` submodule imports its constants from here, and
:mod:`compendium.pwb` re-exports them. ``tests/withdata/test_reference_pwb.py`` keeps its own copy on
purpose (an independent reference that does not import the package).
"""

from __future__ import annotations

from ..data.schema import PWB_DIMENSIONS, PWB_MODELS, PWB_VARIANTS

__all__ = ["DIMENSIONS", "ABBREV", "MODEL_KEYS", "CONDITIONS", "CONDITION_KEYS", "dim_label"]

#: The ten Layer-1 dimensions in the authors' order (run_analysis.py ``DIMENSIONS``).
DIMENSIONS: tuple[str, ...] = PWB_DIMENSIONS

#: The paper's abbreviations (Table 1); AR_d is appropriate reliance, AR adversarial resilience.
ABBREV: dict[str, str] = dict(
    zip(
        (*DIMENSIONS, "adversarial_resilience"),
        ("CF", "CE", "SP", "DA", "UT", "CO", "AS", "MC", "AR_d", "ES", "AR"),
        strict=True,
    )
)

#: Model display name -> short key used in the claim ids of published/pwb.yaml.
MODEL_KEYS: dict[str, str] = dict(
    zip(PWB_MODELS, ("glm51", "gemma4", "deepseek", "gptoss", "nemotron", "devstral", "qwen35"), strict=True)
)

#: The two evaluation conditions as the data name them, and the claim-id suffixes.
CONDITIONS: tuple[str, str] = PWB_VARIANTS
CONDITION_KEYS: dict[str, str] = {"baseline": "baseline", "with_system_prompt": "prompted"}


def dim_label(d: str, long: bool = False) -> str:
    """A dimension's display label: its abbreviation (``CF``), or with ``long`` its name and abbreviation."""
    name = d.replace("_", " ")
    return f"{name} ({ABBREV.get(d, '')})" if long else ABBREV.get(d, name)

"""Reproducible research compendium for three studies of human-centred AI evaluation.

Sub-packages: :mod:`compendium.data` (acquire, load, validate the raw inputs), :mod:`compendium.stats`
(shared statistical methods), one module per study, and :mod:`compendium.pipeline.results` (writing the
artifacts every stage produces).
"""

__version__ = "0.1.0"

"""Helpers the chapters share: numbered tables (:mod:`.display`), the figure theme (:mod:`.figstyle`),
the one way text from data reaches the book (:mod:`.safetext`) and the one way it writes a percentage or a
difference that may be zero (:mod:`.numbers`).

Imports only :mod:`compendium.pipeline`; the studies, the claims and the book may import it.
"""

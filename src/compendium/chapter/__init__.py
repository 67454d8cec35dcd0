"""Helpers the chapters share: numbered tables (:mod:`.display`), the figure theme (:mod:`.figstyle`)
and the one way text from data reaches the book (:mod:`.safetext`).

Imports only :mod:`compendium.pipeline`; the studies, the claims and the book may import it.
"""

"""``python -m compendium.claims diff|report|export``: see :mod:`compendium.claims.cli`."""

from .cli import main

raise SystemExit(main())

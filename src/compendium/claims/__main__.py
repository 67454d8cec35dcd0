"""``python -m compendium.claims diff REV``: see :mod:`compendium.claims.diff`."""

from .diff import main

raise SystemExit(main())

"""``python -m compendium.book build|check``: see :mod:`compendium.book.html`."""

import sys

from compendium.book.html import main

sys.exit(main())

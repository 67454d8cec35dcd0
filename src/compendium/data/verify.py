"""``python -m compendium.data.verify``: is ``data/`` the recorded raw data? (the check is
:mod:`compendium.pipeline.rawdata`, kept outside this package so that it imports no pandas)."""

import sys

from compendium.pipeline.rawdata import main

if __name__ == "__main__":
    sys.exit(main())

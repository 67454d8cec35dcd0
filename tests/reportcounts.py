"""The replication reports' counts by status, as a test expects them from the ledger: the one copy of the words a
report prints for each status (written out here, not imported from :mod:`compendium.claims.vocab`, so that a
renamed word fails) and of the comparison, shared by tests/claims/test_claims_report.py (the reports ``make
report`` and the claims stage write) and tests/book/test_report_pages.py (the book's copies).

    from reportcounts import STATUS_WORDS, by_status
"""

from __future__ import annotations

import pandas as pd

STATUS_WORDS = {
    "reproduced": "reproduced",
    "differs": "differs",
    "needs_data": "needs data",
    "quoted": "quoted",
    "off_paper": "off-paper run",
    "unexplained": "unexplained",
}


def by_status(got: dict[str, int], rows: pd.DataFrame) -> tuple[dict[str, int], dict[str, int]]:
    """``(shown, expected)``: a report's count for each status word (``got``: word -> count, as its status table
    reads) and the ledger's (``rows``: one study's rows of claims.csv), to be compared equal."""
    expected = {STATUS_WORDS[s]: int((rows["status"] == s).sum()) for s in STATUS_WORDS}
    return {w: got[w] for w in expected}, expected

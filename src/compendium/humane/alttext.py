"""The alt text of the scale chapter's figure: the numbers it draws, in words (from the same frame)."""

from __future__ import annotations

import pandas as pd

from compendium.chapter.numbers import share

from .views import DESIGN_NAMES

__all__ = ["curves"]


def curves(cv: pd.DataFrame) -> str:
    """The recovery curves of :func:`compendium.humane.figures.curves` (study spread, study ties): each design's
    P(top) and P(full ranking) at the budget, per number of models."""
    cv = cv[(cv["spread"] == "study") & (cv["nu"] > 0)]
    last = cv.sort_values("n_decisive").groupby(["n_models", "design"]).last().reset_index()
    parts = [f"{r.n_models} models, {DESIGN_NAMES[r.design]}: P(top) {share(r.p_top)}, P(full ranking) {share(r.p_rank)}"
             for r in last.itertuples()]  # fmt: skip
    return ("Recovery probability against decisive judgements (log scale) for four pair-selection designs, "
            "5 and 20 models with the study's spread and ties; at the budget: " + "; ".join(parts) + ".")  # fmt: skip

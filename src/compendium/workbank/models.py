"""The WORKBank computations that no zone setting reaches, computed once by their own DVC stage.

    python -m compendium.workbank.models   # the workbank_models stage: writes results/workbank_models/

The Human Agency Scale with its tie-rule sensitivity, the skills, Krippendorff's alpha with the Table 1
mixed model, and the demographic groups with the raking (:data:`compendium.workbank.build.MODEL_SECTIONS`)
read the raw files and only the keys of ``PARTIAL_RECORDS["workbank_models"]`` (tie rule, seed, tie-break
draws, optimiser, group bootstrap, raking settings), never the zone cut-off, the sweep or the zone
bootstrap. So this stage computes them, and draws their five figures, once; the ``workbank`` stage reads
them back (:func:`load`) and an exercise on the cut-off (``dvc exp run -S workbank.cutoff=3.5``) does not
fit the mixed model or re-rake the sample again (about 4-5 s of the exercise loop on the 2-core machine).

Outputs, in ``results/workbank_models/``:

- ``sections.pkl``: the four sections exactly as :func:`compendium.workbank.build.build_models` returns
  them (values, tables, frames and facts: a pickle, because the chapter must get back the very objects, dtypes
  and index included, that a single-process build would have; it is this stage's own output in the project's
  DVC cache, read by the next stage only), with the parameter values it was computed with;
- ``figures/<name>.png``: the figures drawn from them (:data:`FIGURES`), alt text in each PNG; the
  chapter shows these very files (:func:`compendium.chapter.display.glue_png`).
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Mapping
from pathlib import Path

from compendium.pipeline import paths
from compendium.pipeline.params import Workbank

from .sections import Section

STAGE = "workbank_models"
PICKLE = "sections.pkl"
#: the pickle protocol of ``sections.pkl`` (fixed, so its bytes do not follow the interpreter's default)
PROTOCOL = 5


def _figures() -> dict[str, Callable[[Mapping[str, Section]], object]]:
    from . import figures

    return {
        "has_heatmap": lambda s: figures.has_heatmap(
            s["agency"].extra["matrix"],
            s["agency"].values["wb.has.diagonal"],
            s["agency"].values["wb.has.workers_more"],
        ),
        "h5_radar": lambda s: figures.h5_radar(s["agency"].tables["h5_profiles"]),
        "skill_shift": lambda s: figures.skill_shift(s["skills"].tables["skill_ranks"]),
        "demographic_groups": lambda s: figures.demographic_groups(
            s["demographics"].tables["demographic_groups"],
            s["demographics"].facts["response_mean_desire"],
            s["demographics"].facts["response_mean_has"],
        ),
        "representativeness": lambda s: figures.representativeness(
            s["demographics"].tables["sample_vs_bls_sectors"], s["demographics"].tables["sample_vs_bls_demographics"]
        ),
    }


#: the figures this stage draws (the chapter shows them with :func:`compendium.chapter.display.glue_png`)
FIGURES = ("has_heatmap", "h5_radar", "skill_shift", "demographic_groups", "representativeness")


def _plain(sections: Mapping[str, Section]) -> dict:
    return {
        name: {part: dict(getattr(sec, part)) for part in ("values", "tables", "extra", "facts")}
        for name, sec in sections.items()
    }


def write(sections: Mapping[str, Section], params: Workbank, folder: Path) -> None:
    """Write ``sections`` (computed with ``params``) and their figures into ``folder``."""
    from compendium.chapter.display import save_png

    from .build import model_params

    folder.mkdir(parents=True, exist_ok=True)
    payload = {"params": model_params(params), "sections": _plain(sections)}
    (folder / PICKLE).write_bytes(pickle.dumps(payload, protocol=PROTOCOL))
    draw = _figures()
    for name in FIGURES:
        save_png(folder / "figures" / f"{name}.png", draw[name](sections))


def figure(name: str, root: Path | None = None) -> Path:
    """The PNG of figure ``name`` (one of :data:`FIGURES`) as the stage wrote it."""
    if name not in FIGURES:
        raise ValueError(f"{name!r} is not a figure of the {STAGE} stage ({', '.join(FIGURES)})")
    return (Path(root) if root is not None else paths.RESULTS / STAGE) / "figures" / f"{name}.png"


def load(params: Workbank, root: Path | None = None) -> dict[str, Section]:
    """The sections the ``workbank_models`` stage computed, checked against this run's ``params``: a missing
    output or one computed with other values of the keys it reads stops with the command that makes it."""
    from .build import model_params

    folder = Path(root) if root is not None else paths.RESULTS / STAGE
    f = folder / PICKLE
    fix = f"run `dvc repro {STAGE}` (or `dvc repro`, which runs it before the workbank stage)"
    if not f.is_file():
        raise FileNotFoundError(f"{f}: missing; the WORKBank chapter reads the {STAGE} stage's output: {fix}")
    payload = pickle.loads(f.read_bytes())  # noqa: S301 - this stage's own output, never data from outside
    want = model_params(params)
    if payload["params"] != want:
        diff = ", ".join(
            f"workbank.{k}={payload['params'].get(k)!r} there, {want[k]!r} here"
            for k in want
            if payload["params"].get(k) != want[k]
        )
        raise ValueError(f"{f}: computed with other parameters ({diff}); {fix}")
    return {name: Section(**parts) for name, parts in payload["sections"].items()}


def main() -> int:
    import json
    import time

    from compendium.pipeline.cli import safe_output
    from compendium.pipeline.notebooks import timing_file
    from compendium.pipeline.params import stage_section, study_params
    from compendium.pipeline.progress import done_line
    from compendium.pipeline.stage import python_stage

    from .build import Inputs, build_models

    safe_output()  # a terminal without UTF-8 gets escapes, not a UnicodeEncodeError

    t0 = time.perf_counter()
    with python_stage(STAGE) as folder:
        params = study_params("workbank", **stage_section(STAGE))  # its keys of the section; the rest are never read
        write(build_models(params, Inputs.load(params), stage=STAGE), params, folder)
    seconds = time.perf_counter() - t0
    timing = timing_file(STAGE)  # for the Reproducibility page's stage times, as the notebook stages do
    timing.parent.mkdir(parents=True, exist_ok=True)
    timing.write_text(json.dumps({"stage": STAGE, "notebook": None, "seconds": round(seconds, 2)}) + "\n")
    print(done_line(STAGE, seconds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

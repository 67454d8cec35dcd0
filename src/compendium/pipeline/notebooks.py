"""Post-processing of papermill-executed notebooks so that re-runs are byte-stable.

    python -m compendium.pipeline.notebooks finalize book/executed/00_data.ipynb data

papermill records start/end timestamps and durations in the notebook and cell metadata, and gives
its injected-parameters cell a random id. They change on every run, so DVC would see a new output
each time. ``finalize`` moves the stage's run time into ``results/.timings/<stage>.json`` (read by
the Reproducibility page; deliberately not a DVC output, so timings never make ``dvc status`` or
``dvc.lock`` change) and makes the notebook byte-stable.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import nbformat

from compendium.pipeline import paths

_VOLATILE = ("start_time", "end_time", "duration")


def strip_timestamps(nb) -> float | None:
    """Remove timing metadata in place; return the notebook's papermill duration in seconds (if any)."""
    pm = nb.metadata.get("papermill", {})
    duration = pm.get("duration")
    for k in _VOLATILE:
        pm.pop(k, None)
    pm.pop("environment_variables", None)
    for cell in nb.cells:
        cpm = cell.metadata.get("papermill")
        if cpm is not None:
            for k in _VOLATILE:
                cpm.pop(k, None)
        cell.metadata.pop("execution", None)
        if "injected-parameters" in cell.metadata.get("tags", []):
            cell["id"] = "injected-parameters"  # papermill gives it a random id on every run
    return duration


def timing_file(stage: str) -> Path:
    return paths.RESULTS / ".timings" / f"{stage}.json"


def strip_environment(nb) -> None:
    """Remove what depends on the machine rather than the analysis: the interpreter's patch version, the
    kernel's display name and papermill's input/output paths (absolute on the machine that ran it)."""
    nb.metadata.pop("language_info", None)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    pm = nb.metadata.get("papermill", {})
    for k in ("input_path", "output_path", "version"):
        pm.pop(k, None)


def strip_paths(nb, replacements: dict[str, str]) -> int:
    """Replace machine-specific paths in every text output (e.g. the repr of a ``Path`` a cell returned):
    ``{absolute: relative}``, longest first. Returns the number of outputs changed."""
    order = sorted(replacements, key=len, reverse=True)
    changed = 0

    def fix(text: str) -> str:
        for old in order:
            text = text.replace(old, replacements[old])
        return text

    for cell in nb.cells:
        for o in cell.get("outputs", []):
            before = json.dumps(o, sort_keys=True)
            if "text" in o:
                o["text"] = fix(o["text"] if isinstance(o["text"], str) else "".join(o["text"]))
            for mime, val in o.get("data", {}).items():
                if not mime.startswith("image/") and isinstance(val, (str, list)):
                    o["data"][mime] = fix(val if isinstance(val, str) else "".join(val))
            changed += json.dumps(o, sort_keys=True) != before
    return changed


def finalize(
    notebook: Path, stage: str | None = None, seconds: float | None = None, staging: Path | None = None
) -> float | None:
    """Strip volatile metadata from ``notebook``; record its run time for ``stage`` if given.

    Absolute paths in outputs (a stage's staging folder, the checkout) become repository-relative, so the
    executed notebook does not depend on where the repository was cloned."""
    nb = nbformat.read(notebook, as_version=4)
    duration = strip_timestamps(nb)
    strip_environment(nb)
    repl = {str(paths.ROOT) + "/": ""}
    if staging is not None and stage is not None:
        repl[str(staging)] = f"results/{stage}"
    strip_paths(nb, repl)
    duration = seconds if seconds is not None else duration
    nbformat.write(nb, notebook)
    if stage is not None:
        out = timing_file(stage)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(
            json.dumps(
                {"stage": stage, "notebook": Path(notebook).name, "seconds": round(duration, 2) if duration else None}
            )
            + "\n"
        )
    return duration


def glued(notebook: Path) -> dict[str, str]:
    """Every myst-nb ``glue`` in an executed notebook: ``{name: text/plain repr}`` (what the book prints)."""
    nb = nbformat.read(notebook, as_version=4)
    out = {}
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            sb = o.get("metadata", {}).get("scrapbook")
            if sb:
                out[sb["name"]] = o.get("data", {}).get(sb.get("mime_prefix", "") + "text/plain")
    return out


def main(argv: list[str] | None = None) -> int:
    from compendium.pipeline.cli import safe_output

    safe_output()  # a terminal without UTF-8 gets escapes, not a UnicodeEncodeError
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) not in (2, 3) or argv[0] != "finalize":
        print(__doc__, file=sys.stderr)
        return 2
    d = finalize(Path(argv[1]), argv[2] if len(argv) == 3 else None)
    print(f"{argv[1]}: timestamps stripped" + (f" (ran {d:.1f} s)" if d else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A banner on every page of the book when the build is off the paper's settings.

The ``params`` stage writes the validated sections of ``params.yaml`` to ``results/params/<section>.json``;
when any key differs from its reference (``compendium.pipeline.params.REFERENCE``: the paper's value, otherwise the
committed run's), this extension puts the theme's announcement bar on every page (chapters and landing
page), naming each changed key with its value and its reference. Keys and values come from a parameter
file, so they are escaped for HTML (``html.escape(quote=True)``), never parsed as Markdown. The ``book``
stage of ``dvc.yaml`` depends on those files, so changing a parameter rebuilds the book with the banner,
and restoring it (``make reset``) brings back the book without one.
"""

from __future__ import annotations

import html
from pathlib import Path

RESET = "make reset"


def banner_html(changed: list[tuple[str, object, object, str]]) -> str:
    """The announcement's HTML for the changed keys (``compendium.pipeline.params.off_paper``); '' when none."""
    if not changed:
        return ""
    items = "; ".join(
        f"<code>{html.escape(key, quote=True)}</code> = {html.escape(str(value), quote=True)} "
        f"({html.escape(source, quote=True)}: {html.escape(str(ref), quote=True)})"
        for key, value, ref, source in changed
    )
    return (
        '<div class="compendium-off-paper" role="note"><strong>Off-paper run.</strong> '
        f"This build's parameters differ from the reference: {items}. Numbers and statuses on every page "
        f"follow this run, not the paper; <code>{RESET}</code> restores the committed run.</div>"
    )


def run_banner() -> str:
    """:func:`banner_html` of this run's changed keys (the ``params`` stage's files); '' on the reference run or
    before the ``params`` stage has run."""
    from compendium.pipeline import paths
    from compendium.pipeline.params import off_paper_from_files

    params_dir = Path(paths.stage_dir("params"))
    return banner_html(off_paper_from_files(params_dir) if (params_dir / "valid.json").exists() else [])


def _config_inited(app, config) -> None:
    banner = run_banner()
    if banner:
        opts = dict(config.html_theme_options or {})
        opts["announcement"] = banner
        config.html_theme_options = opts


def setup(app):
    app.connect("config-inited", _config_inited)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

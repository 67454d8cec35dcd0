"""compendium.stage: the modules a stage's kernel imports ahead of the notebook, and the warm-up kernel."""

import textwrap

import pytest

from compendium import paths, stage


def test_imported_modules_reads_code_cells_only(tmp_path):
    src = tmp_path / "nb.md"
    src.write_text(
        textwrap.dedent(
            """\
            # A chapter

            from prose import nothing

            ```{code-cell} ipython3
            :tags: [remove-cell]
            import pandas as pd
            from compendium import display, preferences as pref
            from compendium.results import write_table, write_values
                import indented_is_ignored
            x = 1  # import not_at_line_start
            ```

            ```{code-cell} ipython3
            import pandas
            from compendium.pwb import aggregates as agg
            ```
            """
        )
    )
    assert stage.imported_modules(src) == [
        "pandas",
        "compendium",
        "compendium.display",
        "compendium.preferences",
        "compendium.results",
        "compendium.results.write_table",
        "compendium.results.write_values",
        "compendium.pwb",
        "compendium.pwb.aggregates",
    ]


@pytest.mark.parametrize("name", sorted(stage.STAGES))
def test_every_stage_notebook_imports_something_of_the_package(name):
    mods = stage.imported_modules(stage.STAGES[name].source)
    assert any(m.startswith("compendium") for m in mods), mods


def test_warm_kernel_imports_without_binding_names_and_shuts_down():
    from jupyter_core.utils import run_sync

    out: list[str] = []
    code = (
        "import sys, os\n"
        "print(sorted(n for n in ('json', 'compendium.paths') if n in sys.modules), "
        "'_compendium_warm_up' in dir(), 'importlib' in dir(), os.getcwd())"
    )

    async def ask(km):  # as nbclient does: a client of its own, in the running loop
        kc = km.client()
        kc.start_channels()
        try:
            await kc.wait_for_ready(timeout=60)
            return await kc.execute_interactive(
                code, timeout=60, output_hook=lambda msg: out.append(msg["content"].get("text", ""))
            )
        finally:
            kc.stop_channels()

    k = stage._Kernel(["json", "no_such_module_xyz", "compendium.paths"])
    try:
        reply = run_sync(ask)(k.km)
    finally:
        k.shutdown()
    assert reply["content"]["status"] == "ok"
    text = "".join(out)
    assert "['compendium.paths', 'json'] False False" in text, text
    assert str(paths.NOTEBOOKS) in text
    assert not run_sync(k.km.is_alive)()


@pytest.mark.parametrize("name", sorted(stage.STAGES))
def test_papermill_reads_every_parameter_of_the_parameters_cell(name):
    """papermill parses the parameters cell to tell which parameters a notebook has; a line it cannot parse
    (an '=' inside a comment defeats it) gives 'Passed unknown parameter' warnings in every run."""
    import re

    import jupytext
    from papermill.translators import PythonTranslator

    nb = jupytext.read(stage.STAGES[name].source)
    cells = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(cells) == 1, f"{name}: expected one cell tagged 'parameters'"
    assigned = re.findall(r"^(\w+)\s*=", cells[0].source, re.M)
    parsed = [p.name for p in PythonTranslator.inspect({"source": cells[0].source})]
    assert parsed == assigned

import pandas as pd
import pytest

from compendium.display import markdown_table, table


def test_markdown_table_formats_and_aligns():
    df = pd.DataFrame({"name": ["a|b", "c"], "x": [1.23456, float("nan")], "n": [3, 4]})
    assert markdown_table(df).splitlines() == [
        "| name | x | n |", "|---|---:|---:|", "| a\\|b | 1.23 | 3 |", "| c |  | 4 |"]


def test_table_is_a_numbered_myst_directive():
    md = table(pd.DataFrame({"a": [1]}), "tbl-x", "A   caption\n over lines.").data
    assert md.startswith(":::{table} A caption over lines.\n:name: tbl-x\n")
    assert md.rstrip().endswith(":::")
    with pytest.raises(ValueError, match="table name 'bad name'"):
        table(pd.DataFrame({"a": [1]}), "bad name", "c")


def test_plain_converts_numpy_scalars():
    import numpy as np

    from compendium.display import plain
    vals = [plain(np.float64(0.5)), plain(np.int64(3)), plain(np.bool_(True)), plain("x")]
    assert vals == [0.5, 3, True, "x"]
    assert [type(v) for v in vals] == [float, int, bool, str]


def test_glue_figure_saves_the_png_it_glues(tmp_path, monkeypatch):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from compendium import display, paths

    monkeypatch.setattr(paths, "RESULTS", tmp_path)
    glued = {}
    import myst_nb
    monkeypatch.setattr(myst_nb, "glue", lambda k, v, display=True: glued.setdefault(k, v))
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    path = display.glue_figure("demo", "line", fig, "demo_fig_line")
    assert path == tmp_path / "demo" / "figures" / "line.png" and path.exists()
    assert glued["demo_fig_line"].data == path.read_bytes()
    assert not plt.get_fignums()

import pandas as pd
import pytest

from compendium.chapter.display import markdown_table, table


def test_markdown_table_formats_and_aligns():
    df = pd.DataFrame({"name": ["a|b", "c"], "x": [1.23456, float("nan")], "n": [3, 4]})
    assert markdown_table(df).splitlines() == [
        "| name | x | n |",
        "|---|---:|---:|",
        "| a\\|b | 1.23 | 3 |",
        "| c |  | 4 |",
    ]


def test_table_is_a_numbered_myst_directive():
    md = table(pd.DataFrame({"a": [1]}), "tbl-x", "A   caption\n over lines.").data
    assert md.startswith(":::{table} A caption over lines.\n:name: tbl-x\n")
    assert md.rstrip().endswith(":::")
    with pytest.raises(ValueError, match="table name 'bad name'"):
        table(pd.DataFrame({"a": [1]}), "bad name", "c")


def test_plain_converts_numpy_scalars():
    import numpy as np

    from compendium.chapter.display import plain

    vals = [plain(np.float64(0.5)), plain(np.int64(3)), plain(np.bool_(True)), plain("x")]
    assert vals == [0.5, 3, True, "x"]
    assert [type(v) for v in vals] == [float, int, bool, str]


def test_glue_figure_saves_the_png_it_glues(tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from compendium.chapter import display
    from compendium.pipeline import paths

    monkeypatch.setattr(paths, "RESULTS", tmp_path)
    glued = {}
    import myst_nb

    monkeypatch.setattr(myst_nb, "glue", lambda k, v, display=True: glued.setdefault(k, v))
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    path = display.glue_figure("demo", "line", fig, "demo_fig_line", alt="A rising line from (0, 0) to (1, 1).")
    assert path == tmp_path / "demo" / "figures" / "line.png" and path.exists()
    assert glued["demo_fig_line"].data == path.read_bytes()
    assert not plt.get_fignums()


def test_table_formats_columns_as_text_before_alignment():
    df = pd.DataFrame({"name": ["a", "b"], "x": [1234.5, 2.0], "p": [0.000123456, 0.5]})
    md = table(df, "tbl-f", "c", formats={"x": "{:,.0f}", "p": "{:.2g}"}).data
    lines = [ln for ln in md.splitlines() if ln.startswith("|")]
    # formatted columns are text (left-aligned), exactly as str.format prints them
    assert lines[1] == "|---|---|---|"
    assert lines[2] == "| a | 1,234 | 0.00012 |" and lines[3] == "| b | 2 | 0.5 |"
    assert df["x"].tolist() == [1234.5, 2.0]  # the caller's frame is not changed
    with pytest.raises(KeyError, match="no column 'y'"):
        table(df, "tbl-f", "c", formats={"y": "{:.1f}"})


def test_glue_all_glues_every_key_as_plain_python_without_display(monkeypatch):
    import myst_nb
    import numpy as np
    from IPython.display import Markdown

    from compendium.chapter.display import glue_all

    calls = []
    monkeypatch.setattr(myst_nb, "glue", lambda k, v, display=True: calls.append((k, v, display)))
    md = Markdown("`lowest`")
    glue_all({"a": np.float64(0.25), "b": np.int64(3), "c": "text", "d": md})
    assert calls == [("a", 0.25, False), ("b", 3, False), ("c", "text", False), ("d", md, False)]
    assert type(calls[0][1]) is float and type(calls[1][1]) is int


def test_plain_floats_keep_12_significant_digits_so_machine_noise_does_not_reach_the_page():
    import numpy as np

    from compendium.chapter.display import plain

    assert plain(25.79882154882155) == plain(25.798821548821547) == 25.7988215488
    assert plain(np.float64(0.5)) == 0.5 and type(plain(np.float64(0.5))) is float


def test_table_cells_and_headers_from_data_are_literal_myst():
    from compendium.chapter.safetext import Markup, code

    df = pd.DataFrame({"task <b>": ["<img src=x onerror=alert(1)>", "{download}`/etc/passwd`", "a|b"], "n": [1, 2, 3]})
    md = markdown_table(df)
    assert "\\<img src\\=x onerror\\=alert\\(1\\)\\>" in md and "\\{download\\}\\`\\/etc\\/passwd\\`" in md
    assert "| task \\<b\\> |" in md and "a\\|b" in md and "<img" not in md.replace("\\<img", "")
    kept = markdown_table(pd.DataFrame({"loader": [code("load_x()")], "x": [Markup("**ok**")]}), markup=["loader"])
    assert "`load_x()`" in kept and "\\*\\*ok\\*\\*" in kept  # a column of Markup is not kept by pandas


def test_table_numbers_render_unchanged():
    md = markdown_table(pd.DataFrame({"x": [-0.125, 1234.5], "k": [-3, 7], "s": ["-0.5", "1,234"]}))
    assert "| -0.125 | -3 | -0.5 |" in md and "| 1.23e+03 | 7 | 1,234 |" in md
    assert markdown_table(pd.DataFrame({"s": ["www.x.org", "1_000_"]})).endswith("| www\\.x\\.org |\n| 1\\_000\\_ |")


def test_a_view_can_name_its_markup_columns_in_attrs():
    df = pd.DataFrame({"verdict": ["**yes** \\(1\\/1\\)"], "note": ["**no**"]})
    df.attrs["markup"] = ["verdict"]
    md = table(df, "tbl-x", "cap").data
    assert "| **yes** \\(1\\/1\\) | \\*\\*no\\*\\* |" in md

"""Alt text of the figures: written into the PNG, read back by the Sphinx extension, built from the data drawn."""

import struct
import zlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from PIL import Image

from compendium.chapter import display


def _png(tmp_path) -> bytes:
    fig, ax = plt.subplots(figsize=(1, 1))
    ax.plot([0, 1], [0, 1])
    path = tmp_path / "f.png"
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)
    return path.read_bytes()


def test_png_description_round_trips_and_pillow_reads_it(tmp_path):
    data = _png(tmp_path)
    text = "Line chart: share rises from 10 % to 90 % — ρ = 0.95."
    out = display.png_with_description(data, text)
    assert display.png_description(out) == text
    (tmp_path / "g.png").write_bytes(out)
    with Image.open(tmp_path / "g.png") as im:  # an independent PNG reader
        im.load()
        assert im.text["Description"] == text
        assert im.size == Image.open(tmp_path / "f.png").size
    # replacing keeps one Description, and the result is byte-stable
    again = display.png_with_description(out, "Other text.")
    assert display.png_description(again) == "Other text." and again.count(b"Description") == 1
    assert display.png_with_description(data, text) == out


def test_png_description_reads_plain_text_chunks(tmp_path):
    data = _png(tmp_path)
    body = b"Description\0Bar chart of 3 bars."
    chunk = struct.pack(">I", len(body)) + b"tEXt" + body + struct.pack(">I", zlib.crc32(b"tEXt" + body))
    assert display.png_description(data[:33] + chunk + data[33:]) == "Bar chart of 3 bars."
    assert display.png_description(data) is None
    with pytest.raises(ValueError, match="not a PNG"):
        display.png_description(b"GIF89a")


@pytest.mark.parametrize("bad", ["", "   ", "../_images/f55a97a3.png", "figure.PNG"])
def test_clean_alt_rejects_empty_and_file_names(bad):
    with pytest.raises(ValueError):
        display.clean_alt(bad)


def test_with_alt_attaches_the_text_of_the_same_arguments():
    def alt(xs, label="x"):
        return f"Line of {len(xs)} points, {label} peaks at {max(xs)}."

    @display.with_alt(alt)
    def plot(xs, label="x"):
        fig, ax = plt.subplots()
        ax.plot(xs)
        return fig

    fig = plot([1, 5, 2], label="y")
    assert display.figure_alt(fig) == "Line of 3 points, y peaks at 5."
    assert plot.alt_text is alt
    plt.close(fig)


def test_glue_figure_writes_the_alt_text_into_the_png(tmp_path, monkeypatch):
    from compendium.pipeline import paths

    monkeypatch.setattr(paths, "RESULTS", tmp_path)
    glued = {}
    import myst_nb

    monkeypatch.setattr(myst_nb, "glue", lambda k, v, display=True: glued.setdefault(k, v))
    fig, ax = plt.subplots()
    display.set_alt(fig, "attached text.")
    path = display.glue_figure("demo", "a", fig, "demo_a")
    assert display.png_description(path.read_bytes()) == "attached text."
    assert glued["demo_a"].data == path.read_bytes()
    fig, _ = plt.subplots()
    path = display.glue_figure("demo", "b", fig, "demo_b", alt="explicit text.")
    assert display.png_description(path.read_bytes()) == "explicit text."
    fig, _ = plt.subplots()
    with pytest.warns(UserWarning, match="no alt text"):
        path = display.glue_figure("demo", "c", fig, "demo_c")
    assert display.png_description(path.read_bytes()) is None


def test_sphinx_extension_fills_alt_from_the_png(tmp_path):
    from types import SimpleNamespace

    from docutils import nodes

    from compendium.book import sphinx_alt

    src = tmp_path / "book"
    (src / "executed").mkdir(parents=True)
    out = tmp_path / "jupyter_execute"
    out.mkdir()
    (out / "abc.png").write_bytes(display.png_with_description(_png(tmp_path), "Heatmap of 5 by 5 counts."))
    (out / "none.png").write_bytes(_png(tmp_path))
    doc = nodes.document(None, None)
    a = nodes.image(uri="/../jupyter_execute/abc.png")
    b = nodes.image(uri="/../jupyter_execute/none.png")
    c = nodes.image(uri="/../jupyter_execute/abc.png", alt="Given by the author.")
    doc += [a, b, c]
    env = SimpleNamespace(docname="executed/x", doc2path=lambda name: src / f"{name}.ipynb")
    app = SimpleNamespace(env=env, srcdir=str(src))
    assert sphinx_alt.fill_alt(app, doc) == 1
    assert a["alt"] == "Heatmap of 5 by 5 counts."
    assert "alt" not in b
    assert c["alt"] == "Given by the author."
    assert sphinx_alt.image_file("https://x.org/a.png", src, src / "x.ipynb") is None


# ----------------------------------------------------------------------- the figures' alt-text functions


def test_pwb_alt_texts_state_the_numbers_drawn():
    from compendium.pwb import alttext, figures

    t2 = pd.DataFrame(
        {
            "model": ["A", "B", "C"],
            "baseline": [40.0, 50.0, 30.0],
            "prompted": [80.0, 60.0, 75.5],
            "delta_printed": [40.0, 10.0, 45.5],
        }
    )
    text = alttext.pwi_dumbbell(t2)
    assert "3 models" in text and "Every model scores higher" in text
    assert "from 10.0 points for B to 45.5 for C" in text and "A's 80.0" in text
    fig = figures.plot_pwi_dumbbell(t2)
    assert display.figure_alt(fig) == text
    plt.close(fig)
    t2.loc[1, "prompted"] = 45.0
    assert "2 of 3 models score higher" in alttext.pwi_dumbbell(t2)

    corr = pd.DataFrame(
        np.eye(3),
        index=["anti_sycophancy", "complementarity", "skill_preservation"],
        columns=["anti_sycophancy", "complementarity", "skill_preservation"],
    )
    corr.iloc[0, 2] = corr.iloc[2, 0] = 0.81
    corr.iloc[0, 1] = corr.iloc[1, 0] = -0.2
    text = alttext.correlation(corr)
    assert "1 of 3 pairs exceed |r| = 0.70" in text and "(r = 0.81)" in text


def test_workbank_alt_texts_state_the_numbers_drawn():
    from compendium.workbank import alttext, figures

    land = pd.DataFrame(
        {"capability": [4, 4, 2, 2, 4.5], "desire": [4, 2, 4, 2, 3.5], "zone": ["green", "red", "rnd", "low", "green"]}
    )
    text = alttext.landscape(land, 3.0, 0.123)
    assert "5 tasks" in text and "Green Light 2" in text and "Red Light 1" in text and "0.123" in text
    fig = figures.landscape(land, 3.0, 0.123)
    assert display.figure_alt(fig) == text
    plt.close(fig)
    m = pd.DataFrame(np.diag([5, 30, 2, 1, 0]))
    text = alttext.has_heatmap(m, 80.0, 12.5)
    assert "80.0 % of tasks" in text and "12.5 %" in text and "workers H2, experts H2 (30 tasks)" in text


def test_preferences_and_robustness_alt_texts_state_the_numbers_drawn():
    from compendium.preferences import alttext
    from compendium.robustness import alttext as robustness_alttext

    pairs = pd.DataFrame(
        {
            "higher_val_model": ["recipe_a", "recipe_b"],
            "lower_val_model": ["untrained", "recipe_a"],
            "higher_val_win_rate": [0.62, 0.48],
            "wilson_lo": [0.55, 0.41],
            "wilson_hi": [0.69, 0.55],
            "signal": ["tracks", "noisy"],
        }
    )
    text = alttext.pair_forest(pairs)
    assert "2 model pairs" in text and "1 tracks, 0 flips, 1 noisy" in text and "0.62 (0.55 to 0.69)" in text
    bt = pd.DataFrame(
        {"tie_weight": [0.0, 0.5, 1.0, np.nan], "m1": [1.2, 1.1, 1.0, 1.15], "m2": [0.8, 0.9, 1.05, 0.85]}
    )
    text = robustness_alttext.bt_sweep(bt, ["m1", "m2"], {"m1": "One", "m2": "Two"})
    assert "changes with the tie weight" in text and "w = 1: Two" in text and "w = 0: One" in text


def test_prompt_domains_alt_text_counts_layer_one_only():
    from compendium.pwb import alttext

    inv = pd.DataFrame(
        {
            "layer": [1, 1, 1, 1, 2],
            "domain": ["law", "law", "health_care", "law", "law"],
            "dimension": [
                "anti_sycophancy",
                "complementarity",
                "anti_sycophancy",
                "complementarity",
                "anti_sycophancy",
            ],
        }
    )
    text = alttext.prompt_domains(inv)
    assert "the 4 layer-1 prompts" in text and "law (3 prompts)" in text and "each dimension has 2 prompts" in text
    inv.loc[1, "dimension"] = "anti_sycophancy"
    assert "dimension totals range from 1 to 3" in alttext.prompt_domains(inv)


def test_the_books_alt_text_extension_reads_pngs_without_pandas_or_ipython(tmp_path):
    # every book build runs the extension on every figure; the chapter helpers (pandas, IPython) cost ~0.4 s there
    import subprocess
    import sys

    png = tmp_path / "a.png"
    png.write_bytes(display.png_with_description(_png(tmp_path), "Heatmap of 5 by 5 counts."))
    code = f"""
import sys
from types import SimpleNamespace
from docutils import nodes
from compendium.book import sphinx_alt
doc = nodes.document(None, None)
doc += nodes.image(uri={str(png)!r})
env = SimpleNamespace(docname="x", doc2path=lambda name: {str(tmp_path)!r} + "/x.ipynb")
assert sphinx_alt.fill_alt(SimpleNamespace(env=env, srcdir={str(tmp_path)!r}), doc) == 1
print(sorted(m for m in ("pandas", "IPython") if m in sys.modules))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"

"""The off-paper banner: every changed key with its value and reference, escaped for HTML."""

from types import SimpleNamespace

from bs4 import BeautifulSoup

from compendium.book import sphinx_offpaper


def test_no_banner_on_the_papers_settings():
    assert sphinx_offpaper.banner_html([]) == ""


def test_the_banner_names_each_key_value_and_reference_escaped():
    html = sphinx_offpaper.banner_html(
        [
            ("workbank.cutoff", 3.5, 3.0, "the paper"),
            (
                "preferences.annotations_path",
                "data/hitl/<img src=x onerror=alert(1)>.parquet",
                "data/x",
                "the committed run",
            ),
        ]
    )
    soup = BeautifulSoup(html, "html.parser")
    assert soup.find("img") is None and "onerror" not in str(soup.find_all(True)[0].attrs)
    text = " ".join(soup.get_text().split())
    assert "workbank.cutoff = 3.5 (the paper: 3.0)" in text
    assert "<img src=x onerror=alert(1)>" in text  # shown as text
    assert "make reset" in text


def test_the_extension_sets_the_announcement_from_the_params_stage(tmp_path, monkeypatch):
    import json

    from compendium.pipeline import params, paths

    d = tmp_path / "params"
    d.mkdir()
    for s, keys in params.REFERENCE.items():
        (d / f"{s}.json").write_text(json.dumps({k: v for k, (v, _) in keys.items()}))
    (d / "valid.json").write_text("{}")
    monkeypatch.setattr(paths, "stage_dir", lambda stage: d)
    config = SimpleNamespace(html_theme_options={"show_toc_level": 2})
    sphinx_offpaper._config_inited(None, config)
    assert "announcement" not in config.html_theme_options
    wb = {k: v for k, (v, _) in params.REFERENCE["workbank"].items()} | {"cutoff": 3.5}
    (d / "workbank.json").write_text(json.dumps(wb))
    sphinx_offpaper._config_inited(None, config)
    assert "workbank.cutoff" in config.html_theme_options["announcement"]
    assert config.html_theme_options["show_toc_level"] == 2

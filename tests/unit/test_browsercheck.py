"""The book checker's static part on a hand-made site: each kind of breakage is caught, clean pages pass."""

from compendium.browsercheck import static_problems


def _site(tmp_path, body_a, body_b="<main><h1 id='top'>B</h1></main>"):
    (tmp_path / "a.html").write_text(f"<html><body><main>{body_a}</main></body></html>")
    (tmp_path / "b.html").write_text(f"<html><body>{body_b}</body></html>")
    (tmp_path / "img.png").write_bytes(b"\x89PNG")
    return tmp_path


def test_clean_site_has_no_problems(tmp_path):
    site = _site(
        tmp_path,
        "<p>See <a href='b.html#top'>B</a> and <a href='https://dvc.org'>DVC</a>.</p>"
        "<img src='img.png' alt='Bar chart of two groups: A is twice B.'><pre>```python\n$$x$$</pre><span class='math'>\\(x\\)</span>",
    )
    assert static_problems(site) == []


def test_each_breakage_is_reported(tmp_path):
    site = _site(
        tmp_path,
        "<a href='missing.html'>x</a><a href='b.html#nowhere'>y</a><img src='gone.png'>"
        "<p>{glue:text}`wb_share:.1f` and :::</p><span class='problematic'>{numref}`fig-x`</span>",
    )
    probs = static_problems(site)
    text = "\n".join(probs)
    assert "a.html: broken link missing.html" in text
    assert "no anchor #nowhere in b.html" in text
    assert "a.html: missing image gone.png" in text
    assert "raw markup in text: '{glue:text}'" in text
    assert "unresolved markup (problematic)" in text


def test_a_role_broken_inside_inline_code_is_caught(tmp_path):
    # "`{glue:text}`key``" renders as <code>{glue:text}</code>key``: the role never ran
    site = _site(tmp_path, "<p>commit <code>{glue:text}</code>repro_commit``</p>")
    assert any("raw markup in text: '{glue:text}'" in p for p in static_problems(site))

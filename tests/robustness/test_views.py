"""The display copies of the chapter's tables (compendium.robustness.views)."""

from compendium.robustness import build as rb, views


def test_display_views_name_the_columns(result):
    r = result
    zv = views.zones_view(r.zones.sweep)
    assert list(zv.columns)[:3] == ["cutoff", "mean on cut-off", "Green Light"]
    assert set(zv["setting"]) == {"paper", ""} and zv["cutoff"].iloc[0] == "2.5"
    hv = views.has_view(r.agency.sweep, r.agency.untied)
    assert len(hv) == len(r.agency.sweep) + 1 and hv["workers' rule"].iloc[-1] == "(untied tasks only)"
    assert set(views.pwb_view(r.pwb.sweep)["all gain?"]) <= {"yes", "no"}
    assert "C / D strength ratio" in views.bt_view(r.bt.sweep, r.bt.models, {}).columns
    fv = views.findings_view(r.findings)
    assert fv["holds under all settings?"].str.startswith(("**yes**", "no")).all()
    grids = rb.Grids((2.5, 3.0), ("ge", "gt"), ("lowest",), (0.3,), (0.1,), (0.0, 0.5))
    gv = views.grids_view(grids, 500, 40.0)
    assert gv.loc[1, "grid"] == "high (ge), low (gt)" and gv.loc[0, "grid"] == "2.5, 3"

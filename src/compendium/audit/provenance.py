"""Where each audit value is computed: value-id prefix -> "function (test)".

Plain data, no imports, as every study's ``provenance.py``. The audit has no register (no source prints its
numbers), so these prefixes are those of its own values, the ``audit.*`` keys of ``results/audit/values.json``; a
value is linked to the entry of its longest matching prefix. ``tests/audit/test_audit_wing.py`` checks that every
value has one and that each name resolves.
"""

_J = "tests/audit/test_judges.py"
_R = "tests/audit/test_ranks.py"
_V = "tests/audit/test_votes.py"

#: id prefix -> "function (test)"; a value is linked to the longest matching prefix.
PROVENANCE: dict[str, str] = {
    "audit.judges.n_": f"compendium.audit.judges.unplaced_items ({_J})",
    "audit.judges.self.": f"compendium.audit.judges.self_preference_table ({_J})",
    "audit.judges.pivotal.": f"compendium.audit.judges.pivotal_shares ({_J})",
    "audit.judges.rule.": f"compendium.audit.judges.recusal_effect ({_J})",
    "audit.judges.panel.": f"compendium.audit.judges.panel_reliability ({_J})",
    "audit.judges.full.n_": f"compendium.audit.judges.unplaced_runs ({_J})",
    "audit.judges.full.self.": f"compendium.audit.judges.self_preference_table ({_J})",
    "audit.judges.full.cells": f"compendium.audit.judges.self_preference_table ({_J})",
    "audit.judges.full.pivotal.": f"compendium.audit.judges.pivotal_shares ({_J})",
    "audit.judges.full.rule.": f"compendium.audit.judges.recusal_effect ({_J})",
    "audit.judges.full.panel.": f"compendium.audit.judges.panel_reliability ({_J})",
    "audit.judges.full.length.": f"compendium.audit.judges.length_bias ({_J})",
    "audit.ranks.pref.": f"compendium.audit.ranks.tie_groups ({_R})",
    "audit.ranks.pwb.": f"compendium.audit.ranks.tie_groups ({_R})",
    "audit.ranks.transitivity.": f"compendium.audit.ranks.transitivity_test ({_R})",
    "audit.votes.rowlevel": f"compendium.audit.votes.position_effect ({_V})",
    "audit.votes.position.": f"compendium.audit.votes.position_effect ({_V})",
    "audit.votes.raters.": f"compendium.audit.votes.rater_influence_summary ({_V})",
    "audit.humaine.": f"compendium.audit.votes.humaine_comparison ({_V})",
}

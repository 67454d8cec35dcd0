"""The list of free-text fields (compendium.data.textfields): generated from the schemas, and every declared
document field exists in the released files."""

import pytest

from compendium.data import schema, textfields as tf
from compendium.pipeline import paths


def test_table_fields_are_the_schemas_free_text_columns():
    fields = {(f.spec.name, f.column) for f in tf.table_fields()}
    assert ("task_metadata", "Task") in fields and ("hitl_prompts", "text") in fields
    # a column with allowed values cannot carry other text, so it is not a field
    assert ("pwb_dimension_scores", "Model") not in fields
    n = sum(1 for s in (*schema.WORKBANK, *schema.PWB, *schema.HITL) for c in s.columns if c.kind == schema.STR)
    assert 0 < len(fields) < n


def test_map_strings_follows_keys_wildcards_and_lists():
    doc = {"a": {"name": "x", "rubric": {3: {"label": "l3"}, 2: {"label": "l2"}}}, "themes": [{"q": ["u", "v"]}]}
    doc, n = tf.map_strings(doc, "*.rubric.*.label", str.upper)
    assert n == 2 and doc["a"]["rubric"][3]["label"] == "L3"
    doc, n = tf.map_strings(doc, "themes[].q[]", lambda s: s + "!")
    assert n == 2 and doc["themes"][0]["q"] == ["u!", "v!"]
    assert tf.map_strings("text", "", str.upper) == ("TEXT", 1)


@pytest.mark.parametrize("doc", tf.DOCUMENTS, ids=lambda d: d.pattern)
def test_every_declared_document_field_is_in_the_released_files(doc):
    data = paths.ROOT / "data"
    if not data.is_dir():
        pytest.skip("data/ is not restored (dvc pull data.dvc)")
    for path in tf.document_files(data, doc):
        obj = tf.read_document(path, doc.fmt)
        for p in doc.paths:
            assert tf.map_strings(obj, p, lambda s: s)[1] > 0, f"{path}: no text at {p!r}"

"""games/text.py: the one rule for what the site accepts as text, and the form and serializer hooks."""

from __future__ import annotations

import pytest
from django import forms
from rest_framework.exceptions import ValidationError

from games.text import MAX_DEPTH, TextCheckedForm, TextField, data_problem, text_problem


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("a\x00b", "holds a NUL character (U+0000)"),
        ("\ud800", "holds a lone surrogate (U+D800), half of a character without its other half"),
        ("x\udfff", "holds a lone surrogate (U+DFFF), half of a character without its other half"),
        ("\ufdd0", "holds U+FDD0, which Unicode reserves as a non-character"),
        ("\ufdef", "holds U+FDEF, which Unicode reserves as a non-character"),
        ("\ufffe", "holds U+FFFE, which Unicode reserves as a non-character"),
        ("\U0001ffff", "holds U+1FFFF, which Unicode reserves as a non-character"),
        ("\U0010fffe", "holds U+10FFFE, which Unicode reserves as a non-character"),
    ],
)
def test_nul_lone_surrogates_and_non_characters_are_refused_by_code_point(text, problem):
    assert text_problem(text) == problem


@pytest.mark.parametrize(
    "text", ["", "d4", "Ève\u2019s maze ✓", "tab\tand\nline", "\ufdcf\ufdf0\ufffd", "😀"]
)
def test_every_other_text_is_accepted(text):
    assert text_problem(text) is None


def test_data_says_where_the_text_is_and_walks_any_depth_without_recursion():
    assert data_problem({"move": {"to": ["a1", "b\x00"]}}, what="The body") == (
        "The body's field move.to[1] holds a NUL character (U+0000)."
    )
    assert data_problem({"ok": {"\ufffe": 1}}, what="The body") == (
        "The body has a key that holds U+FFFE, which Unicode reserves as a non-character (in ok)."
    )
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    assert data_problem(deep, what="The body") == (
        f"The body nests lists and objects more than {MAX_DEPTH} levels deep."
    )
    assert data_problem({"a": [1, 2.5, None, True, {"b": "c"}]}) is None


class _Form(TextCheckedForm, forms.Form):
    name = forms.CharField()
    when = forms.DateTimeField(input_formats=["%Y-%m-%dT%H:%M"])
    kind = forms.ChoiceField(choices=[("a", "a")])
    data = forms.JSONField()


@pytest.mark.parametrize("field", ["name", "when", "kind", "data"])
def test_a_form_refuses_it_in_any_field_next_to_the_field_and_never_echoes_it(field):
    values = {"name": "x", "when": "2030-01-01T12:00", "kind": "a", "data": '{"a": ["b"]}'}
    assert _Form(values).is_valid()
    # In the JSON field the escape is plain text: only the value it parses to holds the NUL.
    values[field] = '{"a": ["b\\u0000"]}' if field == "data" else values[field] + "\x00"
    form = _Form(values)
    assert not form.is_valid()
    [error] = form.errors[field]
    assert "NUL character (U+0000)" in error and "\x00" not in error


def test_a_serializer_field_gives_one_reason_for_a_nul():
    field = TextField()
    with pytest.raises(ValidationError) as refused:
        field.run_validation("a\x00b")
    assert refused.value.detail == ["This text holds a NUL character (U+0000); remove it and try again."]

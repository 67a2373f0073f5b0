"""Text from outside: the one rule for what the site accepts as text, wherever it comes in.

A form, an API body or query string, an address, a layout, a chat line or an e-mail reply may not hold
a NUL (PostgreSQL stores none, in text or in JSON), a lone surrogate (half of a UTF-16 pair: no
character at all, and nothing can encode it) or a non-character (U+FDD0 to U+FDEF and the last two
code points of every plane, which Unicode reserves for a program's own use). Each is refused with a
reason that names the character by its code point and never echoes it; nothing is silently dropped.

``text_problem`` is the rule; ``data_problem`` applies it to every key and text of parsed JSON (with a
bound on nesting, so that no later step recurses a thousand levels deep). The boundary uses them in a
few places: ``wallsite.middleware.TextCheckMiddleware`` (addresses, query strings, the charset of a
body), ``games.api.parsers.JSONParser`` (API bodies), ``TextCheckedForm`` and ``TextField`` below
(forms and serializers), ``chat.services.message_post`` and ``games.mailin`` (chat lines, replies).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import ProhibitNullCharactersValidator
from rest_framework import serializers
from rest_framework.validators import ProhibitSurrogateCharactersValidator

# U+FFFE and U+FFFF of each of the 17 planes.
_PLANE_ENDS = "".join(f"{chr(plane << 16 | 0xFFFE)}{chr(plane << 16 | 0xFFFF)}" for plane in range(17))
_REFUSED = re.compile(f"[\x00\ud800-\udfff\ufdd0-\ufdef{_PLANE_ENDS}]")

# Control characters (a line break, a tab), line and paragraph separators, and invisible formatting (a
# right-to-left override would turn the rest of a row around): none belongs in a name shown in a list.
_NOT_IN_A_LINE = frozenset({"Cc", "Cf", "Zl", "Zp"})

# Parsed JSON nests no deeper than this anywhere the site reads it (an API body nests three levels).
MAX_DEPTH = 32
# How much of a key a reason quotes to say where the bad text is.
_KEY_SHOWN = 40


def text_problem(text: str) -> str | None:
    """None when ``text`` is acceptable, otherwise what is wrong with it, as the end of a sentence
    ("holds a NUL character (U+0000)"), naming the first refused character by its code point."""
    found = _REFUSED.search(text)
    if found is None:
        return None
    code = ord(found.group())
    if code == 0:
        return "holds a NUL character (U+0000)"
    if 0xD800 <= code <= 0xDFFF:
        return f"holds a lone surrogate (U+{code:04X}), half of a character without its other half"
    return f"holds U+{code:04X}, which Unicode reserves as a non-character"


def line_problem(text: str) -> str | None:
    """None when ``text`` can be shown as one line of a list, otherwise what is wrong with it."""
    for char in text:
        if unicodedata.category(char) in _NOT_IN_A_LINE:
            return f"holds U+{ord(char):04X}, a control or formatting character"
    return None


def data_problem(data: Any, *, what: str = "The data", max_depth: int = MAX_DEPTH) -> str | None:
    """None when every key and text of ``data`` (parsed JSON: dicts, lists, texts, numbers) is
    acceptable and it nests at most ``max_depth`` levels; otherwise a sentence starting with ``what``
    that says what is wrong and where. Iterative, so any depth is walked without recursion."""
    stack: list[tuple[Any, str, int]] = [(data, "", 1)]
    while stack:
        value, where, depth = stack.pop()
        if isinstance(value, dict | list) and depth > max_depth:
            return f"{what} nests lists and objects more than {max_depth} levels deep."
        if isinstance(value, str):
            problem = text_problem(value)
            if problem:
                return f"{what}'s field {where} {problem}." if where else f"{what} {problem}."
        elif isinstance(value, dict):
            for key, item in value.items():
                if isinstance(key, str):
                    problem = text_problem(key)
                    if problem:
                        return f"{what} has a key that {problem}{_within(where)}."
                stack.append((item, _key_path(where, key), depth + 1))
        elif isinstance(value, list):
            stack.extend((item, f"{where}[{index}]", depth + 1) for index, item in enumerate(value))
    return None


def _key_path(where: str, key: Any) -> str:
    name = str(key)
    if len(name) > _KEY_SHOWN or not name.isprintable():
        name = name[: _KEY_SHOWN - 1] + "…" if name.isprintable() else "…"
    return f"{where}.{name}" if where else name


def _within(where: str) -> str:
    return f" (in {where})" if where else ""


# --- forms and serializers ---------------------------------------------------------------------------


def validate_text(value: Any) -> None:
    """A validator for forms, models and serializers: a text, or parsed JSON (a form's JSONField),
    holding a refused character is a ValidationError with the reason."""
    if isinstance(value, str):
        problem = text_problem(value)
        if problem:
            raise ValidationError(f"This text {problem}; remove it and try again.", code="unreadable")
    elif isinstance(value, dict | list):
        problem = data_problem(value, what="This value")
        if problem:
            raise ValidationError(problem, code="unreadable")


def validate_one_line(value: Any) -> None:
    """A validator for a name (of a match, say): one line of text, as ``line_problem`` says."""
    problem = line_problem(value) if isinstance(value, str) else None
    if problem:
        raise ValidationError(
            f"A name is one line of text; this one {problem}: remove it and try again.", code="not_one_line"
        )


class TextCheckedForm(forms.BaseForm):
    """Mix in before a form class: every field refuses a value that ``text_problem`` refuses, with the
    reason next to the field, before the field reads it (a date field would parse "12:00\\x00", a choice
    field would echo it); a JSON field checks every text inside too."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The form's own copies of its fields: the class's stay as they were.
        for field in self.fields.values():
            field.clean = _text_checked(field.clean)
            if isinstance(field, forms.JSONField):
                field.validators.append(validate_text)


def _text_checked(clean: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(clean)
    def checked(value: Any, *args: Any, **kwargs: Any) -> Any:
        # What a widget read from the request: a text, or a list of them (several values, split fields).
        for text in value if isinstance(value, list | tuple) else [value]:
            if isinstance(text, str):
                validate_text(text)
        return clean(value, *args, **kwargs)

    return checked


class TextField(serializers.CharField):
    """DRF's CharField, refusing what ``text_problem`` refuses (in place of DRF's NUL and surrogate
    checks, so each gets one message). Bodies sent as JSON are checked whole by the API's parser; this
    covers the same field sent as a form."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        refused = (ProhibitNullCharactersValidator, ProhibitSurrogateCharactersValidator)
        self.validators = [v for v in self.validators if not isinstance(v, refused)]
        self.validators.append(validate_text)

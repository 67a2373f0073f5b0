"""Request parsers that answer a malformed body with a 400, whatever is wrong with it."""

from __future__ import annotations

from rest_framework import parsers
from rest_framework.exceptions import ParseError

from games.text import MAX_DEPTH, data_problem

DEPTH_REASON = f"The JSON body nests lists and objects more than {MAX_DEPTH} levels deep."


class JSONParser(parsers.JSONParser):
    """DRF's parser catches only ``ValueError``; absurdly deep nesting raises ``RecursionError`` and an
    unknown charset ``LookupError``, which would otherwise surface as a 500.

    What parses is then checked whole (games.text): a NUL, a lone surrogate or a non-character in any
    key or text, or nesting deeper than any request needs, is a 400 that says what and where. PostgreSQL
    would refuse the first two in a later write, and a deep body would make some later step recurse."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(DEPTH_REASON) from None
        except LookupError as exc:
            raise ParseError(f"JSON parse error - {type(exc).__name__}") from None
        problem = data_problem(data, what="The JSON body")
        if problem:
            raise ParseError(problem)
        return data

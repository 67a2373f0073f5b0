"""Request parsers that answer a malformed body with a 400, whatever is wrong with it."""

from __future__ import annotations

from rest_framework import parsers
from rest_framework.exceptions import ParseError


class JSONParser(parsers.JSONParser):
    """DRF's parser catches only ``ValueError``; absurdly deep nesting raises ``RecursionError`` and an
    unknown charset ``LookupError``, which would otherwise surface as a 500."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except (RecursionError, LookupError) as exc:
            raise ParseError(f"JSON parse error - {type(exc).__name__}") from None

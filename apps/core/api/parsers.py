"""The JSON parser of every DRF endpoint (settings REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"]).

DRF's own reads bodies with the standard library: a body nested a few thousand levels deep raised
RecursionError through it (a 500), and text no store can keep (NUL, lone surrogates, `1e400`)
went on to fail later, in a serializer or the database. This one reads with
`apps.core.json_input`, as the MCP endpoint and OAuth registration do:

- text that is not JSON: 400 `BAD_REQUEST`, as before;
- JSON that is refused: SPEC 7.1's 422 `VALIDATION_ERROR`, whose `details` name the place.
"""

from typing import Any

from django.utils.translation import gettext as _
from rest_framework import parsers
from rest_framework.exceptions import ParseError

from apps.core import json_input
from apps.core.errors import BodyRefused, ValidationFailed, invalid


class JSONParser(parsers.JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        # DRF's own choice of charset, which refuses codecs that are not text (bz2_codec would
        # decompress a small body past every size limit); the stubs predate it.
        encoding = parsers.get_encoding(parser_context or {})  # type: ignore[attr-defined]
        try:
            text = stream.read().decode(encoding)
        except UnicodeDecodeError as error:
            raise ParseError(_("The body is not %(encoding)s text.") % {"encoding": encoding}) from error
        try:
            return json_input.loads(text)
        except json_input.JsonRefused as refused:
            if refused.syntax:
                raise ParseError(_("JSON parse error: %(problem)s.") % {"problem": refused.problem}) from None
            raise refused_body(refused) from None


def refused_body(refused: json_input.JsonRefused) -> ValidationFailed:
    """SPEC 7.1's validation error for a body `json_input` refused, naming where."""
    if refused.where:
        return invalid(refused.where, refused.problem)
    return BodyRefused(problem=refused.problem, details={"non_field_errors": [refused.problem]})

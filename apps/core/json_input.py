"""JSON from outside, read once and the same way at every door.

The JSON APIs (the DRF parser, `apps.core.api.parsers`), the MCP endpoint
(`apps.mcp.protocol.parse`) and OAuth client registration (`apps.oauth.registration`) read their
bodies with `loads`. It refuses, with `JsonRefused`, what a JSON parser would let through but
nothing behind it can keep or answer:

- nesting deeper than MAX_DEPTH arrays and objects (a few kilobytes of `[` would otherwise
  exhaust the recursion of whatever walks the value next);
- text that is not Unicode: an escaped UTF-16 surrogate without its pair (`"\\ud800"`), which
  no UTF-8 encoder, PostgreSQL included, accepts;
- NUL (`"\\u0000"`), in a value or a key, which PostgreSQL refuses in text and in JSON alike;
- numbers without a finite value: `NaN` and `Infinity` are not JSON, `1e400` overflows a double,
  and integers outside 64 bits fit no column and no other JSON reader (RFC 7493, I-JSON).

Each refusal says where (`metadata.tags[2]`), so every door can name the field in its own error
format. `text_problem` is the same rule for one string: the catalogue applies it to every tool
argument, whatever door the arguments came through.
"""

import json
import math
from typing import Any, NoReturn

import pydantic_core
from django.utils.translation import gettext as _

# Deep enough for any document this service takes (a tool's nested arguments, an agent's
# metadata: five levels), far below what would exhaust a recursion limit.
MAX_DEPTH = 64
INT_MIN, INT_MAX = -(2**63), 2**63 - 1


class JsonRefused(ValueError):
    """A body refused. `syntax`: it is not JSON at all (a parse error); otherwise it is JSON whose
    content is refused, at `where` (empty: the body as a whole). `document` is what was read, when
    the text was JSON (a door may still read a message's id from it)."""

    def __init__(self, problem: str, *, where: str = "", syntax: bool = False, document: Any = None) -> None:
        self.problem = problem
        self.where = where
        self.syntax = syntax
        self.document = document
        super().__init__(f"{where}: {problem}" if where else problem)

    @property
    def message(self) -> str:
        return str(self)


def text_problem(text: str) -> str | None:
    """What is wrong with a string no store can keep, or None: NUL, or a lone UTF-16 surrogate."""
    if "\x00" in text:
        return _("contains a NUL character (\\u0000)")
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return _(
                "contains a lone UTF-16 surrogate (\\ud800-\\udfff without its pair), which is not Unicode"
            )
    return None


def loads(data: bytes | str, *, max_depth: int = MAX_DEPTH) -> Any:
    """The JSON value of `data` (UTF-8 bytes, or text), or JsonRefused saying what and where."""
    try:
        raw = data.encode() if isinstance(data, str) else data
        document = pydantic_core.from_json(raw, allow_inf_nan=False)
    except UnicodeEncodeError as error:
        # Text holding a raw surrogate (decoded with surrogatepass, say).
        raise _explained(data, str(error), max_depth) from None
    except ValueError as error:
        raise _explained(data, str(error), max_depth) from None
    has_nul = b"\\u0000" in raw
    if has_nul or raw.count(b"[") + raw.count(b"{") > max_depth or _long_number(raw):
        check(document, max_depth=max_depth, texts=has_nul)
    return document


# Every digit read as 0, e and E as e, signs as +, anything else as a space.
_NUMBER_SHAPES = bytes(
    ord("0")
    if chr(byte).isdigit()
    else ord("e")
    if chr(byte) in "eE"
    else ord("+")
    if chr(byte) in "+-"
    else 32
    for byte in range(256)
)


def _long_number(raw: bytes) -> bool:
    """Whether `raw` could hold a number out of range: it needs 19 digits in a row (2^63 has 19)
    or an exponent of three digits (a double ends at 1.8e308). A cheap scan of the bytes; a yes
    for digits in a string only costs the walk."""
    shapes = raw.translate(_NUMBER_SHAPES)
    return b"0000000000000000000" in shapes or b"e000" in shapes or b"e+000" in shapes


def check(document: Any, *, max_depth: int = MAX_DEPTH, texts: bool = True) -> None:
    """JsonRefused for the first thing of `document` (a value as a JSON parser makes it: dict,
    list, str, int, float, bool, None) that `loads` refuses; strings are checked only if `texts`
    (`loads` knows when the body holds no NUL, and its parser refuses lone surrogates).

    Most bodies are cleared by `loads` from a few scans of their bytes, much cheaper than this
    walk: the parser has refused lone surrogates already, a NUL can only be written `\\u0000`,
    nesting is no deeper than the count of `[` and `{`, and a number out of range needs a long
    run of digits. Iterative, so that no depth of nesting can exhaust the interpreter's
    recursion; the path of a value is built only when it is refused."""
    root = (document, 0, None, None)
    _check_scalar(root, document, texts)
    # (container, its depth, parent entry, key in the parent): a linked list back to the root.
    stack: list[tuple[Any, int, Any, Any]] = [root] if type(document) in (dict, list) else []
    while stack:
        entry = stack.pop()
        container, depth = entry[0], entry[1] + 1
        if depth > max_depth:
            raise _too_deep(max_depth, document)
        if type(container) is dict:
            items: Any = container.items()
            if texts:
                for key in container:
                    problem = text_problem(key)
                    if problem is not None:
                        raise JsonRefused(
                            _("a key %(problem)s") % {"problem": problem},
                            where=_path(entry),
                            document=document,
                        )
        else:
            items = enumerate(container)
        for key, value in items:
            kind = type(value)
            if kind is dict or kind is list:
                stack.append((value, depth, entry, key))
            elif kind is float or kind is int or (texts and kind is str):
                _check_scalar((value, depth, entry, key), document, texts)


def _check_scalar(entry: tuple[Any, int, Any, Any], document: Any, texts: bool) -> None:
    value = entry[0]
    kind = type(value)
    if kind is str:
        problem = text_problem(value) if texts else None
    elif kind is float:
        problem = (
            None if math.isfinite(value) else _("the number is too large (beyond ±1.8e308, a double's range)")
        )
    elif kind is int and not INT_MIN <= value <= INT_MAX:
        problem = _("the integer is outside 64 bits (-2^63 to 2^63-1); send a larger number as a string")
    else:
        return
    if problem is not None:
        raise JsonRefused(problem, where=_path(entry), document=document)


def _path(entry: tuple[Any, int, Any, Any]) -> str:
    keys: list[Any] = []
    while entry[2] is not None:
        keys.append(entry[3])
        entry = entry[2]
    path = ""
    for key in reversed(keys):
        if isinstance(key, int):
            path += f"[{key}]"
        else:
            path += f".{key}" if path else str(key)
    return path


def _too_deep(max_depth: int, document: Any) -> JsonRefused:
    return JsonRefused(
        _("the body is nested deeper than %(max)d levels of arrays and objects") % {"max": max_depth},
        document=document,
    )


def _explained(data: bytes | str, reason: str, max_depth: int) -> JsonRefused:
    """Why the fast parser refused `data`, said the way `check` says it.

    It refuses lone surrogates, numbers out of range and very deep nesting as it reads, with a
    position but no path. The standard library's parser reads such text, so it says which value
    it was and where; past its own recursion limit the text is too deep in any case."""
    if "recursion limit" in reason:
        return _too_deep(max_depth, None)
    try:
        document = json.loads(data, parse_constant=_not_json, parse_int=_integer)
    except RecursionError:
        return _too_deep(max_depth, None)
    except ValueError:
        return JsonRefused(_("the body is not valid JSON (%(reason)s)") % {"reason": reason}, syntax=True)
    try:
        check(document, max_depth=max_depth)
    except JsonRefused as refused:
        return refused
    # Read by one parser and not the other, and nothing in it refused: a syntax the fast parser
    # does not take (it takes all of RFC 8259), said as it says it.
    return JsonRefused(_("the body is not valid JSON (%(reason)s)") % {"reason": reason}, syntax=True)


def _not_json(constant: str) -> NoReturn:
    raise ValueError(f"{constant} is not JSON")


def _integer(digits: str) -> int:
    # Past 19 digits it is out of range whatever it is: Python would refuse to read 4,300 of them.
    return int(digits) if len(digits) <= 20 else INT_MAX + 1

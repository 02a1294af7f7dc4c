"""Typed reads of environment variables, for settings modules.

Installations differ only through the environment, so every value an operator can set is read
through this module, with its type, its default and its bounds in one call::

    from apps.core import env

    MCP_QUICK_THREADS = env.int("ATRIUM_MCP_QUICK_THREADS", 2, min=1)

A malformed value (``abc`` for a number, ``1e400`` for a float, a number out of bounds, JSON that
does not parse) stops start-up with ``ImproperlyConfigured`` naming the variable and what it
expects: a typo in a deployment shows at once, as the operator's mistake, instead of as a
traceback from deep inside a setting or as a wrong value at run time.

This module is read while settings load, before any app: it imports nothing of Django but the
exception, and nothing of Atrium.

Naming rule for environment variables
-------------------------------------

Atrium's own variables are ``ATRIUM_<NAME>``. When one part of Atrium owns the variable, NAME
starts with that part: ``ATRIUM_MCP_QUICK_THREADS``, ``ATRIUM_GATEWAY_MODEL_URL``, and for an
area its name (``ATRIUM_FILES_MAX_BYTES``). The only other names are those fixed outside Atrium:

- the ecosystem's: ``DATABASE_URL`` and ``REDIS_URL``; Django's core settings as
  ``DJANGO_<SETTING>`` (``DJANGO_SETTINGS_MODULE``, ``DJANGO_SECRET_KEY``, ``DJANGO_DEBUG``,
  ``DJANGO_ALLOWED_HOSTS``, ``DJANGO_CSRF_TRUSTED_ORIGINS``, ``DJANGO_HSTS_SECONDS``); Django's
  e-mail settings under their own names (``EMAIL_BACKEND``, ``EMAIL_HOST``, ``EMAIL_PORT``,
  ``EMAIL_FILE_PATH``, ``DEFAULT_FROM_EMAIL``); and what other programs read themselves
  (``PORT``, ``PROMETHEUS_MULTIPROC_DIR``, the PostgreSQL image's ``POSTGRES_PASSWORD``);
- the data-rights endpoint's, which came with that interface: ``DATA_REQUEST_*`` and
  ``DATA_TEAM_EMAIL``.

A variable that is renamed keeps working under its former name (``formerly=``); the new name is
read first, and docs/deploy.md lists both.

How values are read
-------------------

- ``str``: the value as set, an empty one included.
- ``bool``: ``1``/``true``/``yes``/``on`` or ``0``/``false``/``no``/``off`` in any case; empty is
  false.
- ``int``, ``float``: a number (``float`` finite); ``min`` and ``max`` are inclusive. Empty is
  malformed unless the setting gives an empty value its own meaning (``empty=``).
- ``list``, ``int_list``, ``networks``: comma-separated, each item stripped, empty items skipped
  (so an empty value is an empty list); ``networks`` are IP addresses or CIDR networks.
- ``json``: a JSON document; ``expect`` names the type the document must have.
"""

from __future__ import annotations

import builtins
import copy
import enum
import ipaddress
import json as _json
import math
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final, Generic, TypeVar

from django.core.exceptions import ImproperlyConfigured

# The readers are named after the types they return (env.int, env.str), so the builtins they
# shadow are spelled builtins.int, builtins.str inside this module.

_T = TypeVar("_T")
_N = TypeVar("_N", builtins.int, builtins.float)
if TYPE_CHECKING:
    from typing import Never

    from typing_extensions import TypeVar as TypeVarWithDefault

    # What an empty value stands for (`empty=`); left out, it adds nothing to the type read.
    _E = TypeVarWithDefault("_E", default=Never)
else:
    _E = TypeVar("_E")

_TRUE: Final = frozenset({"1", "true", "yes", "on"})
_FALSE: Final = frozenset({"", "0", "false", "no", "off"})
# How much of a malformed value an error message quotes.
_QUOTE_CHARS: Final = 40


class _Missing(enum.Enum):
    MISSING = enum.auto()


_MISSING: Final = _Missing.MISSING


def _lookup(name: builtins.str, formerly: builtins.str | None) -> tuple[builtins.str, builtins.str | None]:
    """The variable that is set (the new name first) and its value; None when neither is."""
    value = os.environ.get(name)
    if value is None and formerly is not None:
        old = os.environ.get(formerly)
        if old is not None:
            return formerly, old
    return name, value


def _malformed(
    name: builtins.str, expected: builtins.str, value: builtins.str | None = None
) -> ImproperlyConfigured:
    message = f"The environment variable {name} must be {expected}"
    if value is not None:
        quoted = value if len(value) <= _QUOTE_CHARS else value[:_QUOTE_CHARS] + "..."
        message += f"; it is {quoted!r}"
    return ImproperlyConfigured(message + ".")


def _bounds(kind: builtins.str, min: _N | None, max: _N | None) -> builtins.str:
    if min is not None and max is not None:
        return f"{kind} from {min} to {max}"
    if min is not None:
        return f"{kind} of at least {min}"
    if max is not None:
        return f"{kind} of at most {max}"
    return kind


def _number(
    name: builtins.str,
    raw: builtins.str,
    parse: Callable[[builtins.str], _N],
    expected: builtins.str,
    min: _N | None,
    max: _N | None,
) -> _N:
    try:
        value = parse(raw)
    except ValueError:
        raise _malformed(name, expected, raw) from None
    if isinstance(value, builtins.float) and not math.isfinite(value):
        raise _malformed(name, expected, raw)
    if (min is not None and value < min) or (max is not None and value > max):
        raise _malformed(name, expected, raw)
    return value


def str(
    name: builtins.str, default: builtins.str = "", *, formerly: builtins.str | None = None
) -> builtins.str:
    """The variable's value as set (an empty value is a value); `default` when it is unset."""
    _, value = _lookup(name, formerly)
    return default if value is None else value


def bool(
    name: builtins.str, default: builtins.bool, *, formerly: builtins.str | None = None
) -> builtins.bool:
    """true/yes/on/1 or false/no/off/0 in any case; empty is false."""
    name, value = _lookup(name, formerly)
    if value is None:
        return default
    word = value.strip().lower()
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    raise _malformed(name, "true or false (1/0, yes/no, on/off)", value)


class _NumberReader(Generic[_N]):
    """`env.int` and `env.float`: one reader, built for each type of number."""

    def __init__(self, parse: Callable[[builtins.str], _N], kind: builtins.str, doc: builtins.str) -> None:
        self._parse: Callable[[builtins.str], _N] = parse
        self._kind = kind
        self.__doc__ = doc

    def __call__(
        self,
        name: builtins.str,
        default: _N,
        *,
        min: _N | None = None,
        max: _N | None = None,
        formerly: builtins.str | None = None,
        empty: _E | _Missing = _MISSING,
    ) -> _N | _E:
        name, value = _lookup(name, formerly)
        if value is None:
            return default
        if value == "" and not isinstance(empty, _Missing):
            return empty
        return _number(name, value, self._parse, _bounds(self._kind, min, max), min, max)


int = _NumberReader(
    builtins.int,
    "an integer",
    "An integer from min to max (either may be None); `empty` is what an empty value stands for.",
)
float = _NumberReader(
    builtins.float,
    "a finite number",
    "A finite number from min to max (either may be None); `empty` is what an empty value stands for.",
)


def _items(value: builtins.str) -> builtins.list[builtins.str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def list(
    name: builtins.str, default: Sequence[builtins.str], *, formerly: builtins.str | None = None
) -> builtins.list[builtins.str]:
    """Comma-separated strings, each stripped, empty ones skipped (an empty value: no items)."""
    _, value = _lookup(name, formerly)
    return builtins.list(default) if value is None else _items(value)


def int_list(
    name: builtins.str,
    default: Sequence[builtins.int],
    *,
    min: builtins.int | None = None,
    max: builtins.int | None = None,
    formerly: builtins.str | None = None,
) -> builtins.list[builtins.int]:
    """Comma-separated integers from min to max, empty items skipped (an empty value: no items)."""
    name, value = _lookup(name, formerly)
    if value is None:
        return builtins.list(default)
    expected = "a comma-separated list of " + _bounds("integers", min, max)
    try:
        return [_number(name, item, builtins.int, expected, min, max) for item in _items(value)]
    except ImproperlyConfigured:
        # The whole value is quoted, not the bad item alone: "it is '5,x'" reads right.
        raise _malformed(name, expected, value) from None


def networks(
    name: builtins.str, default: Sequence[builtins.str], *, formerly: builtins.str | None = None
) -> builtins.list[builtins.str]:
    """Comma-separated IP addresses or networks in CIDR notation (`10.0.0.0/8`, `2001:db8::/32`),
    empty items skipped; each comes back as a network (an address is a network of one:
    `192.0.2.7/32`). A network with host bits set (`10.0.0.1/8`) is refused: it is almost always a
    typo for an address or for another network."""
    name, value = _lookup(name, formerly)
    if value is None:
        return builtins.list(default)
    found = []
    for item in _items(value):
        try:
            found.append(builtins.str(ipaddress.ip_network(item)))
        except ValueError:
            raise _malformed(
                name, "a comma-separated list of IP addresses or networks (CIDR, e.g. 10.0.0.0/8)", value
            ) from None
    return found


def json(
    name: builtins.str,
    default: _T,
    *,
    expect: type[_T] | None = None,
    formerly: builtins.str | None = None,
    empty: _T | _Missing = _MISSING,
) -> _T:
    """A JSON document (of type `expect`, when given); `empty` is what an empty value stands for.

    The default and `empty` are copied: a caller that changes its setting changes no other.
    """
    name, value = _lookup(name, formerly)
    if value is None:
        return copy.deepcopy(default)
    if value == "" and not isinstance(empty, _Missing):
        return copy.deepcopy(empty)
    kinds: builtins.dict[type | None, builtins.str] = {builtins.dict: "object", builtins.list: "array"}
    expected = "a JSON " + kinds.get(expect, "document")
    try:
        document = _json.loads(value)
    except ValueError as error:
        # The value is not quoted: a JSON setting may carry a credential.
        raise ImproperlyConfigured(
            f"The environment variable {name} must be {expected}; it does not parse ({error})."
        ) from None
    if expect is not None and not isinstance(document, expect):
        raise _malformed(name, expected)
    return document

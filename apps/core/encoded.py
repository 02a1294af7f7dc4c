"""JSON made once: answers whose JSON, or part of it, exists already when they are sent.

A tool's result carries its structured content twice, as an object and as the text of that same
object (MCP: `structuredContent` and a text block). The text is that object's JSON, so encoding
the object again to send the answer would repeat work done a moment before; and a page of
`tools/list` goes out unchanged to everyone with the same permissions.

- `Encoded`: a dict whose whole JSON is made once, when it is built.
- `PartlyEncoded`: a dict some of whose values come with their JSON (`with_json`); the JSON is
  used only while the value is still the very object it was made from.
- `Json`: a JSON object given only as its JSON, for an answer a door sends on without reading it (the
  MCP door's tool results: their structured content is never made into objects at all). It is
  made into objects only if something asks (`value()`), or when it is encoded where its JSON
  cannot be used as it is (deeper in a message).
- `dumps` encodes a message that may hold any of them, at its top level or one level down (a
  JSON-RPC message's `result`): anything else is encoded as usual.
"""

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pydantic_core


class Encoded(dict):
    """A value sent over and over: its JSON is made once, here."""

    def __init__(self, value: dict[str, Any]) -> None:
        super().__init__(value)
        self.json = pydantic_core.to_json(value)


class PartlyEncoded(dict):
    def __init__(self, value: dict[str, Any]) -> None:
        super().__init__(value)
        self.parts: dict[str, tuple[Any, bytes]] = {}

    def with_json(self, key: str, value: Any, json: bytes) -> "PartlyEncoded":
        """Sets `key` to `value`, whose JSON is `json`."""
        self[key] = value
        self.parts[key] = (value, json)
        return self


_UNREAD: Any = object()


class Json(Mapping[str, Any]):
    """A JSON object kept as its JSON (see the module); read as a mapping, it is made into objects
    once."""

    __slots__ = ("_value", "json")

    def __init__(self, json: bytes) -> None:
        self.json = json
        self._value = _UNREAD

    def value(self) -> dict[str, Any]:
        if self._value is _UNREAD:
            self._value = pydantic_core.from_json(self.json)
        return self._value

    def __getitem__(self, key: str) -> Any:
        return self.value()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.value())

    def __len__(self) -> int:
        return len(self.value())

    def __eq__(self, other: object) -> bool:
        return self.value() == (other.value() if isinstance(other, Json) else other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Json({self.json[:60]!r})"


_MADE = (Encoded, PartlyEncoded, Json)


def dumps(value: Any) -> bytes:
    if isinstance(value, Encoded | Json):
        return value.json
    if isinstance(value, PartlyEncoded):
        return _object(value, lambda key, item: _part(value, key, item))
    if isinstance(value, dict) and any(isinstance(item, _MADE) for item in value.values()):
        return _object(value, lambda _key, item: dumps(item))
    return pydantic_core.to_json(value, fallback=_plain)


def _part(value: PartlyEncoded, key: str, item: Any) -> bytes:
    part = value.parts.get(key)
    return part[1] if part is not None and part[0] is item else dumps(item)


def _plain(value: Any) -> Any:
    """What to encode for a value pydantic does not know: a Json's objects."""
    if isinstance(value, Json):
        return value.value()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _object(value: dict[str, Any], encode: Callable[[str, Any], bytes]) -> bytes:
    members = [pydantic_core.to_json(str(key)) + b":" + encode(key, item) for key, item in value.items()]
    return b"{" + b",".join(members) + b"}"

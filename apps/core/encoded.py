"""JSON made once: answers whose JSON, or part of it, exists already when they are sent.

A tool's result carries its structured content twice, as an object and as the text of that same
object (MCP: `structuredContent` and a text block). The text is that object's JSON, so encoding
the object again to send the answer would repeat work done a moment before; and a page of
`tools/list` goes out unchanged to everyone with the same permissions.

- `Encoded`: a dict whose whole JSON is made once, when it is built.
- `PartlyEncoded`: a dict some of whose values come with their JSON (`with_json`); the JSON is
  used only while the value is still the very object it was made from.
- `dumps` encodes a message that may hold either, at its top level or one level down (a
  JSON-RPC message's `result`): anything else is encoded as usual.
"""

from collections.abc import Callable
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


def dumps(value: Any) -> bytes:
    if isinstance(value, Encoded):
        return value.json
    if isinstance(value, PartlyEncoded):
        return _object(value, lambda key, item: _part(value, key, item))
    if isinstance(value, dict) and any(isinstance(item, Encoded | PartlyEncoded) for item in value.values()):
        return _object(value, lambda _key, item: dumps(item))
    return pydantic_core.to_json(value)


def _part(value: PartlyEncoded, key: str, item: Any) -> bytes:
    part = value.parts.get(key)
    return part[1] if part is not None and part[0] is item else pydantic_core.to_json(item)


def _object(value: dict[str, Any], encode: Callable[[str, Any], bytes]) -> bytes:
    members = [pydantic_core.to_json(str(key)) + b":" + encode(key, item) for key, item in value.items()]
    return b"{" + b",".join(members) + b"}"

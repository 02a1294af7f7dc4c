"""The body of `POST /api/agent` (SPEC 4.4), checked field by field: every problem is reported at
once in a 422 whose message explains (SPEC 7.1), and nothing is written."""

import json
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _

from apps.core.errors import FieldsInvalid
from apps.gateway.errors import IdempotencyKeyMalformed, RequestNotObject

FIELDS = {"message", "context", "metadata"}
CONTEXT_FIELDS = {"entity_type", "entity_id", "action"}
# Hints are words such as contact, task, calendar event; create, search, summarize.
HINT = re.compile(r"^[A-Za-z][A-Za-z0-9 _-]{0,49}$")
ENTITY_ID_MAX = 100
METADATA_MAX_KEYS = 50
METADATA_KEY_MAX = 100
METADATA_MAX_DEPTH = 5
IDEMPOTENCY_KEY_MAX = 255


@dataclass(frozen=True)
class AgentRequest:
    message: str
    context: dict[str, str] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)


def _has_control(text: str) -> bool:
    return any(unicodedata.category(char) == "Cc" and char not in "\t\n\r" for char in text)


def _depth(value: Any, level: int = 1) -> int:
    if isinstance(value, dict):
        return max([level, *(_depth(item, level + 1) for item in value.values())])
    if isinstance(value, list):
        return max([level, *(_depth(item, level + 1) for item in value)])
    return level - 1


def _object(
    data: dict[str, Any], name: str, bad: Callable[[str, str], None], wrong: str
) -> dict[str, Any] | None:
    """The field `name` of the body when it is an object; None when it is absent, or when it is
    not an object (reported as `wrong`)."""
    value = data.get(name)
    if value is not None and not isinstance(value, dict):
        bad(name, wrong)
        return None
    return value


def clean(data: Any) -> AgentRequest:
    """The request, or ValidationFailed naming every bad field."""
    if not isinstance(data, dict):
        raise RequestNotObject(details={"non_field_errors": ["not an object"]})
    problems: dict[str, list[str]] = {}

    def bad(name: str, text: str) -> None:
        problems.setdefault(name, []).append(text)

    for name in sorted(set(data) - FIELDS):
        bad(name, _("Unknown field: the body takes message, context and metadata."))

    limit = settings.GATEWAY_MESSAGE_MAX_CHARS
    message = data.get("message")
    if message is None:
        bad(
            "message",
            _("The message is required: a plain-English request of at most %(max)s characters.")
            % {"max": f"{limit:,}"},
        )
    elif not isinstance(message, str):
        bad("message", _("The message must be a string."))
    elif not message.strip():
        bad("message", _("The message is empty."))
    elif len(message) > limit:
        bad(
            "message",
            _("The message has %(length)s characters; at most %(max)s are allowed.")
            % {"length": f"{len(message):,}", "max": f"{limit:,}"},
        )
    elif "\x00" in message:
        bad("message", _("The message must not contain NUL characters."))

    context: dict[str, str] = {}
    raw_context = _object(
        data, "context", bad, _("The context must be an object with entity_type, entity_id and action.")
    )
    if raw_context is not None:
        for name in sorted(set(raw_context) - CONTEXT_FIELDS):
            bad(
                f"context.{name}",
                _("Unknown field: the context takes entity_type, entity_id and action."),
            )
        for name in ("entity_type", "action"):
            value = raw_context.get(name)
            if value is None:
                continue
            if not isinstance(value, str) or not HINT.match(value.strip()):
                bad(
                    f"context.{name}",
                    _(
                        "A word or two (letters, digits, spaces, - or _; at most 50 characters), "
                        "such as “contact” or “search”."
                    ),
                )
            else:
                context[name] = " ".join(value.split()).lower()
        entity_id = raw_context.get("entity_id")
        if entity_id is not None:
            if isinstance(entity_id, bool) or not isinstance(entity_id, str | int):
                bad("context.entity_id", _("The entity id must be a string."))
            else:
                text = str(entity_id).strip()
                if not text or len(text) > ENTITY_ID_MAX or _has_control(text):
                    bad(
                        "context.entity_id",
                        _("The entity id must be 1 to %(max)d printable characters.")
                        % {"max": ENTITY_ID_MAX},
                    )
                else:
                    context["entity_id"] = text

    metadata: dict[str, Any] = {}
    raw_metadata = _object(data, "metadata", bad, _("The metadata must be an object of key-value pairs."))
    if raw_metadata is not None:
        size = len(json.dumps(raw_metadata, separators=(",", ":"), ensure_ascii=False).encode())
        max_bytes = settings.GATEWAY_METADATA_MAX_BYTES
        if size > max_bytes:
            bad(
                "metadata",
                _("The metadata takes %(size)s bytes as JSON; at most %(max)s are allowed.")
                % {"size": f"{size:,}", "max": f"{max_bytes:,}"},
            )
        elif len(raw_metadata) > METADATA_MAX_KEYS:
            bad("metadata", _("The metadata has more than %(max)d keys.") % {"max": METADATA_MAX_KEYS})
        elif any(not key or len(key) > METADATA_KEY_MAX for key in raw_metadata):
            bad("metadata", _("Metadata keys are 1 to %(max)d characters.") % {"max": METADATA_KEY_MAX})
        elif _depth(raw_metadata) > METADATA_MAX_DEPTH:
            bad(
                "metadata",
                _("The metadata nests deeper than %(max)d levels.") % {"max": METADATA_MAX_DEPTH},
            )
        else:
            metadata = raw_metadata

    if problems:
        raise FieldsInvalid.of(problems)
    assert isinstance(message, str)  # anything else is one of the problems
    return AgentRequest(message=message, context=context, metadata=metadata)


def clean_idempotency_key(value: str | None) -> str:
    """The `Idempotency-Key` header ("" when absent), or a 422."""
    if value is None:
        return ""
    value = value.strip()
    if not value or len(value) > IDEMPOTENCY_KEY_MAX or not value.isprintable() or not value.isascii():
        raise IdempotencyKeyMalformed(most=IDEMPOTENCY_KEY_MAX)
    return value

"""A record's history: what happened to it, who did it, when, and through which door.

The door is the agent's tool call the change was made in (apps.core.origin, set by the catalogue's
dispatcher): "mcp" or "gateway" with the tool and the client (the OAuth client's name or the API
key's label), or nothing for a person on a page and for the service itself. Every trail keeps it,
so a history can say that an agent made a change, not only whose the agent is.

An area's history is a model on `Trail` (who, when, through which door) or, for a history of
changes, on `Event` (also a kind, a summary and the fields that changed), with the record it is
about, its kinds and its index:

    class ContactEvent(history.Event):
        class Kind(models.TextChoices): ...

        contact = models.ForeignKey(Contact, on_delete=models.CASCADE, related_name="events")
        kind = models.CharField(max_length=30, choices=Kind.choices)

        class Meta(history.Event.Meta):
            indexes = [models.Index(fields=["contact", "-at"], name="contacts_event_contact_at")]

and keeps an entry with one call, whatever the door:

    history.record(ContactEvent, actor=actor, contact=contact, kind="updated",
                   summary="changed email", changes={"email": (before, after)})

The catalogue's answer about an entry of an `Event` history is `apps.catalogue.shapes.HistoryOut`.
"""

from datetime import date, datetime
from decimal import Decimal
from typing import Any, TypeVar

from django.conf import settings
from django.db import models
from django.utils import timezone

from apps.core import origin
from apps.core.actors import Actor

USER = settings.AUTH_USER_MODEL
T = TypeVar("T", bound="Trail")


class Trail(models.Model):
    """An entry of a record's history: when, by whom (None: the service), through which door."""

    at = models.DateTimeField(default=timezone.now)
    actor = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    # "" for a person on a page or the service itself, "mcp" or "gateway" for an agent's tool call,
    # then with the tool and the client (apps.core.origin).
    door = models.CharField(max_length=20, blank=True)
    tool = models.CharField(max_length=100, blank=True)
    client = models.CharField(max_length=200, blank=True)

    class Meta:
        abstract = True
        ordering = ["-at", "-id"]


class Event(Trail):
    """An entry of a history of changes: its kind (the model's choices), a summary a person reads,
    and the facts of the change."""

    summary = models.CharField(max_length=300, blank=True)
    # {"field": [before, after]} for updates; other facts for other kinds.
    changes = models.JSONField(default=dict, blank=True)

    class Meta(Trail.Meta):
        abstract = True


def record(model: type[T], *, actor: Actor | None, **fields: Any) -> T:
    """Keeps an entry of `model`'s history: `fields` (the record it is about, its kind, summary and
    changes...), who did it, and the tool call running now if any. A summary longer than the model
    keeps is cut; the changes' values are made JSON (dates, amounts, records by their id)."""
    return model.objects.create(**_entry(model, actor, fields))  # type: ignore[attr-defined]


def record_many(model: type[T], *, actor: Actor | None, entries: list[dict[str, Any]]) -> list[T]:
    """`record` for many entries at once (a batch of imported records), in one INSERT: each
    entry's fields as `record` takes them, the same actor and tool call for all."""
    return model.objects.bulk_create(  # type: ignore[attr-defined]
        [model(**_entry(model, actor, dict(fields))) for fields in entries]
    )


def _entry(model: type[T], actor: Actor | None, fields: dict[str, Any]) -> dict[str, Any]:
    called = origin.current()
    if "summary" in fields:
        limit = getattr(model._meta.get_field("summary"), "max_length", None)
        fields["summary"] = fields["summary"][:limit] if limit else fields["summary"]
    if "changes" in fields:
        fields["changes"] = jsonable(fields["changes"] or {})
    return {
        "actor": actor if isinstance(actor, models.Model) and actor.pk else None,
        "door": called.door if called else "",
        "tool": called.tool if called else "",
        "client": called.client[:200] if called else "",
        **fields,
    }


def jsonable(value: Any) -> Any:
    """`value` as a history keeps it in JSON: dates and times in ISO 8601, amounts as text,
    records as their id; lists and objects alike, inside."""
    if isinstance(value, dict):
        return {key: jsonable(inner) for key, inner in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(inner) for inner in value]
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, models.Model):
        return value.pk
    return value

"""Record events: a record of any kind of the kit (apps.core.kinds) made, changed or deleted fires
the active listeners on that kind, in the transaction of the change itself (the trigger event and
its run are written with the record, or not at all: an outbox), deduplicated by key and ordered
per record. The kit has no record-change signal of its own: Django's model signals of the kinds'
models are it.

Only what the listener's owner may see fires their listener (the kind's `restrict`), and the
payload holds the record's own fields but those its access restricts (`Access.fields`). Which
kinds have active listeners is kept in the cache (`watched`), forgotten whenever a listener is
saved, so a save of a kind nobody listens to costs no query. A listener saved while Redis is out
of reach cannot have the kept list forgotten: the process that saved it then reads the database
instead of the cache and forgets the list again at its next look, until Redis answers (the list
kept before the outage is never trusted over a change the process made).
"""

import logging
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from django.core.cache import cache
from django.db import models
from django.db.models.signals import post_delete, post_save, pre_save

from apps.core import errors, kinds
from apps.core.db import connection
from apps.core.kinds import Kind
from apps.core.workspaces import has_area
from apps.listeners import runner, services
from apps.listeners.models import FlowVersion, Listener, Run, TriggerEvent

logger = logging.getLogger(__name__)
OWN_MODELS = (Listener, FlowVersion, Run, TriggerEvent)
CACHE_SECONDS = 300
# The schemas whose kept list this process could not forget (Redis out of reach): forgotten again
# at the next look, the database read meanwhile.
_unforgotten: set[str] = set()


def _cache_key() -> str:
    return f"listeners:watched:{connection.schema_name}"


def watched() -> dict[str, list[str]]:
    """The kinds active record listeners wait on, each with the fields whose changes they need.
    Read from the cache; with Redis out of reach, or a change not yet forgotten in it, from the
    database (a save still fires)."""
    key = _cache_key()
    found = None
    if connection.schema_name not in _unforgotten or _forgotten(key):
        with errors.unless_unavailable(logger, "the watched kinds read without the cache: %s"):
            found = cache.get(key)
    if found is None:
        found = {}
        rows = Listener.objects.filter(
            trigger_kind=Listener.Trigger.RECORD, status=Listener.Status.ACTIVE, deleted_at__isnull=True
        ).values_list("trigger", flat=True)
        for trigger in rows:
            fields = found.setdefault(trigger.get("entityType", ""), [])
            fields.extend(field for field in trigger.get("fields", []) if field not in fields)
        if connection.schema_name not in _unforgotten:
            with errors.unless_unavailable(logger, "the watched kinds not kept in the cache: %s"):
                cache.set(key, found, CACHE_SECONDS)
    return found


def _forgotten(key: str) -> bool:
    """Whether the kept list is forgotten now (Redis answered the deletion)."""
    with errors.unless_unavailable(logger, "the watched kinds still not forgotten: %s"):
        cache.delete(key)
        _unforgotten.discard(connection.schema_name)
        return True
    return False


def forget(**kwargs: Any) -> None:
    """Forgets the kept list (a listener was saved). With Redis out of reach, this process reads
    the database until it has forgotten it (`watched`)."""
    _unforgotten.add(connection.schema_name)
    _forgotten(_cache_key())


def _kind(sender: Any) -> Kind | None:
    if not isinstance(sender, type) or sender in OWN_MODELS:
        return None
    kind = kinds.kind_of_model(sender)
    # A migration's historical model is another class than the kind's: nothing fires in migrations.
    if kind is None or sender is not kind.model_class or not has_area("listeners"):
        return None
    return kind if kind.key in watched() else None


def _value(value: Any) -> Any:
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)


def _fields(instance: models.Model, names: list[str] | None = None) -> dict[str, Any]:
    restricted = set(getattr(getattr(type(instance), "access", None), "fields", {}) or {})
    out = {}
    for field in instance._meta.concrete_fields:
        name = field.attname if field.is_relation else field.name
        if field.name in restricted or (names is not None and field.name not in names):
            continue
        out[field.name] = _value(getattr(instance, name))
    return out


def _before(sender: Any, instance: models.Model, **kwargs: Any) -> None:
    kind = _kind(sender)
    if kind is None or instance.pk is None:
        return
    fields = watched().get(kind.key) or []
    if not fields:
        return
    old = sender._base_manager.filter(pk=instance.pk).first()
    if old is not None:
        instance._listeners_before = _fields(old, fields)  # type: ignore[attr-defined]


def _saved(sender: Any, instance: models.Model, created: bool, **kwargs: Any) -> None:
    kind = _kind(sender)
    if kind is None:
        return
    record = _fields(instance)
    before = getattr(instance, "_listeners_before", {})
    changes = {name: [value, record.get(name)] for name, value in before.items() if record.get(name) != value}
    stamp = record.get("updated_at") or record.get("created_at") or ""
    deliver(
        kind=kind,
        record_id=int(instance.pk),
        event="created" if created else "updated",
        record=record,
        changes=changes,
        key=f"{kind.key}:{instance.pk}:{'created' if created else 'updated'}:{stamp}",
    )


def _deleted(sender: Any, instance: models.Model, **kwargs: Any) -> None:
    kind = _kind(sender)
    if kind is None:
        return
    deliver(
        kind=kind,
        record_id=int(instance.pk),
        event="deleted",
        record={"id": instance.pk},
        changes={},
        key=f"{kind.key}:{instance.pk}:deleted",
    )


def deliver(
    *, kind: Kind, record_id: int, event: str, record: dict[str, Any], changes: dict[str, Any], key: str
) -> list[Run]:
    """Fires every active listener on `kind` that waits for `event` (and, when it names fields, for
    a change of one of them) whose owner may see the record. Delivered again with the same key, it
    runs nothing twice. Answers the runs made."""
    made = []
    chain = runner.acting()
    listeners = Listener.objects.filter(
        trigger_kind=Listener.Trigger.RECORD,
        status=Listener.Status.ACTIVE,
        deleted_at__isnull=True,
        trigger__entityType=kind.key,
    ).select_related("owner")
    for listener in listeners:
        if event not in listener.trigger.get("events", []):
            continue
        fields = listener.trigger.get("fields") or []
        if event == "updated" and fields and not any(field in changes for field in fields):
            continue
        if listener.owner is None or not _sees(kind, listener.owner, record_id, event):
            continue
        payload = {
            "event": event,
            "entityType": kind.key,
            "id": record_id,
            "record": record,
            "changes": changes,
        }
        run = services.fire(
            listener,
            key=f"record:{key}",
            source="record",
            payload=payload,
            origin=chain,
            order_key=f"{kind.key}:{record_id}",
        )
        if run is not None:
            made.append(run)
    return made


def payload_of(kind_key: str, instance: models.Model, event: str) -> dict[str, Any]:
    """The payload an event of `instance` carries (no changes): what a run by hand on a record gets."""
    record = _fields(instance)
    return {"event": event, "entityType": kind_key, "id": int(instance.pk), "record": record, "changes": {}}


def _sees(kind: Kind, owner: Any, record_id: int, event: str) -> bool:
    if event == "deleted":
        return True
    rows = kind.model_class.objects.restrict(owner, "view")  # type: ignore[attr-defined]
    return bool(rows.filter(pk=record_id).exists())


post_save.connect(forget, sender=Listener, dispatch_uid="listeners_forget_watched")
pre_save.connect(_before, dispatch_uid="listeners_record_before")
post_save.connect(_saved, dispatch_uid="listeners_record_saved")
post_delete.connect(_deleted, dispatch_uid="listeners_record_deleted")

"""Personal data: how each app finds, exports and erases one person's data in a workspace.

SPEC 10.3: every app that stores personal data lets it be exported in a common format and
removed (user-facing records soft-deleted, then erased, down to the app's own rows, tokens and
keys). Each app says how in its `privacy` module (autodiscovered at start-up), one line per model:

    from apps.core import privacy

    privacy.register(Contact, email="email", soft_delete="deleted_at")
    privacy.register(ApiKey, user="owner", exclude=["digest", "signing_secret"], soft_delete=revoke)
    privacy.not_personal(ToolCategory, reason="names and descriptions of the catalogue's areas")
    privacy.not_personal("tenancy", reason="...")   # every model of an app at once

A system check (`atrium.E010`) fails for any model of the project's apps that is neither covered
by a registration nor declared as holding no personal data, so a new model cannot slip through.

The person ("subject") is looked up in one workspace by e-mail address: `Subject.user` is that
workspace's User with the address, if there is one. A registration finds the person's rows by a
foreign key to the user (`user=`), by an e-mail field (`email=`), or both; rows of the public
schema also name the field that ties them to a workspace (`workspace=`). `find=` replaces all
three with a function when the link is not a plain field. `mentions=` adds the rows that are about
the person without being theirs (a deal whose contact they are, a task someone else owns that they
created): exported with the others, left alone by both phases below (their links to the person go
with the rows they point at).

Erasure runs in two phases, each in its own transaction (apps.datarights drives them):
1. soft delete: user-facing records are hidden and disabled (`soft_delete=`: a date field set to
   now, a mapping of field -> value, or a function of the queryset); the user is deactivated, their
   tokens and keys revoked. If anything later fails, nothing of the person's is usable or visible.
2. erase: every registration's rows are deleted (the default) or, with `erase={field: value}`,
   anonymised in place; the files of their FileFields are removed once the transaction commits.
   The user's own row goes last, after every row that points at it.

`credential=True` marks a registration whose soft delete disables a way in (a browser session, an
access token, an OAuth token or connection, an API key): `revoke_credentials(subject)` runs those
alone, which is what deactivating a person does (apps.accounts.services.user_set_active).

`veto=` lets an app refuse an erasure with a reason (the workspace's last owner, a legal hold).
For anything a registration cannot say, subclass `Handler` and `register_handler(...)` it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any

from django.apps import apps as django_apps
from django.conf import settings
from django.core import checks
from django.core.exceptions import FieldDoesNotExist
from django.db import models, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone
from django_tenants.utils import schema_context

from apps.core.db import connection


@dataclass(frozen=True)
class Subject:
    """The person whose data is exported or erased, in one workspace."""

    email: str
    # The workspace's User with that e-mail address, or None (someone who is only mentioned).
    user: Any | None
    workspace: Any


@dataclass(frozen=True)
class ExportFile:
    """One of the person's files: its path inside the export archive, and how to read it."""

    archive_name: str
    open: Callable[[], IO[bytes]]


SoftDelete = str | Mapping[str, Any] | Callable[[QuerySet], int] | None
Erase = str | Mapping[str, Any] | Callable[[QuerySet], int]


class Handler:
    """What one registration knows about the person's data. Subclass it for custom cases."""

    #: "<app_label>.<model_name>" for a model registration; any unique dotted name otherwise.
    label: str = ""
    #: The models this handler covers, for the system check.
    models: tuple[type[models.Model], ...] = ()
    #: Erasure order: lower first. The user's own row has 100, everything else 0.
    order: int = 0

    def export(self, subject: Subject) -> list[dict[str, Any]]:
        return []

    def files(self, subject: Subject) -> list[ExportFile]:
        return []

    def veto(self, subject: Subject) -> str | None:
        """A reason to refuse erasing this person, or None."""
        return None

    def soft_delete(self, subject: Subject) -> int:
        return 0

    def erase(self, subject: Subject) -> int:
        return 0

    def check(self) -> list[checks.CheckMessage]:
        return []


def _resolve_path(model: type[models.Model], path: str) -> models.Field | None:
    """The field at the end of a `__` lookup path, or None if the path does not exist."""
    current: Any = model
    found: Any = None
    for part in path.split("__"):
        if current is None:
            return None
        if part == "pk":
            found = current._meta.pk
        else:
            try:
                found = current._meta.get_field(part)
            except FieldDoesNotExist:
                return None
        current = found.related_model if found.is_relation else None
    return found


class ModelHandler(Handler):
    """A model whose rows belong to the person: see the module docstring for the options."""

    def __init__(
        self,
        model: type[models.Model],
        *,
        user: str | None = None,
        email: str | None = None,
        workspace: str | None = None,
        find: Callable[[Subject], QuerySet] | None = None,
        mentions: Callable[[Subject], QuerySet] | None = None,
        exclude: Sequence[str] = (),
        export: Callable[[models.Model], dict[str, Any]] | None = None,
        soft_delete: SoftDelete = None,
        erase: Erase = "delete",
        veto: Callable[[Subject], str | None] | None = None,
        order: int | None = None,
        credential: bool = False,
    ) -> None:
        self.model = model
        self.models = (model,)
        self.label = model._meta.label_lower
        self.user_path = user
        self.email_path = email
        self.workspace_path = workspace
        self.find_function = find
        self.mentions_function = mentions
        self.exclude = tuple(exclude)
        self.export_function = export
        self.soft_delete_rule = soft_delete
        self.erase_rule = erase
        self.veto_function = veto
        self.credential = credential
        is_user_model = model._meta.label_lower == settings.AUTH_USER_MODEL.lower()
        self.order = order if order is not None else (100 if is_user_model else 0)

    # --- finding ---------------------------------------------------------------------------

    def queryset(self, subject: Subject) -> QuerySet:
        # The base manager: a soft-deleted row is still the person's data and must be reached.
        manager = self.model._base_manager
        if self.find_function is not None:
            return self.find_function(subject)
        condition = Q()
        if self.user_path and subject.user is not None:
            condition |= Q(**{self.user_path: subject.user})
        if self.email_path and subject.email:
            condition |= Q(**{f"{self.email_path}__iexact": subject.email})
        if not condition:
            return manager.none()
        rows = manager.filter(condition)
        if self.workspace_path:
            rows = rows.filter(**{self.workspace_path: subject.workspace})
        return rows

    # --- export ----------------------------------------------------------------------------

    def _file_fields(self) -> list[models.FileField]:
        return [f for f in self.model._meta.concrete_fields if isinstance(f, models.FileField)]

    def serialise(self, obj: models.Model) -> dict[str, Any]:
        if self.export_function is not None:
            return self.export_function(obj)
        row: dict[str, Any] = {}
        for model_field in obj._meta.concrete_fields:
            if model_field.name in self.exclude or model_field.attname in self.exclude:
                continue
            value = model_field.value_from_object(obj)
            if isinstance(model_field, models.FileField):
                value = value.name if value else None
            # Foreign keys are given as ids: the related row may be someone else's data.
            row[model_field.attname] = value
        return row

    def exported(self, subject: Subject) -> QuerySet:
        """The person's rows and, with `mentions=`, the rows about them that are not theirs."""
        rows = self.queryset(subject)
        if self.mentions_function is None:
            return rows
        about = self.mentions_function(subject)
        return self.model._base_manager.filter(Q(pk__in=rows.values("pk")) | Q(pk__in=about.values("pk")))

    def export(self, subject: Subject) -> list[dict[str, Any]]:
        return [self.serialise(obj) for obj in self.exported(subject).order_by("pk")]

    def files(self, subject: Subject) -> list[ExportFile]:
        file_fields = self._file_fields()
        if not file_fields:
            return []
        found = []
        for obj in self.queryset(subject).order_by("pk"):
            for model_field in file_fields:
                stored = getattr(obj, model_field.attname)
                if stored:
                    name = stored.name.rsplit("/", 1)[-1]
                    found.append(
                        ExportFile(
                            archive_name=f"{self.label}/{obj.pk}/{model_field.name}/{name}",
                            open=_opener(stored.storage, stored.name),
                        )
                    )
        return found

    # --- erasure ---------------------------------------------------------------------------

    def veto(self, subject: Subject) -> str | None:
        return self.veto_function(subject) if self.veto_function else None

    def soft_delete(self, subject: Subject) -> int:
        rule = self.soft_delete_rule
        if rule is None:
            return 0
        rows = self.queryset(subject)
        if callable(rule):
            return rule(rows)
        if isinstance(rule, str):
            # A "deleted at" date: rows already soft-deleted keep their date.
            return rows.filter(**{f"{rule}__isnull": True}).update(**{rule: timezone.now()})
        return rows.update(**{name: value() if callable(value) else value for name, value in rule.items()})

    def erase(self, subject: Subject) -> int:
        rows = self.queryset(subject)
        rule = self.erase_rule
        if callable(rule):
            return rule(rows)
        if isinstance(rule, Mapping):
            return rows.update(
                **{name: value() if callable(value) else value for name, value in rule.items()}
            )
        file_fields = self._file_fields()
        stored = [
            (file.storage, file.name)
            for obj in (rows if file_fields else [])
            for model_field in file_fields
            if (file := getattr(obj, model_field.attname))
        ]
        _total, per_model = rows.delete()
        if stored:
            schema_name = connection.schema_name
            transaction.on_commit(lambda: _delete_files(schema_name, stored))
        return per_model.get(self.model._meta.label, 0)

    # --- start-up check --------------------------------------------------------------------

    def check(self) -> list[checks.CheckMessage]:
        problems: list[checks.CheckMessage] = []
        if not (self.user_path or self.email_path or self.find_function):
            problems.append(
                checks.Error(
                    f"personal-data registration of {self.label} names no way to find the person",
                    hint="Give user=, email= or find=.",
                    id="atrium.E011",
                )
            )
        paths = [("user", self.user_path), ("email", self.email_path), ("workspace", self.workspace_path)]
        rules = [self.soft_delete_rule, self.erase_rule]
        fields = [name for rule in rules if isinstance(rule, Mapping) for name in rule]
        fields += [rule for rule in rules if isinstance(rule, str) and rule != "delete"]
        fields += list(self.exclude)
        for option, path in paths + [("field", name) for name in fields]:
            if path and _resolve_path(self.model, path) is None:
                problems.append(
                    checks.Error(
                        f"personal-data registration of {self.label}: {option} {path!r} is not a field",
                        id="atrium.E012",
                    )
                )
        if isinstance(self.erase_rule, str) and self.erase_rule != "delete":
            problems.append(
                checks.Error(
                    f"personal-data registration of {self.label}: erase={self.erase_rule!r} is unknown",
                    hint='Use "delete", a mapping of field -> value, or a function of the queryset.',
                    id="atrium.E012",
                )
            )
        return problems


def _opener(storage: Any, name: str) -> Callable[[], IO[bytes]]:
    return lambda: storage.open(name, "rb")


def _delete_files(schema_name: str, stored: Iterable[tuple[Any, str]]) -> None:
    # A workspace's storage prefix follows the active schema, which may differ by commit time.
    with schema_context(schema_name):
        for storage, name in stored:
            storage.delete(name)


def delete_files_when_kept(stored: Iterable[tuple[Any, str]]) -> None:
    """Files on a storage (`(storage, name)`) deleted once the erasure that calls this is kept:
    for an `erase` rule of its own whose rows name files in plain text fields."""
    stored = list(stored)
    if stored:
        schema_name = connection.schema_name
        transaction.on_commit(lambda: _delete_files(schema_name, stored))


# --- the registry -----------------------------------------------------------------------------

_handlers: dict[str, Handler] = {}
# model label or app label -> the reason it holds no personal data
_not_personal: dict[str, str] = {}


def register(model: type[models.Model], **options: Any) -> ModelHandler:
    """Registers how to find, export and erase the person's rows of `model` (ModelHandler's options)."""
    handler = ModelHandler(model, **options)
    register_handler(handler)
    return handler


def register_handler(handler: Handler) -> Handler:
    if not handler.label:
        raise ValueError("a personal-data handler needs a label")
    existing = _handlers.get(handler.label)
    if existing is not None and existing is not handler:
        raise ValueError(f"personal data of {handler.label} is registered twice")
    _handlers[handler.label] = handler
    return handler


def unregister(handler: Handler) -> None:
    if _handlers.get(handler.label) is handler:
        del _handlers[handler.label]


def not_personal(model_or_app: type[models.Model] | str, *, reason: str) -> None:
    """Declares that a model (or every model of an app, by app label) holds no personal data."""
    if not str(reason).strip():
        raise ValueError("say why the model holds no personal data")
    label = model_or_app if isinstance(model_or_app, str) else model_or_app._meta.label_lower
    _not_personal[label.lower()] = str(reason)


def handlers() -> list[Handler]:
    """Every registration, in erasure order (the user's own row last)."""
    return sorted(_handlers.values(), key=lambda handler: (handler.order, handler.label))


def revoke_credentials(subject: Subject) -> int:
    """Runs the soft delete of every registration marked `credential=True` (sessions, tokens,
    keys, connected apps): what deactivating a person does, at once, without erasing anything.
    Returns how many rows it disabled. The caller tells the doors (apps.core.credentials.revoked)."""
    return sum(
        handler.soft_delete(subject)
        for handler in handlers()
        if isinstance(handler, ModelHandler) and handler.credential
    )


def declared_not_personal() -> dict[str, str]:
    return dict(sorted(_not_personal.items()))


@contextlib.contextmanager
def temporarily(handler: Handler) -> Iterator[Handler]:
    """Registers a handler for the duration of a block (tests, one-off scripts)."""
    register_handler(handler)
    try:
        yield handler
    finally:
        unregister(handler)


# --- the system check -------------------------------------------------------------------------


def project_models() -> list[type[models.Model]]:
    """The concrete models of the project's own apps (`apps.*`)."""
    return [
        model
        for model in django_apps.get_models()
        if model._meta.app_config is not None
        and model._meta.app_config.name.startswith("apps.")
        and not model._meta.proxy
    ]


def check_coverage() -> list[checks.CheckMessage]:
    problems: list[checks.CheckMessage] = []
    covered: dict[str, str] = {}
    for handler in handlers():
        problems += handler.check()
        for model in handler.models:
            covered[model._meta.label_lower] = handler.label
    for model in project_models():
        label = model._meta.label_lower
        declared = label in _not_personal or model._meta.app_label in _not_personal
        if label in covered and declared:
            problems.append(
                checks.Error(
                    f"{label} is registered as personal data and declared as holding none",
                    hint="Keep one of the two.",
                    obj=model,
                    id="atrium.E013",
                )
            )
        elif label not in covered and not declared:
            problems.append(
                checks.Error(
                    f"{label} is neither registered for export and erasure of personal data nor "
                    "declared as holding none",
                    hint=(
                        f"In {model._meta.app_config.name.replace('.', '/')}/privacy.py add "
                        f"privacy.register({model.__name__}, user=... or email=...) or "
                        f'privacy.not_personal({model.__name__}, reason="..."); see docs/privacy.md.'
                    ),
                    obj=model,
                    id="atrium.E010",
                )
            )
    return problems


__all__ = [
    "ExportFile",
    "Handler",
    "ModelHandler",
    "Subject",
    "check_coverage",
    "declared_not_personal",
    "handlers",
    "not_personal",
    "project_models",
    "register",
    "register_handler",
    "temporarily",
    "unregister",
]

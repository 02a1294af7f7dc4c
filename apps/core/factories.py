"""The base of every area's test factories (factory_boy; `apps/<area>/tests/factories.py`). For
tests only: factory_boy and Faker are development requirements.

A record is made the way a person makes it, through its area's service (so it has its history,
its owner, what the service checks), by `actor`; every other keyword is a field of the service:

    class DepartmentFactory(ServiceFactory):
        class Meta:
            model = Department

        name = numbered(fake.city, " office ")
        _service = staticmethod(services.department_create)   # (actor=, fields=) -> the record

    DepartmentFactory(actor=people["admin"], parent_id=top.pk)
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import factory
from faker import Faker

from apps.core import folders

fake = Faker()


def numbered(make: Callable[[], str], between: str = "") -> Any:
    """A value Faker makes, numbered by the factory's sequence: unique in a test run, and unlike
    any other text (a test may look for it in an answer)."""
    return factory.Sequence(lambda n: f"{make()}{between}{n:05d}")


class ServiceFactory(factory.django.DjangoModelFactory):
    class Meta:
        abstract = True

    # The area's create service, called as _service(actor=..., fields={...}).
    _service: Callable[..., Any]

    @classmethod
    def _create(cls, model_class: type, *args: Any, actor: Any = None, **fields: Any) -> Any:
        if actor is None:
            raise TypeError(f"{cls.__name__} needs the person who creates the record: actor=...")
        return cls._make(model_class, actor=actor, fields=fields)

    @classmethod
    def _make(cls, model_class: type, *, actor: Any, fields: dict[str, Any]) -> Any:
        return cls._service(actor=actor, fields=fields)

    @classmethod
    def _build(cls, model_class: type, *args: Any, actor: Any = None, **fields: Any) -> Any:
        return model_class(**fields)


class FolderBaseFactory(ServiceFactory):
    """The folders of an area on apps.core.folders (Files, Documents): subclass it with the
    area's folder model; `FolderFactory(actor=..., name="Board", parent=top)` makes one."""

    class Meta:
        abstract = True

    name = numbered(fake.word, " ")
    parent = None

    @classmethod
    def _make(cls, model_class: type, *, actor: Any, fields: dict[str, Any]) -> Any:
        return folders.create(model_class, actor=actor, **fields)


# --- rows for the access test (tests/test_access_per_model.py) -------------------------------------


@dataclass
class AccessRows:
    """Rows of one model, made for the access test: `own` the rows each person sees besides the
    workspace's (by their role in the `people` fixture: "member", "admin"...: their own, those
    of theirs through a path or a share), `everyone` the rows every person of the area sees, and
    `drafts` those of `own` that are their owner's alone even for those who see every row. `listed`
    gives the ids the area's list tool (or selector) answers a person, None when it is not theirs."""

    own: dict[str, list[Any]] = field(default_factory=dict)
    everyone: list[Any] = field(default_factory=list)
    drafts: list[Any] = field(default_factory=list)
    listed: Callable[[Any], Iterable[int] | None] | None = None

    @property
    def made(self) -> list[Any]:
        return [*self.everyone, *(row for rows in self.own.values() for row in rows)]


def private_rows(people: dict[str, Any], make: Callable[[Any, str], Any]) -> AccessRows:
    """The rows of a model whose rows are private or the workspace's: `make(actor, visibility)`
    as the member and as the owner, "private", and as the member, "workspace"."""
    member, owner = people["member"], people["owner"]
    return AccessRows(
        own={"member": [make(member, "private")], "owner": [make(owner, "private")]},
        everyone=[make(member, "workspace")],
    )


Builder = TypeVar("Builder", bound=Callable[..., Any])


def _registering(builders: dict[str, Builder], key: str) -> Callable[[Builder], Builder]:
    def decorator(function: Builder) -> Builder:
        builders[key] = function
        return function

    return decorator


def _discovered(builders: dict[str, Builder]) -> dict[str, Builder]:
    """The builders every area's tests/factories.py registers."""
    from django.utils.module_loading import autodiscover_modules

    autodiscover_modules("tests.factories")
    return dict(builders)


AccessBuilder = Callable[[dict[str, Any]], AccessRows]
_access_builders: dict[str, AccessBuilder] = {}


def access_rows(label: str) -> Callable[[AccessBuilder], AccessBuilder]:
    """Registers the function that makes the rows of a model ("hr.LeaveRequest") for the access
    test, given the `people` fixture: every model that declares its access has one, in its area's
    tests/factories.py."""
    return _registering(_access_builders, label)


def access_builders() -> dict[str, AccessBuilder]:
    return _discovered(_access_builders)


# --- an owner's private records for the privacy sweep (tests/test_privacy_sweep.py) ---------------


@dataclass
class PrivateRows:
    """An owner's private records of one area, and records linked to them or made from them
    (a workspace contact a private document is linked to, the copy of a private file), with the
    marker in every text field: each record under the names of the arguments that take its id
    (`{"contactId": [...], "entityId": [...]}`), for the readers' calls."""

    records: dict[str, list[Any]] = field(default_factory=dict)

    def add(self, *names: str, record: Any) -> Any:
        for name in names:
            self.records.setdefault(name, []).append(record)
        return record


# make(people, marker, rows): adds the area's records, made by people["owner"], to `rows`.
PrivacyBuilder = Callable[[dict[str, Any], str, PrivateRows], None]
_privacy_builders: dict[str, PrivacyBuilder] = {}


def privacy_rows(area: str) -> Callable[[PrivacyBuilder], PrivacyBuilder]:
    """Registers the function that makes an area's private records for the privacy sweep, in
    the area's tests/factories.py: every area with private records (a model with a visibility,
    or rows their owners' alone) has one."""
    return _registering(_privacy_builders, area)


def privacy_builders() -> dict[str, PrivacyBuilder]:
    return _discovered(_privacy_builders)

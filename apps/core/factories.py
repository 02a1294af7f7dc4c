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

from collections.abc import Callable
from typing import Any

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

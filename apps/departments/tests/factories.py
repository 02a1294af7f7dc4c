"""Departments for tests (factory_boy), created through the service as a person would:

    DepartmentFactory(actor=people["admin"], name="Sales", parent_id=top.pk)

Any keyword besides `actor` is a field of createDepartment; names are Faker's, numbered."""

from typing import Any

import factory
from faker import Faker

from apps.departments import services
from apps.departments.models import Department

fake = Faker()


class DepartmentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Department

    name = factory.Sequence(lambda n: f"{fake.city()} office {n}")

    @classmethod
    def _create(
        cls, model_class: type[Department], *args: Any, actor: Any = None, **fields: Any
    ) -> Department:
        if actor is None:
            raise TypeError("DepartmentFactory needs the actor who creates the department: actor=...")
        return services.department_create(actor=actor, fields=fields)

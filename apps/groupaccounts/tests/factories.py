"""Group accounts for tests (factory_boy), created through the service as a person would:

    GroupAccountFactory(actor=people["member"], kind="supplier", tags=["vip"])

Any keyword besides `actor` is a field of createGroupAccount; names are Faker's, numbered."""

from typing import Any

import factory
from faker import Faker

from apps.groupaccounts import services
from apps.groupaccounts.models import GroupAccount

fake = Faker()


class GroupAccountFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = GroupAccount

    name = factory.Sequence(lambda n: f"{fake.company()} {n}")

    @classmethod
    def _create(cls, model_class: type[GroupAccount], *args: Any, actor: Any = None, **fields: Any) -> Any:
        if actor is None:
            raise TypeError("GroupAccountFactory needs the actor who creates the account: actor=...")
        return services.account_create(actor=actor, fields=fields)

"""Group accounts for tests, created through the service (apps.core.factories), e.g.
`GroupAccountFactory(actor=people["member"], kind="supplier", tags=["vip"])`."""

from typing import Any

from apps.catalogue.testing import listed
from apps.core.factories import AccessRows, ServiceFactory, access_rows, fake, numbered
from apps.groupaccounts import services
from apps.groupaccounts.models import GroupAccount


class GroupAccountFactory(ServiceFactory):
    class Meta:
        model = GroupAccount

    name = numbered(fake.company, " ")
    _service = staticmethod(services.account_create)


@access_rows("groupaccounts.GroupAccount")
def _accounts(people: dict[str, Any]) -> AccessRows:
    return AccessRows(
        everyone=[GroupAccountFactory(actor=people["member"])],
        listed=lambda person: listed(person, "listGroupAccounts", {"limit": 100}),
    )

"""Group accounts for tests, created through the service (apps.core.factories), e.g.
`GroupAccountFactory(actor=people["member"], kind="supplier", tags=["vip"])`."""

from apps.core.factories import ServiceFactory, fake, numbered
from apps.groupaccounts import services
from apps.groupaccounts.models import GroupAccount


class GroupAccountFactory(ServiceFactory):
    class Meta:
        model = GroupAccount

    name = numbered(fake.company, " ")
    _service = staticmethod(services.account_create)

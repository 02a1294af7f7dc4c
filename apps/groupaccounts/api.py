"""The Group Accounts area's public module: what other areas may use of it (docs/area-kit.md,
"Cross-area services"). Nothing else of apps.groupaccounts is theirs to import.

`accounts(reader)`: the group accounts a person (or, for a run nobody asked for, `ANYONE`) may
see; `contact_links()`: which contacts each lists, with their role (narrow it to accounts the
reader sees). `GroupAccount` is here for foreign keys' and answers' types.
"""

from django.db.models import QuerySet

from apps.core.actors import Actor
from apps.core.records import Anyone
from apps.groupaccounts.models import GroupAccount, GroupAccountContact

__all__ = ["GroupAccount", "GroupAccountContact", "accounts", "contact_links"]


def accounts(reader: Actor | Anyone | None) -> QuerySet[GroupAccount]:
    """The live group accounts `reader` may see."""
    return GroupAccount.objects.restrict(reader)


def contact_links() -> QuerySet[GroupAccountContact]:
    """The contacts the group accounts list (`contact`, `account`, `role`)."""
    return GroupAccountContact.objects.all()

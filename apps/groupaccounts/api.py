"""The Group Accounts area's public module: what other areas may use of it (docs/area-kit.md,
"Cross-area services"). Nothing else of apps.groupaccounts is theirs to import.

For the service's own look-ups, where nobody acts (a deal finder matching leads):
`live_accounts()` (every group account not in the trash) and `contact_links()` (which contacts
each lists, with their role). `GroupAccount` is here for foreign keys' and answers' types.
"""

from django.db.models import QuerySet

from apps.groupaccounts.models import GroupAccount, GroupAccountContact

__all__ = ["GroupAccount", "GroupAccountContact", "contact_links", "live_accounts"]


def live_accounts() -> QuerySet[GroupAccount]:
    """Every group account not in the trash, whoever may see it."""
    return GroupAccount.objects.filter(deleted_at__isnull=True)


def contact_links() -> QuerySet[GroupAccountContact]:
    """The contacts the group accounts list (`contact`, `account`, `role`)."""
    return GroupAccountContact.objects.all()

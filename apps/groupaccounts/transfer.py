"""Group accounts as people import them from a spreadsheet, and export them (apps.core.transfer):
each row made as createGroupAccount makes one (`account_create`, the importer looking after it
unless `ownerEmail` names someone else).

A row is checked with the service's own `_apply` on an account that is not saved. Two rows are
one account when they share a name, case and spaces aside: what the area itself refuses twice
(`unique_name`). A row naming an account the importer already sees is a duplicate, left out, not
a problem. Every live account is the workspace's (everyone whose role allows group accounts sees
it), so an export holds them all; archived ones are left out, as searchGroupAccounts leaves them.
"""

from typing import Any

from django.utils.translation import gettext_lazy as _

from apps.accounts.models import person
from apps.core import clean, search, transfer
from apps.core.transfer import Column
from apps.groupaccounts import services
from apps.groupaccounts.models import GroupAccount
from apps.groupaccounts.permissions import GroupAccountsPerm


def _tags(text: str) -> list[str]:
    return search.tags(transfer.listed(text))


COLUMNS = (
    Column("name", "name", "unique among the live accounts", parse=transfer.limited("name", 200)),
    Column(
        "kind",
        "kind",
        "customer (the default), prospect, supplier, partner or other",
        parse=transfer.choice("kind", GroupAccount.Kind.values),
    ),
    Column("description", "description", parse=transfer.limited("description", 10_000)),
    Column("industry", "industry", parse=transfer.limited("industry", 100)),
    Column("website", "website", parse=transfer.limited("website", 200)),
    Column(
        "emailDomains", "email_domains", "of its people's e-mail, separated by commas", parse=transfer.listed
    ),
    Column(
        "ownerEmail", "owner_email", "who looks after it: a person of the workspace; the importer by default"
    ),
    Column("tags", "tags", "separated by commas or semicolons", parse=_tags),
)


SAME = transfer.SameName("name", lambda actor: GroupAccount.objects.restrict(actor, "view"))


def check(actor: Any, fields: dict[str, Any]) -> None:
    if fields.get("owner_email"):
        clean.person_by_email(fields["owner_email"], field="owner_email")
    account = GroupAccount(owner=person(actor))
    if SAME.existing(actor, set(SAME.keys(fields))):
        # An account the importer has: the row is a duplicate, left out; its other cells are
        # still checked.
        services._apply(
            actor, account, {name: value for name, value in fields.items() if name != "name"}, False
        )
    else:
        services._apply(actor, account, fields, True)


def create(actor: Any, fields: dict[str, Any]) -> int:
    return services.account_create(actor=actor, fields=fields).pk


transfer.importable(
    transfer.Importable(
        kind="group_account",
        label=_("Group account"),
        permission=GroupAccountsPerm.EDIT,
        columns=COLUMNS,
        check=check,
        create=create,
        keys=SAME.keys,
        existing=SAME.existing,
        description="name: an account of the same name, case and spaces aside",
    )
)


# An export's columns are the import's, after the account's id: a file exported, its id and
# createdAt columns removed, imports again.
transfer.exportable(
    transfer.Exportable(
        kind="group_account",
        label=_("Group account"),
        permission=GroupAccountsPerm.VIEW,
        columns=(
            ("id", lambda account: account.pk),
            ("name", lambda account: account.name),
            ("kind", lambda account: account.kind),
            ("description", lambda account: account.description),
            ("industry", lambda account: account.industry),
            ("website", lambda account: account.website),
            ("emailDomains", lambda account: ", ".join(account.email_domains or [])),
            ("ownerEmail", lambda account: account.owner.email if account.owner else ""),
            ("tags", lambda account: "; ".join(account.tags or [])),
            ("createdAt", lambda account: account.created_at),
        ),
        rows=lambda actor: (
            GroupAccount.objects.restrict(actor, "view").select_related("owner").order_by("id")
        ),
        search=("name", "description", "industry", "website"),
    )
)

from django.utils.translation import gettext_lazy as _

from apps.core.permissions import Level, PermissionEnum, register_permissions


# The area's own permissions: a role without accounting.view sees no figures at all, whatever
# it may do in other areas.
@register_permissions
class AccountingPerm(PermissionEnum):
    VIEW = "accounting.view", Level.READ, _("See the ledger, invoices, bills, bank lines and reports")
    EDIT = (
        "accounting.edit",
        Level.WRITE,
        _("Create and change draft quotes, invoices, charges and bank lines"),
    )
    POST = "accounting.post", Level.WRITE, _("Approve invoices, record payments and post to the ledger")
    SEND = "accounting.send", Level.WRITE, _("Send invoices, reminders and statements to customers")
    DELETE = "accounting.delete", Level.DELETE, _("Delete drafts and undo bank matches")
    ADMIN = "accounting.admin", Level.ADMIN, _("Change the books: base currency, lock date, tax types")

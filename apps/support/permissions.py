from django.utils.translation import gettext_lazy as _

from apps.core.permissions import Level, PermissionEnum, register_permissions


@register_permissions
class SupportPerm(PermissionEnum):
    # The Customer Service area (SPEC 4.7): tickets of the workspace's own customers.
    VIEW = (
        "customerservice.view",
        Level.READ,
        _("See the ticket queue, tickets, their comments and escalations"),
    )
    REQUEST = (
        "customerservice.request",
        Level.READ,
        _("Comment on the tickets one asked for oneself (as requester)"),
    )
    EDIT = "customerservice.edit", Level.WRITE, _("Open, assign, note, escalate, solve and close tickets")
    REPLY = "customerservice.reply", Level.WRITE, _("Answer customers by e-mail from the support mailboxes")
    ADMIN = "customerservice.admin", Level.ADMIN, _("Choose the support mailboxes and the SLA policies")

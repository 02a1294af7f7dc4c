from django.utils.translation import gettext_lazy as _

from apps.core.permissions import Level, PermissionEnum, register_permissions


@register_permissions
class DealsPerm(PermissionEnum):
    VIEW = "deals.view", Level.READ, _("See pipelines, deals, their history, contacts and follow-ups")
    MANAGE = (
        "deals.manage",
        Level.WRITE,
        _("Create, change, move, share and delete deals; log contacts and follow-ups"),
    )
    PIPELINES = "deals.pipelines", Level.ADMIN, _("Create pipelines and change their stages")
    FINDERS = "deals.finders", Level.WRITE, _("Set up and run deal finders (prospecting searches)")
    CAMPAIGNS = "deals.campaigns", Level.WRITE, _("Set up and start reachout campaigns")
    MAIL = "deals.mail", Level.WRITE, _("Read and send deal e-mail from the mailboxes one may use")
    ADMIN = "deals.admin", Level.ADMIN, _("See and change every deal, private ones included")

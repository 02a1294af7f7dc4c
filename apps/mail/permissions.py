from django.utils.translation import gettext_lazy as _

from apps.core.permissions import Level, PermissionEnum, register_permissions


@register_permissions
class MailPerm(PermissionEnum):
    # The Email Inbox area (SPEC 4.7); its app is apps.mail, the one mail app of every area.
    VIEW = "emailinbox.view", Level.READ, _("Read the mail of the mailboxes one owns or is a member of")
    EDIT = "emailinbox.edit", Level.WRITE, _("Write drafts and signatures in those mailboxes")
    SEND = "emailinbox.send", Level.WRITE, _("Send, forward and resend mail from those mailboxes")
    # Whoever writes drafts discards them, as they trash e-mails (manageEmail, at the same level).
    DELETE = "emailinbox.delete", Level.WRITE, _("Put drafts in the trash and restore them")
    ADMIN = "emailinbox.admin", Level.ADMIN, _("Connect mailboxes and choose the members of shared ones")

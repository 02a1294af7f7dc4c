"""The client portal's people: contacts given a sign-in of their own (apps.platform.portal)."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.contacts.api import Contact

USER = settings.AUTH_USER_MODEL


class PortalUser(models.Model):
    """A contact as an external person of the client portal: their sign-in is a person of the
    workspace with the built-in portal role (no permission). Their state is read from the rows:
    asked for (not yet approved), invited (no password chosen yet), active, revoked."""

    class State(models.TextChoices):
        REQUESTED = "requested", _("requested")
        INVITED = "invited", _("invited")
        ACTIVE = "active", _("active")
        REVOKED = "revoked", _("revoked")

    user = models.OneToOneField(
        USER, on_delete=models.CASCADE, related_name="portal", verbose_name=_("person")
    )
    contact = models.ForeignKey(
        Contact, on_delete=models.SET_NULL, null=True, blank=True, related_name="+", verbose_name=_("contact")
    )
    requested_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    approved_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    revoked_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    asked_by_themselves = models.BooleanField(
        _("asked by themselves"), default=False, help_text=_("On the portal's sign-up page")
    )
    created_at = models.DateTimeField(_("asked for"), default=timezone.now)
    approved_at = models.DateTimeField(_("approved"), null=True, blank=True)
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("portal user")

    def __str__(self) -> str:
        return f"portal user {self.user_id}"

    @property
    def state(self) -> "PortalUser.State":
        if self.revoked_at is not None:
            return self.State.REVOKED
        if self.approved_at is None:
            return self.State.REQUESTED
        if not self.user.has_usable_password():
            return self.State.INVITED
        return self.State.ACTIVE

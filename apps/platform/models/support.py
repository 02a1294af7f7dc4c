"""Tickets to the service's operators about this workspace (createSupportTicket): not the
workspace's own customer service (the Customer Service area), but the people who run Atrium.

A ticket is kept here, in the workspace's schema, where its requester reads its state back and the
operators see and answer it in the workspace's Django admin; the operators' address
(settings.PLATFORM_SUPPORT_EMAIL) is told of each new one."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class SupportTicket(models.Model):
    class Category(models.TextChoices):
        QUESTION = "question", _("question")
        PROBLEM = "problem", _("something does not work")
        BILLING = "billing", _("billing and usage")
        ACCOUNT = "account", _("the account and its access")
        FEATURE = "feature", _("a feature request")

    class Status(models.TextChoices):
        OPEN = "open", _("open")
        ANSWERED = "answered", _("answered")
        CLOSED = "closed", _("closed")

    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", verbose_name=_("requester")
    )
    category = models.CharField(_("category"), max_length=20, choices=Category.choices)
    subject = models.CharField(_("subject"), max_length=200)
    body = models.TextField(_("message"))
    status = models.CharField(_("status"), max_length=20, choices=Status.choices, default=Status.OPEN)
    # What the operators answered (their words, written in the admin).
    reply = models.TextField(_("operators' reply"), blank=True)
    # Whether the operators' address was told of it (False: no address set, or the mail server refused).
    operators_notified = models.BooleanField(_("operators notified"), default=False)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("support ticket")
        indexes = [models.Index(fields=["requested_by", "-created_at"], name="platform_ticket_requester")]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=["open", "answered", "closed"]), name="platform_ticket_status"
            )
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.subject}"

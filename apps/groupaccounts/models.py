"""Group accounts: the organisations the workspace deals with as a whole (a customer group, a
supplier, a partner), with the contacts who work there. Workspace schema. A group account is a
record of the area kit (apps.core.records) that everyone whose role allows group accounts sees
(and changes, with groupaccounts.edit); archived first (`deleted_at`, by an operator: no tool
deletes one)."""

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.utils.translation import gettext_lazy as _

from apps.contacts.api import LinkedContact
from apps.core.errors import TrashedNotFound
from apps.core.records import Access, Record, name_once
from apps.groupaccounts.permissions import GroupAccountsPerm

USER = settings.AUTH_USER_MODEL


class GroupAccount(Record):
    access = Access(
        GroupAccountsPerm,
        # Everyone's: its `owner` is who looks after it, which gives them nothing more than their role does.
        visibility="workspace",
        label=_("Group account"),
        find_with="searchGroupAccounts",
        trash_state=_("archived"),
        # Using an archived account has always been "not found" to agents.
        trash_error=TrashedNotFound,
        trash_hint=_("It can be restored on the Group accounts page."),
    )

    class Kind(models.TextChoices):
        CUSTOMER = "customer", _("customer")
        PROSPECT = "prospect", _("prospect")
        SUPPLIER = "supplier", _("supplier")
        PARTNER = "partner", _("partner")
        OTHER = "other", _("other")

    name = models.CharField(_("name"), max_length=200)
    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices, default=Kind.CUSTOMER)
    description = models.TextField(_("description"), blank=True)
    industry = models.CharField(_("industry"), max_length=100, blank=True)
    website = models.URLField(_("website"), max_length=200, blank=True)
    # Domains of its people's addresses ("acme.example"): shown with the account, searched.
    email_domains = ArrayField(models.CharField(max_length=253), default=list, blank=True)
    # The organisation as a contact, when there is one.
    organisation = models.ForeignKey(
        "contacts.Contact", on_delete=models.SET_NULL, null=True, blank=True, related_name="group_accounts"
    )
    owner = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    tags = ArrayField(models.CharField(max_length=50), default=list, blank=True)

    class Meta:
        ordering = ["name", "id"]
        verbose_name = _("group account")
        constraints = [
            name_once("groupaccounts_name_once"),
        ]

    def __str__(self) -> str:
        return self.name


class GroupAccountContact(LinkedContact):
    account = models.ForeignKey(GroupAccount, on_delete=models.CASCADE, related_name="contact_links")

    class Meta(LinkedContact.Meta):
        verbose_name = _("linked contact")
        constraints = [
            models.UniqueConstraint(fields=["account", "contact"], name="groupaccounts_contact_once")
        ]

    def __str__(self) -> str:
        return f"contact {self.contact_id} of {self.account_id}"

"""Departments: parts of the organisation, with their members (people of the workspace) and the
contacts they deal with. Workspace schema. A department is a record of the area kit
(apps.core.records) that everyone whose role allows departments sees; a deleted one is in the
trash (`deleted_at`) and can be restored from the settings page."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.contacts.api import LinkedContact
from apps.core.errors import TrashedNotFound
from apps.core.records import Access, Record, name_once
from apps.departments.permissions import DepartmentsPerm

USER = settings.AUTH_USER_MODEL


class Department(Record):
    access = Access(
        DepartmentsPerm,
        # Everyone's: its head leads it; who may change it is the role's business alone.
        visibility="workspace",
        label=_("Department"),
        find_with="searchDepartments or listDepartments",
        trash_state=_("deleted"),
        trash_hint=_("Someone allowed to delete departments can restore it from the Departments page."),
        # Using a deleted department has always been "not found" to agents.
        trash_error=TrashedNotFound,
    )

    name = models.CharField(_("name"), max_length=120)
    description = models.TextField(_("description"), blank=True)
    email = models.EmailField(_("e-mail"), max_length=254, blank=True)
    parent = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="children",
        verbose_name=_("part of"),
    )
    head = models.ForeignKey(
        USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+", verbose_name=_("head")
    )

    class Meta:
        ordering = ["name", "id"]
        verbose_name = _("department")
        constraints = [
            name_once("departments_name_once"),
        ]

    def __str__(self) -> str:
        return self.name


class Member(models.Model):
    department = models.ForeignKey(Department, on_delete=models.CASCADE, related_name="members")
    user = models.ForeignKey(USER, on_delete=models.CASCADE, related_name="department_memberships")
    role = models.CharField(_("role"), max_length=100, blank=True)
    added_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    added_at = models.DateTimeField(_("added"), default=timezone.now)

    class Meta:
        ordering = ["added_at", "id"]
        verbose_name = _("member")
        constraints = [models.UniqueConstraint(fields=["department", "user"], name="departments_member_once")]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.department_id}"


class DepartmentContact(LinkedContact):
    department = models.ForeignKey(Department, on_delete=models.CASCADE, related_name="contact_links")

    class Meta(LinkedContact.Meta):
        verbose_name = _("linked contact")
        constraints = [
            models.UniqueConstraint(fields=["department", "contact"], name="departments_contact_once")
        ]

    def __str__(self) -> str:
        return f"contact {self.contact_id} of {self.department_id}"

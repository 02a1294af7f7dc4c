"""HR policies, versioned: each published version is kept as it was, and an acknowledgment is
of one version (a new version needs acknowledging again)."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.core.records import Access, Record, name_once
from apps.hr.permissions import HrPerm

USER = settings.AUTH_USER_MODEL


class Policy(Record):
    access = Access(
        HrPerm,
        # Everyone who may see HR reads the policies; HR publishes them.
        visibility="workspace",
        manage=HrPerm.POLICIES,
        label=_("Policy"),
        find_with="getPolicies",
    )

    title = models.CharField(_("title"), max_length=200)

    class Meta:
        ordering = ["title", "id"]
        verbose_name = _("policy")
        verbose_name_plural = _("policies")
        constraints = [name_once("hr_policy_title_once", field="title")]

    def __str__(self) -> str:
        return self.title

    @property
    def current(self) -> "PolicyVersion | None":
        return self.versions.order_by("-number").first()


class PolicyVersion(models.Model):
    policy = models.ForeignKey(Policy, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField(_("version"))
    text = models.TextField(_("text"))
    summary = models.CharField(_("what changed"), max_length=500, blank=True)
    published_at = models.DateTimeField(_("published"), default=timezone.now)
    published_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")

    class Meta:
        ordering = ["policy", "-number"]
        verbose_name = _("policy version")
        constraints = [models.UniqueConstraint(fields=["policy", "number"], name="hr_policy_version_once")]

    def __str__(self) -> str:
        return f"{self.policy_id} v{self.number}"


class PolicyAcknowledgment(models.Model):
    version = models.ForeignKey(PolicyVersion, on_delete=models.CASCADE, related_name="acknowledgments")
    user = models.ForeignKey(USER, on_delete=models.CASCADE, related_name="+")
    acknowledged_at = models.DateTimeField(_("acknowledged"), default=timezone.now)

    class Meta:
        ordering = ["-acknowledged_at", "id"]
        verbose_name = _("policy acknowledgment")
        constraints = [models.UniqueConstraint(fields=["version", "user"], name="hr_policy_ack_once")]

    def __str__(self) -> str:
        return f"{self.user_id} acknowledged {self.version_id}"

"""Versioned HR policies and their acknowledgments (apps.hr.models.policies)."""

import logging

from django.db import transaction
from django.db.models import Max
from django.utils.translation import gettext as _

from apps.accounts.models import person
from apps.core import clean
from apps.core.actors import Actor, require
from apps.core.errors import invalid
from apps.hr.models import Policy, PolicyAcknowledgment, PolicyVersion
from apps.hr.permissions import HrPerm

logger = logging.getLogger(__name__)


@transaction.atomic
def policy_publish(*, actor: Actor, title: str, text: str, summary: str = "") -> PolicyVersion:
    """Publishes a policy's next version (its first, for a new title). Earlier versions stay as
    they were, with their acknowledgments; people acknowledge the new one again."""
    require(actor, HrPerm.POLICIES)
    title = clean.text(title, field="title", limit=200, required=True)
    text = clean.long_text(text, field="text", limit=100_000, required=True)
    policy = Policy.objects.select_for_update().filter(title__iexact=title, deleted_at__isnull=True).first()
    if policy is None:
        policy = Policy.objects.create(title=title, created_by=person(actor))
    current = policy.versions.order_by("-number").first()
    if current is not None and current.text == text:
        raise invalid(
            "text",
            _("is the text of version {number} already: change it to publish anew"),
            number=current.number,
        )
    number = (policy.versions.aggregate(top=Max("number"))["top"] or 0) + 1
    version = PolicyVersion.objects.create(
        policy=policy,
        number=number,
        text=text,
        summary=clean.text(summary, field="summary", limit=500),
        published_by=person(actor),
    )
    logger.info("policy %s version %s published", policy.pk, number)
    return version


def policy_acknowledge(*, actor: Actor, version: PolicyVersion) -> tuple[PolicyAcknowledgment, bool]:
    """The actor acknowledges one version: (the acknowledgment, whether it is new)."""
    require(actor, HrPerm.VIEW)
    latest = version.policy.versions.order_by("-number").first()
    if latest is not None and latest.pk != version.pk:
        raise invalid(
            "version",
            _("version {number} is superseded: acknowledge version {latest}"),
            number=version.number,
            latest=latest.number,
        )
    return PolicyAcknowledgment.objects.get_or_create(version=version, user=person(actor))

"""Training records (apps.hr.models.training)."""

import logging
from datetime import date

from dateutil.relativedelta import relativedelta
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.models import person
from apps.core import clean
from apps.core.actors import Actor, require
from apps.core.errors import invalid
from apps.hr.models import Employee, TrainingRecord
from apps.hr.permissions import HrPerm

logger = logging.getLogger(__name__)


def training_add(
    *,
    actor: Actor,
    employee: Employee,
    course: str,
    completed_on: date,
    expires_on: date | None = None,
    valid_months: int | None = None,
    provider: str = "",
    notes: str = "",
) -> TrainingRecord:
    """Records a completed course; it expires on `expires_on`, or `valid_months` after completion."""
    require(actor, HrPerm.TRAINING)
    if completed_on > timezone.localdate():
        raise invalid("completedOn", _("is in the future: record training once it is completed"))
    if expires_on is not None and valid_months is not None:
        raise invalid("validMonths", _("give expiresOn or validMonths, not both"))
    if valid_months is not None:
        if not 1 <= valid_months <= 240:
            raise invalid("validMonths", _("from 1 to 240"))
        expires_on = completed_on + relativedelta(months=valid_months)
    if expires_on is not None and expires_on <= completed_on:
        raise invalid(
            "expiresOn",
            _("must be after the completion date ({completed_on})"),
            completed_on=completed_on.isoformat(),
        )
    record = TrainingRecord.objects.create(
        employee=employee,
        course=clean.text(course, field="course", limit=200, required=True),
        provider=clean.text(provider, field="provider", limit=200),
        notes=clean.text(notes, field="notes", limit=1000),
        completed_on=completed_on,
        expires_on=expires_on,
        created_by=person(actor),
    )
    logger.info("training record %s added for employee %s", record.pk, employee.pk)
    return record

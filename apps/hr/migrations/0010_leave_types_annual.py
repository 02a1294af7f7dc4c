"""Existing leave policies become policies of the "annual" type, as they were."""

from django.db import migrations


def annual_for_existing(apps, schema_editor):
    """The policies there are become policies of the "annual" type, as they were."""
    LeavePolicy = apps.get_model("hr", "LeavePolicy")
    if not LeavePolicy.objects.exists():
        return
    LeaveType = apps.get_model("hr", "LeaveType")
    annual = LeaveType.objects.filter(code="annual", deleted_at__isnull=True).first()
    if annual is None:
        annual = LeaveType.objects.create(code="annual", name="Annual leave")
    LeavePolicy.objects.filter(leave_type__isnull=True).update(leave_type=annual)


class Migration(migrations.Migration):
    dependencies = [("hr", "0009_leave_types")]

    operations = [migrations.RunPython(annual_for_existing, migrations.RunPython.noop)]

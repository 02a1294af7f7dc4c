"""Export and erasure of one person's tasks (docs/privacy.md): their private tasks go, with their
steps and history; the workspace's tasks and someone else's private task they made stay."""

from apps.accounts.models import Role, User
from apps.datarights.personal_data import personal_data_erase, personal_data_export
from apps.tasks.models import ScheduledTask, Task, TaskStep
from apps.tasks.tests.factories import TaskFactory

EMAIL = "rowan.tate@acme.example"


def test_a_persons_private_tasks_are_erased_and_the_workspaces_kept(acme, people):
    import io
    import json

    admin = people["admin"]
    rowan = User.objects.create_user(email=EMAIL, password=None, role=Role.objects.get(key="member"))
    shown = TaskFactory(actor=rowan, title="Rowan's team task")
    private = TaskFactory(actor=rowan, title="Rowan's own list", visibility="private")
    for_admin = TaskFactory(actor=admin, title="Made for the admin", visibility="private")
    Task.objects.filter(pk=for_admin.pk).update(created_by=rowan)
    steps = list(TaskStep.objects.filter(task=private).values_list("pk", flat=True))

    out = io.BytesIO()
    personal_data_export(workspace=acme, email=EMAIL, out=out, performed_by="test")
    exported = {row["title"] for row in json.loads(out.getvalue())["records"]["tasks.task"]}
    assert exported == {"Rowan's team task", "Rowan's own list", "Made for the admin"}

    personal_data_erase(workspace=acme, email=EMAIL, performed_by="test")

    assert not Task.objects.filter(pk=private.pk).exists()
    assert steps and not TaskStep.objects.filter(pk__in=steps).exists()
    kept = Task.objects.get(pk=shown.pk)
    assert (kept.owner_id, kept.created_by_id, kept.archived_at) == (None, None, None)
    theirs = Task.objects.get(pk=for_admin.pk)
    assert (theirs.owner_id, theirs.created_by_id) == (admin.pk, None)


def test_the_first_phase_puts_a_private_task_away_and_stops_its_schedule(acme, people):
    from apps.core import privacy

    rowan = User.objects.create_user(email=EMAIL, password=None, role=Role.objects.get(key="member"))
    private = TaskFactory(actor=rowan, visibility="private")
    shown = TaskFactory(actor=rowan)
    for task in (private, shown):
        ScheduledTask.objects.create(
            task=task, rrule="FREQ=WEEKLY", starts_at=task.created_at, created_by=rowan
        )
    handler = next(h for h in privacy.handlers() if h.label == "tasks.task")

    assert handler.soft_delete(privacy.Subject(email=EMAIL, user=rowan, workspace=acme)) == 1

    private.refresh_from_db()
    assert private.archived_at is not None and Task.objects.get(pk=shown.pk).archived_at is None
    assert not ScheduledTask.objects.get(task=private).enabled
    assert ScheduledTask.objects.get(task=shown).enabled

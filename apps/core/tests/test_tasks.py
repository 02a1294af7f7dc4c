import pytest
from django.db import connection
from django_tenants.utils import schema_context

from apps.core.tasks import for_each_marked, for_each_workspace, mark_pending, workspace_task
from apps.tenancy.models import PendingWork


@workspace_task(name="tests.schema_of_task")
def schema_of_task() -> str:
    return connection.schema_name


@pytest.mark.django_db
def test_a_workspace_task_runs_in_the_schema_it_is_given():
    assert schema_of_task.apply(kwargs={"schema_name": "globex"}).get() == "globex"
    assert connection.schema_name == "public"


@pytest.mark.django_db
def test_a_sweep_visits_every_workspace_and_survives_a_failure():
    seen = []

    def sweep():
        seen.append(connection.schema_name)
        if connection.schema_name == "acme":
            raise RuntimeError("one bad workspace")

    failures = for_each_workspace(sweep)

    assert {"acme", "globex"} <= set(seen)
    assert "public" not in seen
    assert failures == 1


@pytest.mark.django_db
def test_a_quick_sweep_visits_only_the_workspaces_marked_with_its_kind():
    with schema_context("globex"):
        mark_pending("tests-kind")
        mark_pending("tests-kind")  # marking twice is one mark
    with schema_context("acme"):
        mark_pending("tests-other-kind")
    seen = []

    def sweep() -> bool:
        seen.append(connection.schema_name)
        return False

    assert for_each_marked("tests-kind", sweep) == 0

    assert seen == ["globex"]
    # Nothing left: the mark is gone and the next sweep visits nobody; the other kind's stays.
    assert for_each_marked("tests-kind", sweep) == 0
    assert seen == ["globex"]
    # (Only this test's kinds: the live tests of this process may have left real marks committed.)
    assert list(
        PendingWork.objects.filter(kind__startswith="tests-").values_list("workspace__schema_name", "kind")
    ) == [("acme", "tests-other-kind")]


@pytest.mark.django_db
def test_a_mark_stays_while_work_is_left_after_a_failure_or_when_marked_again_meanwhile():
    with schema_context("acme"):
        mark_pending("tests-kind")

    def more_left() -> bool:
        return True

    def fails() -> bool:
        raise RuntimeError("one bad workspace")

    def marked_again() -> bool:
        mark_pending("tests-kind")
        return False

    for sweep, failures in ((more_left, 0), (fails, 1), (marked_again, 0)):
        assert for_each_marked("tests-kind", sweep) == failures
        assert PendingWork.objects.filter(kind="tests-kind").count() == 1, sweep.__name__

    assert for_each_marked("tests-kind", lambda: False) == 0
    assert not PendingWork.objects.filter(kind="tests-kind").exists()

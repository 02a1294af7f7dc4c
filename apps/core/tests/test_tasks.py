import pytest
from django.db import connection

from apps.core.tasks import for_each_workspace, workspace_task


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

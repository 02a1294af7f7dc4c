"""A copy of the template starts on a new PostgreSQL backend when no transaction is open: the plans
an old backend keeps make each catalogue change of a copy cost more (apps.tenancy.cloning)."""

import pytest
from django.db import connection

from apps.tenancy.cloning import fresh_backend


def backend() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def test_outside_a_transaction_the_next_copy_starts_on_a_new_backend(committed):
    before = backend()
    fresh_backend()
    assert backend() != before


@pytest.mark.django_db
def test_inside_a_transaction_the_connection_is_left_alone():
    before = backend()
    fresh_backend()
    assert backend() == before and connection.in_atomic_block

"""A write tool whose COMMIT gets no answer is answered as PostgreSQL decided it, never "failed,
nothing was changed" for a change that was saved (apps.catalogue.dispatch, `_committed`).

The calls commit for real (the `committed` fixture: no test transaction around them), on the test
database; the fault is injected at the one place it happens in production, the COMMIT of the
tool's transaction: the connection is lost after the server committed (the answer never came
back), or before; and PostgreSQL is out of reach afterwards."""

import uuid
from collections.abc import Iterator

import pytest
from django.db import OperationalError, connection
from django.db.backends.base.base import BaseDatabaseWrapper
from django_tenants.utils import schema_context

from apps.catalogue.testing import call, text_of
from apps.contacts.models import Contact
from apps.core.testing import free_port

LOST = "server closed the connection unexpectedly"


@pytest.fixture
def owner(committed) -> Iterator:  # type: ignore[no-untyped-def]
    from apps.accounts.models import User

    with schema_context("acme"):
        yield User.objects.get(email="owner@acme.example")


@pytest.fixture
def email() -> Iterator[str]:
    """The address of the contact this test tries to create (removed afterwards)."""
    address = f"fate-{uuid.uuid4().hex[:12]}@commit.test"
    yield address
    with schema_context("acme"):
        Contact.objects.filter(email=address).delete()


def create(owner, email: str) -> dict:  # type: ignore[no-untyped-def]
    fields = {"firstName": "Fate", "lastName": "Test", "email": email}
    return call(owner, "createContact", {"contact": fields})


def stored(email: str) -> bool:
    with schema_context("acme"):
        return Contact.objects.filter(email=email).exists()


def lose_the_connection(wrapper: BaseDatabaseWrapper) -> None:
    """What the client side sees when the server or the network goes mid-COMMIT."""
    raw = wrapper.connection
    if raw is not None:
        raw.close()
    raise OperationalError(LOST)


def test_a_commit_whose_answer_was_lost_answers_the_tools_result(owner, email, monkeypatch):
    real_commit = BaseDatabaseWrapper._commit

    def commit_then_lose(self: BaseDatabaseWrapper) -> None:
        real_commit(self)  # PostgreSQL committed...
        lose_the_connection(self)  # ...and its answer never arrived

    with monkeypatch.context() as patch:
        patch.setattr(BaseDatabaseWrapper, "_commit", commit_then_lose)
        result = create(owner, email)

    assert result["isError"] is False, text_of(result)
    assert result["structuredContent"]["contact"]["email"] == email
    assert stored(email)


def test_a_commit_that_never_reached_the_server_answers_the_failure(owner, email, monkeypatch):
    def lose_before(self: BaseDatabaseWrapper) -> None:
        lose_the_connection(self)  # the session ends with its transaction: rolled back

    with monkeypatch.context() as patch:
        patch.setattr(BaseDatabaseWrapper, "_commit", lose_before)
        result = create(owner, email)

    assert result["isError"] is True
    assert "nothing was changed" in text_of(result)
    assert not stored(email)


def test_a_commit_whose_fate_cannot_be_read_answers_outcome_unknown(owner, email, monkeypatch, settings):
    settings.CATALOGUE_COMMIT_FATE_SECONDS = 1.0
    real_commit = BaseDatabaseWrapper._commit
    port = connection.settings_dict["PORT"]

    def commit_then_go_away(self: BaseDatabaseWrapper) -> None:
        real_commit(self)
        # PostgreSQL is out of reach from now on (a restart that takes longer than the wait).
        self.settings_dict["PORT"] = str(free_port())
        lose_the_connection(self)

    try:
        with monkeypatch.context() as patch:
            patch.setattr(BaseDatabaseWrapper, "_commit", commit_then_go_away)
            result = create(owner, email)
    finally:
        connection.close()
        connection.settings_dict["PORT"] = port

    assert result["isError"] is True
    text = text_of(result)
    assert "may or may not have been done" in text and "nothing was changed" not in text
    # It was saved: "failed" would have been false, and the answer told the caller to look first.
    assert stored(email)

"""Listeners' templates and conditions refused in plain words at their path, a record listener run
by hand on a record, activation without steps, retries decided by the error's code, and the kept
list of watched kinds when Redis is away while a listener is activated."""

import time

import pytest
from django.core.cache import cache
from redis import exceptions as redis_errors

from apps.catalogue.registry import tool
from apps.catalogue.shapes import Done
from apps.catalogue.testing import confirmed, ok, refused, temporary_tools
from apps.contacts.tests.factories import ContactFactory
from apps.core.errors import Conflict, NotFound, ServiceUnavailable
from apps.core.testing import PrivateRedis
from apps.listeners import events, runner, services
from apps.listeners.models import Listener, Run
from apps.listeners.permissions import ListenersPerm
from apps.listeners.tests.factories import HELP_STEP, ListenerFactory, active
from apps.tasks.models import Task
from bench.faults import restart_redis

ELICIT = {"capabilities": {"elicitation": {}}, "elicit": confirmed}


class WordyRefusal(Conflict):
    """A refusal whose words sound like a failure of the server."""

    code = "LISTENER_TEST_WORDY"
    msg_format = "The server did not answer; try again later (because of an error on the server)."


def _flow(person, listener, steps):  # type: ignore[no-untyped-def]
    return refused(person, "updateListenerFlow", {"listenerId": listener.pk, "steps": steps})


def test_a_template_that_does_not_parse_names_its_step_and_path_in_plain_words(people):
    member = people["member"]
    listener = ListenerFactory(actor=member)
    task = {"id": "task", "tool": "createTask"}
    unclosed = _flow(member, listener, [HELP_STEP, {**task, "arguments": {"title": "Hi {{ record.name"}}])
    assert "Step 2 (createTask)" in unclosed and "arguments.title" in unclosed
    assert "{{ record.name" in unclosed and "not closed" in unclosed
    broken = _flow(member, listener, [{**task, "arguments": {"title": "{{ 1 + }}"}}])
    assert "arguments.title" in broken and "`{{ 1 + }}` is not an expression" in broken
    assert "invalid syntax" not in broken and "<unknown>" not in broken
    nested = _flow(member, listener, [{**task, "arguments": {"title": "x", "tags": ["a", "{{ 2 * }}"]}}])
    assert "arguments.tags.1" in nested
    unknown_name = _flow(member, listener, [{**task, "arguments": {"title": "{{ contact.name }}"}}])
    assert "reads contact" in unknown_name and "trigger, record, steps" in unknown_name
    statement = _flow(member, listener, [{"id": "c", "if": "import os"}])
    assert "Step 1 (if): if" in statement and "statement" in statement
    mail = _flow(member, listener, [{"id": "m", "emailOwner": {"subject": "{{ }}", "text": "x"}}])
    assert "emailOwner.subject" in mail and "empty" in mail
    listener.refresh_from_db()
    assert listener.version == 1  # nothing saved


def test_a_mapping_naming_a_missing_field_fails_its_run_naming_the_step_and_field(people):
    member = people["member"]
    steps = [{"id": "task", "tool": "createTask", "arguments": {"title": "Call {{ trigger.manual.who }}"}}]
    listener = active(member, steps=steps)
    run = services.listener_trigger(actor=member, listener=listener, payload={"someone": "x"})
    assert runner.run(run.pk) == "failed"
    run.refresh_from_db()
    assert "Step task (createTask)" in run.error and "arguments.title" in run.error
    assert "has no field who" in run.error and "someone" in run.error
    assert "AttributeDoesNotExist" not in run.error and "KeyError" not in run.error
    # Retried, the run starts again at the step that failed, never past it.
    services.run_retry(actor=member, run=run)
    assert runner.run(run.pk) == "failed"
    run.refresh_from_db()
    assert run.next_step == 0 and [entry["step"] for entry in run.results] == ["task", "task"]
    assert not Task.objects.filter(title__startswith="Call ").exists()


def test_a_retried_run_takes_the_flow_as_it_is_now_from_the_step_that_failed(people):
    member = people["member"]
    task = {"id": "task", "tool": "createTask", "arguments": {"title": "Call {{ trigger.manual.who }}"}}
    listener = active(member, steps=[HELP_STEP, task])
    run = services.listener_trigger(actor=member, listener=listener, payload={"someone": "Ada"})
    assert runner.run(run.pk) == "failed"
    # The owner mends the mapping (a new version, activated again) and retries the failed run.
    fixed = {**task, "arguments": {"title": "Call {{ trigger.manual.someone }}"}}
    ok(member, "updateListenerFlow", {"listenerId": listener.pk, "steps": [HELP_STEP, fixed]})
    listener.refresh_from_db()
    services.listener_activate(actor=member, listener=listener, approve=[])
    run.refresh_from_db()
    services.run_retry(actor=member, run=run)
    run.refresh_from_db()
    assert (run.flow_version, run.next_step) == (2, 1)
    assert runner.run(run.pk) == "succeeded"
    run.refresh_from_db()
    assert [(entry["step"], entry["outcome"]) for entry in run.results] == [
        ("help", "ok"),
        ("task", "failed"),
        ("task", "ok"),
    ]
    assert Task.objects.filter(title="Call Ada").count() == 1
    # A failed step the owner removed: the run goes on after the last step it did.
    broken = services.listener_trigger(actor=member, listener=listener, payload={})
    assert runner.run(broken.pk) == "failed"
    ok(
        member,
        "updateListenerFlow",
        {"listenerId": listener.pk, "steps": [HELP_STEP, {**HELP_STEP, "id": "end"}]},
    )
    listener.refresh_from_db()
    services.listener_activate(actor=member, listener=listener, approve=[])
    broken.refresh_from_db()
    services.run_retry(actor=member, run=broken)
    assert runner.run(broken.pk) == "succeeded"
    broken.refresh_from_db()
    assert [entry["step"] for entry in broken.results] == ["help", "task", "end"]


@pytest.fixture
def on_new_contacts(people):  # type: ignore[no-untyped-def]
    steps = [{"id": "task", "tool": "createTask", "arguments": {"title": "Welcome {{ record.first_name }}"}}]
    return active(
        people["member"],
        name="Welcome new contacts",
        trigger_kind="record",
        trigger={"entityType": "contact", "events": ["created"]},
        steps=steps,
    )


def test_a_record_listener_run_by_hand_runs_on_the_record_it_is_given(people, on_new_contacts):
    member, owner = people["member"], people["owner"]
    contact = ContactFactory(actor=member, first_name="Ada")
    Run.objects.filter(listener=on_new_contacts).delete()  # the contact's own event
    text = refused(member, "triggerListener", {"listenerId": on_new_contacts.pk}, **ELICIT)
    assert "recordId" in text and "runs on a record" in text
    assert "recordId" in refused(
        member, "triggerListener", {"listenerId": on_new_contacts.pk, "recordId": 999_999}, **ELICIT
    )
    hidden = ContactFactory(actor=owner, first_name="Hidden", visibility="private")
    not_seen = refused(
        member, "triggerListener", {"listenerId": on_new_contacts.pk, "recordId": hidden.pk}, **ELICIT
    )
    assert "recordId" in not_seen and "Hidden" not in not_seen
    assert not Run.objects.filter(listener=on_new_contacts).exists()  # nothing asked, nothing run

    ran = ok(member, "triggerListener", {"listenerId": on_new_contacts.pk, "recordId": contact.pk}, **ELICIT)
    run = Run.objects.get(pk=ran["run"]["id"])
    assert run.payload["entityType"] == "contact" and run.payload["record"]["first_name"] == "Ada"
    assert runner.run(run.pk) == "succeeded"
    assert Task.objects.filter(title="Welcome Ada").count() == 1
    manual = ListenerFactory(actor=member)
    assert "only a record listener" in refused(
        member, "triggerListener", {"listenerId": manual.pk, "recordId": contact.pk}, **ELICIT
    )


def test_a_listener_without_steps_is_a_draft_that_cannot_be_activated(people):
    member = people["member"]
    made = ok(member, "createListener", {"name": "Empty", "trigger": {"kind": "manual"}})
    assert made["listener"]["status"] == "draft"
    text = refused(member, "activateListener", {"listenerId": made["listener"]["id"]}, **ELICIT)
    assert "add at least one step with updateListenerFlow before activating" in text
    assert Listener.objects.get(pk=made["listener"]["id"]).status == "draft"


def test_help_points_at_its_own_entity_types(people):
    helped = ok(people["member"], "getListenerHelp", {})
    assert "searchEntities" not in helped["text"] and "entityTypes" in helped["text"]
    assert "contact" in helped["entityTypes"] and "recordId" in helped["text"]


def test_a_run_is_retried_by_its_error_code_not_its_words(people, settings):
    settings.ATRIUM_LISTENERS_MAX_ATTEMPTS = 3
    member = people["member"]
    assert runner.retryable("INTERNAL") and runner.retryable(ServiceUnavailable.code)
    assert not runner.retryable(NotFound.code) and not runner.retryable("VALIDATION_ERROR")

    @tool("listenerWordy", permission=ListenersPerm.VIEW, title="Wordy", read_only=True, register_it=False)
    def wordy(ctx) -> Done:  # type: ignore[no-untyped-def]
        """Refuses with words a server failure would use."""
        raise WordyRefusal()

    @tool("listenerAway", permission=ListenersPerm.VIEW, title="Away", read_only=True, register_it=False)
    def away(ctx) -> Done:  # type: ignore[no-untyped-def]
        """A dependency out of reach."""
        raise ServiceUnavailable()

    with temporary_tools(wordy, away):
        words = active(member, steps=[{"id": "w", "tool": "listenerWordy", "arguments": {}}])
        run = services.listener_trigger(actor=member, listener=words, payload={})
        assert runner.run(run.pk) == "failed"  # a refusal is not retried, whatever it says
        down = active(member, steps=[{"id": "a", "tool": "listenerAway", "arguments": {}}])
        run = services.listener_trigger(actor=member, listener=down, payload={})
        assert runner.run(run.pk) == "queued"  # retried with backoff


@pytest.fixture
def own_redis(tmp_path, settings):  # type: ignore[no-untyped-def]
    """The cache on a Redis of the test's own (the faults tests' PrivateRedis), to restart."""
    redis = PrivateRedis(tmp_path / "redis").start()
    settings.CACHES = {"default": {**settings.CACHES["default"], "LOCATION": redis.url()}}
    try:
        yield redis
    finally:
        redis.stop()


def _answering() -> dict:  # type: ignore[type-arg]
    """The kept list once Redis answers again (its pooled connections to the old process fail once)."""
    for _attempt in range(50):
        try:
            return cache.get(events._cache_key())  # type: ignore[no-any-return]
        except redis_errors.ConnectionError:
            time.sleep(0.1)
    raise AssertionError("Redis did not answer again")


def test_a_listener_activated_while_redis_restarts_fires_once_it_is_back(people, own_redis):
    member = people["member"]
    events._unforgotten.clear()
    steps = [{"id": "task", "tool": "createTask", "arguments": {"title": "Hello {{ record.first_name }}"}}]
    listener = ListenerFactory(
        actor=member,
        trigger_kind="record",
        trigger={"entityType": "contact", "events": ["created"]},
        steps=steps,
    )
    assert "contact" not in events.watched()  # kept in the cache: a draft listens to nothing

    def activate() -> None:
        services.listener_activate(actor=member, listener=listener, approve=[])
        assert "contact" in events.watched()  # read from the database meanwhile

    restart_redis(own_redis, while_down=activate)
    # Redis is back with its data: the list kept before the activation (its deletion was lost).
    assert "contact" not in _answering()
    ContactFactory(actor=member, first_name="Grace")
    assert Run.objects.filter(listener=listener).count() == 1
    assert events._unforgotten == set() and "contact" in cache.get(events._cache_key())


def test_a_run_by_hand_runs_whatever_the_filter_says(people):
    member = people["member"]
    listener = active(member, filter="trigger.body.total > 100")
    ran = ok(member, "triggerListener", {"listenerId": listener.pk, "payload": {"note": "try"}}, **ELICIT)
    assert runner.run(ran["run"]["id"]) == "succeeded"

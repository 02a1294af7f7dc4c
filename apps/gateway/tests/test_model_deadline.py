"""The deadline of a model call, against real HTTP servers on loopback: a provider (or a proxy)
that sends its answer a byte at a time, each byte well within the per-read time-out, is cut off
at the call's deadline, in both protocols, whether it trickles from the status line or from the
body; the conversation then ends as a time-out ends it (tried again, then MODEL_UNAVAILABLE,
nothing charged, the reservation released); and a model call, its retries included, always ends
inside the lease its worker holds meanwhile."""

import time

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from prometheus_client import REGISTRY

from apps.apikeys.models import ApiKey, Reservation
from apps.gateway import services
from apps.gateway.agent import runner
from apps.gateway.agent.backends import (
    ChatCompletionsBackend,
    MessagesBackend,
    ModelError,
    Price,
    configured_backend,
)
from apps.gateway.agent.model import ModelAgent, model_call_allowance
from apps.gateway.models import Conversation

from .servers import ModelServer, Reply, anthropic_text, openai_text

pytestmark = pytest.mark.django_db

MODEL = "deadline-model"
PRICES = {MODEL: {"input": "2", "output": "10"}}
# A byte every 0.1 s: 25 s or more for a whole answer; a per-read time-out of 5 s never fires.
SLOW = 0.1
# How late after its deadline a call may end on a busy machine (a correct one ends within
# milliseconds; without the deadline the trickled answers below take 25 s or more, and a call held
# to its lease would run to its own 30 s deadline). Generous: two cores shared with a parallel
# test run can hold a thread back for a second or more.
SLACK = 4.0

BACKENDS = {"openai": ChatCompletionsBackend, "anthropic": MessagesBackend}
ANSWERS = {"openai": openai_text, "anthropic": anthropic_text}


def backend_for(server: ModelServer, *, timeout: float, deadline: float):  # type: ignore[no-untyped-def]
    return BACKENDS[server.protocol](
        url=server.url,
        model=MODEL,
        api_key=server.api_key,
        timeout=timeout,
        deadline=deadline,
        price=Price.parse(PRICES[MODEL]),
        name=server.protocol,
    )


def body_for(backend) -> bytes:  # type: ignore[no-untyped-def]
    return backend.request(
        system="You answer.",
        messages=[{"role": "user", "content": "Say something"}],
        tools=[],
        max_tokens=100,
        final=False,
    )


def answered_by(server: ModelServer, abandoned: int, timeout: float = 5.0) -> list[tuple[int, float]]:
    """The server's record of answers the client stopped reading, once there are `abandoned`."""
    ends = time.monotonic() + timeout
    while len(server.abandoned) < abandoned and time.monotonic() < ends:
        time.sleep(0.05)
    return list(server.abandoned)


@pytest.mark.parametrize("trickle_from", ["status", "body"])
@pytest.mark.parametrize("protocol", ["openai", "anthropic"])
def test_an_answer_sent_a_byte_at_a_time_is_cut_off_at_the_deadline(protocol, trickle_from):
    answer = ANSWERS[protocol]("A reply that would take half a minute to arrive at this pace.")
    with ModelServer(
        protocol, lambda body, index: Reply(200, answer, trickle=SLOW, trickle_from=trickle_from)
    ) as server:
        backend = backend_for(server, timeout=5.0, deadline=1.0)
        started = time.monotonic()

        with pytest.raises(ModelError) as failure:
            backend.complete(body_for(backend))

        elapsed = time.monotonic() - started
        ((sent, trickled),) = answered_by(server, 1)
    assert 1.0 <= elapsed < 1.0 + SLACK, elapsed
    error = failure.value
    assert (error.timed_out, error.transient) == (True, True)
    assert str(error) == "the model API did not finish answering within the call's deadline (1 s)"
    # The server was still sending when the client went: it had sent a few bytes of the answer.
    assert 0 < sent < 20 / SLOW
    assert trickled < 1.0 + SLACK


@pytest.mark.parametrize("protocol", ["openai", "anthropic"])
def test_a_trickled_answer_that_ends_before_the_deadline_is_read_whole_and_the_connection_kept(protocol):
    answer = ANSWERS[protocol]("Slow but in time.")
    with ModelServer(
        protocol, lambda body, index: Reply(200, answer, trickle=0.002, trickle_from="status")
    ) as server:
        backend = backend_for(server, timeout=5.0, deadline=10.0)

        first = backend.complete(body_for(backend))
        second = backend.complete(body_for(backend), within=10.0)

    assert first.text == second.text == "Slow but in time."
    assert first.usage.input_tokens == 100 and server.abandoned == []


def test_a_call_is_held_to_less_than_its_deadline_when_its_lease_has_less_left():
    answer = openai_text("Never in time.")
    with ModelServer("openai", lambda body, index: Reply(200, answer, trickle=SLOW)) as server:
        backend = backend_for(server, timeout=5.0, deadline=30.0)
        started = time.monotonic()

        with pytest.raises(ModelError, match=r"deadline \(0.5 s\)"):
            backend.complete(body_for(backend), within=0.5)

    assert time.monotonic() - started < 0.5 + SLACK


# --- the conversation ---------------------------------------------------------------------------


@pytest.fixture
def model(model_servers):  # type: ignore[no-untyped-def]
    """A model server answering with `responder`, the settings pointed at it: a per-read time-out
    of 0.5 s, a deadline of 1 s, one retry."""
    return lambda protocol, responder: model_servers(
        protocol,
        responder,
        name=MODEL,
        prices=PRICES,
        GATEWAY_MODEL_TIMEOUT_SECONDS=0.5,
        GATEWAY_MODEL_DEADLINE_SECONDS=1.0,
        GATEWAY_MODEL_RETRIES=1,
        GATEWAY_LEASE_MARGIN_SECONDS=2,
    )


def calls(outcome: str, backend: str = "anthropic") -> float:
    return (
        REGISTRY.get_sample_value("atrium_model_calls_total", {"backend": backend, "outcome": outcome}) or 0
    )


def silent(body, index):  # type: ignore[no-untyped-def]
    """Says nothing for longer than the per-read time-out (the existing time-out)."""
    time.sleep(1.5)
    return anthropic_text("Too late.")


def trickling(body, index):  # type: ignore[no-untyped-def]
    """Answers at once, a byte every 0.1 s: each read is well within the per-read time-out."""
    return Reply(200, anthropic_text("Far too slow, however steady."), trickle=SLOW, trickle_from="status")


@pytest.mark.parametrize(
    ("responder", "limit"), [(silent, 0.5), (trickling, 1.0)], ids=["silent", "trickling"]
)
def test_a_conversation_whose_model_runs_past_its_deadline_ends_as_a_time_out_ends_it(
    model, make_credentials, conversation_of, monkeypatch, responder, limit
):
    mine = make_credentials(budget_usd_cents=100, budget_period="total")
    server = model("anthropic", responder)
    extended = []
    real_extend = services.lease_extend

    def lease_extend(**kwargs):  # type: ignore[no-untyped-def]
        extended.append((time.monotonic(), kwargs["seconds"]))
        return real_extend(**kwargs)

    monkeypatch.setattr(services, "lease_extend", lease_extend)
    call_ended = []
    real_call = ModelAgent._call_model

    def call_model(self, body, ends):  # type: ignore[no-untyped-def]
        try:
            return real_call(self, body, ends)
        finally:
            call_ended.append((ends, time.monotonic()))

    monkeypatch.setattr(ModelAgent, "_call_model", call_model)
    timeouts_before = calls("timeout")
    conversation = conversation_of(mine, "Say something")
    started = time.monotonic()

    runner.run_conversation(conversation.pk)

    elapsed = time.monotonic() - started
    ended = Conversation.objects.get(pk=conversation.pk)
    # Tried twice (one retry), each attempt cut at its limit: not later.
    assert len(server.requests) == 2
    assert calls("timeout") - timeouts_before == 2
    assert 2 * limit <= elapsed < 2 * limit + 2 * SLACK, elapsed
    # The time-out's ending: failed, the model unavailable, nothing charged, the reservation released.
    assert (ended.status, ended.error_code) == ("failed", "MODEL_UNAVAILABLE")
    assert ended.error_message.startswith("The agent's model is not available right now")
    assert (ended.cost_micro_usd, ended.model_calls) == (0, 0)
    key = ApiKey.objects.get(pk=mine.key.pk)
    assert (key.spent_micro_usd, key.reserved_micro_usd) == (0, 0)
    ((reservation, state, cost),) = Reservation.objects.filter(key=key).values_list(
        "pk", "state", "cost_micro_usd"
    )
    assert (state, cost) == ("released", None)
    # (The conversation keeps pointing at the reservation it released, as after any failed call.)
    assert ended.open_reservation_id in (None, reservation)
    # The lease taken for the call outlasted it by the margin, in which the worker ended the run.
    ((extended_at, seconds),) = extended
    assert seconds == model_call_allowance(1.0) + 2
    ((ends, ended_at),) = call_ended
    assert ends <= extended_at + seconds - 2
    assert ended_at < ends + 0.2  # a moment to notice the time-out and give up
    assert started + elapsed - extended_at < seconds


def test_a_retry_after_that_the_lease_cannot_fit_is_not_waited_for(model, make_credentials, conversation_of):
    mine = make_credentials()
    server = model(
        "openai", lambda body, index: Reply(429, {"error": {"message": "slow down"}}, {"Retry-After": "5"})
    )
    conversation = conversation_of(mine, "Say something")
    started = time.monotonic()

    runner.run_conversation(conversation.pk)

    ended = Conversation.objects.get(pk=conversation.pk)
    # One attempt of 1 s and one retry: 2 s and a back-off in all, no room for a wait of 5 s.
    assert model_call_allowance(1.0) < 5
    assert len(server.requests) == 1 and time.monotonic() - started < 5
    assert (ended.status, ended.error_code) == ("failed", "MODEL_UNAVAILABLE")
    assert ApiKey.objects.get(pk=mine.key.pk).reserved_micro_usd == 0


def test_a_retry_after_that_fits_is_waited_for(model, make_credentials, conversation_of):
    mine = make_credentials()
    answers = [Reply(429, {"error": {"message": "slow down"}}, {"Retry-After": "0.3"}), openai_text("Done.")]
    arrived = []

    def respond(body, index):  # type: ignore[no-untyped-def]
        arrived.append(time.monotonic())
        return answers[index]

    model("openai", respond)
    conversation = conversation_of(mine, "Say something")

    runner.run_conversation(conversation.pk)

    assert Conversation.objects.get(pk=conversation.pk).status == "resolved"
    assert arrived[1] - arrived[0] >= 0.3


def test_every_attempt_ends_inside_the_allowance_the_lease_was_taken_for(
    model, make_credentials, settings, monkeypatch
):
    # A deadline of 1 s, two retries: 3 s of attempts and the back-offs. Each attempt is cut at
    # its deadline, and the last one at what is left of the allowance if that is less.
    server = model("openai", lambda body, index: Reply(200, openai_text("late"), trickle=SLOW))
    settings.GATEWAY_MODEL_RETRIES = 2
    agent = ModelAgent(configured_backend())
    body = body_for(agent.backend)
    complete = agent.backend.complete
    given: list[float] = []  # each attempt's time, as the backend was given it

    def attempt(body: bytes, within: float) -> object:
        given.append(within)
        return complete(body, within=within)

    monkeypatch.setattr(agent.backend, "complete", attempt)
    started = time.monotonic()

    with pytest.raises(ModelError, match="deadline"):
        agent._call_model(body, ends=started + 2.5)

    # The server may not have read the last, shortest attempt before it was cut (a loaded machine).
    assert len(given) == 3 and len(server.requests) >= 2
    assert given[:2] == [1, 1] and 0 < given[2] < 1
    # Tighter than SLACK: three whole attempts would end at 3 s or later.
    assert 2.5 <= time.monotonic() - started < 3.0


# --- settings -----------------------------------------------------------------------------------


def test_the_deadline_defaults_to_the_time_out_and_the_lease_is_derived_from_it(settings):
    settings.GATEWAY_MODEL_BACKEND = "openai"
    settings.GATEWAY_MODEL_URL = "http://127.0.0.1:9/v1"
    settings.GATEWAY_MODEL_NAME = MODEL
    settings.GATEWAY_MODEL_PRICES = PRICES
    settings.GATEWAY_MODEL_TIMEOUT_SECONDS = 60
    settings.GATEWAY_MODEL_RETRIES = 2
    settings.GATEWAY_MODEL_RETRY_BASE_SECONDS = 1
    settings.GATEWAY_MODEL_DEADLINE_SECONDS = 0

    assert configured_backend().deadline == 60
    # Three attempts of 60 s, back-offs of at most 1.2 s and 3.6 s.
    assert model_call_allowance() == pytest.approx(184.8)

    settings.GATEWAY_MODEL_DEADLINE_SECONDS = 20
    assert configured_backend().deadline == 20
    assert configured_backend().timeout == 60
    assert model_call_allowance() == pytest.approx(64.8)


@pytest.mark.parametrize(
    ("name", "value", "problem"),
    [
        (
            "GATEWAY_MODEL_DEADLINE_SECONDS",
            -5,
            "GATEWAY_MODEL_DEADLINE_SECONDS must be a number of seconds above 0",
        ),
        ("GATEWAY_MODEL_DEADLINE_SECONDS", float("inf"), "GATEWAY_MODEL_DEADLINE_SECONDS must be"),
        ("GATEWAY_MODEL_TIMEOUT_SECONDS", 0, "GATEWAY_MODEL_TIMEOUT_SECONDS must be"),
        ("GATEWAY_LEASE_MARGIN_SECONDS", 0, "GATEWAY_LEASE_MARGIN_SECONDS must be at least 1"),
        ("GATEWAY_MODEL_RETRIES", -1, "GATEWAY_MODEL_RETRIES must be 0 or more"),
        ("GATEWAY_MODEL_DEADLINE_SECONDS", 40_000, "must be shorter than a conversation's life"),
    ],
)
def test_time_limits_that_contradict_the_lease_are_refused_at_start_up(settings, name, value, problem):
    settings.GATEWAY_MODEL_BACKEND = "openai"
    settings.GATEWAY_MODEL_URL = "http://127.0.0.1:9/v1"
    settings.GATEWAY_MODEL_NAME = MODEL
    settings.GATEWAY_MODEL_PRICES = PRICES
    setattr(settings, name, value)

    with pytest.raises(SystemCheckError, match=problem.replace("(", r"\(")):
        call_command("check")
    with pytest.raises(ValueError, match=problem.replace("(", r"\(")):
        configured_backend()

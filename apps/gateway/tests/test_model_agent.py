"""The service's agent with a model backend, against real HTTP servers on loopback speaking each
protocol (OpenAI-compatible chat completions; Anthropic Messages), scripted to request tool calls
and then reply: the tools really run in the workspace, the reply is in the final turn, and the
usage the server reports is settled as the cost, against the key's budget."""

import json

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError

from apps.apikeys.models import ApiKey, Reservation, UsageDay
from apps.catalogue.models import ToolCall
from apps.contacts.models import Contact
from apps.contacts.tests.factories import ContactFactory
from apps.gateway import services
from apps.gateway.agent import runner
from apps.gateway.agent.context import refusal_text
from apps.gateway.agent.model import ModelAgent
from apps.gateway.models import AgentStep, Conversation

from .conftest import reply_of
from .servers import (
    Reply,
    anthropic_text,
    anthropic_tool_use,
    offered_tools,
    openai_text,
    openai_tool_calls,
    tool_results,
)

pytestmark = pytest.mark.django_db

MODEL = "test-model"
# µUSD per token (= USD per million tokens): 2 in, 10 out.
PRICES = {MODEL: {"input": "2", "output": "10", "cache_read": "0.5", "cache_write": "2.5"}}


@pytest.fixture
def model(model_servers):  # type: ignore[no-untyped-def]
    """Starts a scripted model server of a protocol and points the settings at it."""
    return lambda protocol, responder: model_servers(
        protocol, responder, name=MODEL, prices=PRICES, GATEWAY_MODEL_TIMEOUT_SECONDS=10
    )


def run(conversation) -> Conversation:
    runner.run_conversation(conversation.pk)
    return Conversation.objects.get(pk=conversation.pk)


def script(*answers):
    """A responder giving `answers` in order (a callable answer gets the request body)."""

    def respond(body, index):
        answer = answers[min(index, len(answers) - 1)]
        return answer(body) if callable(answer) else answer

    return respond


def test_chat_completions_tool_call_runs_in_the_workspace_and_the_reply_is_settled_as_cost(
    model, make_credentials, conversation_of
):
    mine = make_credentials(budget_usd_cents=100, budget_period="monthly")
    ada = ContactFactory(
        actor=mine.user, first_name="Adelheid", last_name="Quist", email="adelheid@example.org"
    )

    def final(body):
        results = tool_results(body)
        assert "adelheid@example.org" in results[0]["content"]
        return openai_text(f"Found Adelheid Quist (id {ada.pk}).", usage=(300, 15))

    server = model(
        "openai", script(openai_tool_calls(("searchContacts", {"query": "Adelheid"}), usage=(200, 30)), final)
    )

    conversation = run(conversation_of(mine, "Find Adelheid's e-mail address"))

    assert server.problems == []
    assert conversation.status == "resolved", conversation.error_message
    assert reply_of(conversation) == f"Found Adelheid Quist (id {ada.pk})."
    # (200 x 2 + 30 x 10) + (300 x 2 + 15 x 10) µUSD
    assert conversation.cost_micro_usd == 700 + 750
    assert (conversation.model_calls, conversation.tool_calls) == (2, 1)
    assert conversation.agent == f"openai:{MODEL}"
    key = ApiKey.objects.get(pk=mine.key.pk)
    assert key.spent_micro_usd == 1450 and key.reserved_micro_usd == 0
    # The key's day counts the tokens the model reported: 200 + 300 read, 30 + 15 written.
    assert UsageDay.objects.filter(key=key).values_list("input_tokens", "output_tokens").get() == (500, 45)
    assert sorted(Reservation.objects.filter(key=key).values_list("state", "cost_micro_usd")) == [
        ("settled", 700),
        ("settled", 750),
    ]
    first = server.requests[0]
    assert first["model"] == MODEL and first["max_tokens"] == 1000 and first["tool_choice"] == "auto"
    assert first["messages"][0]["role"] == "system" and "Acme" in first["messages"][0]["content"]
    assert first["messages"][1] == {"role": "user", "content": "Find Adelheid's e-mail address"}
    offered = offered_tools(first)
    assert offered[:2] == ["searchTools", "describeTool"] and "searchContacts" in offered
    assert len(offered) <= 14
    call = ToolCall.objects.filter(user=mine.user, tool="searchContacts").latest("at")
    assert call.outcome == "ok" and call.credential == f"pat:{mine.token_id}"


def test_messages_api_tool_use_creates_a_contact_and_cache_tokens_are_priced(
    model, make_credentials, conversation_of
):
    mine = make_credentials()
    contact = {"firstName": "Ada", "lastName": "Lovelace", "email": "ada@messages.example"}

    def final(body):
        results = tool_results(body)
        assert results[0]["is_error"] is False and "ada@messages.example" in results[0]["content"]
        return anthropic_text(
            "I created Ada Lovelace.",
            usage=(400, 10),
            cache_read_input_tokens=1000,
            cache_creation_input_tokens=100,
        )

    server = model(
        "anthropic",
        script(anthropic_tool_use(("createContact", {"contact": contact}), text="Creating."), final),
    )

    conversation = run(conversation_of(mine, "Add Ada Lovelace (ada@messages.example) to our contacts"))

    assert server.problems == []
    assert conversation.status == "resolved", conversation.error_message
    assert reply_of(conversation) == "I created Ada Lovelace."
    assert Contact.objects.filter(email="ada@messages.example", owner=mine.user).count() == 1
    # (100 x 2 + 20 x 10) + (400 x 2 + 10 x 10 + 1000 x 0.5 + 100 x 2.5)
    assert conversation.cost_micro_usd == 400 + 1650
    second = server.requests[1]
    assert [message["role"] for message in second["messages"]] == ["user", "assistant", "user"]
    assert second["messages"][1]["content"][0] == {"type": "text", "text": "Creating."}
    assert second["system"].startswith("You are the assistant of")
    assert second["tool_choice"] == {"type": "auto"}


def test_tools_found_through_search_tools_are_offered_next(
    model, make_credentials, conversation_of, settings
):
    settings.GATEWAY_AGENT_OFFERED_TOOLS = 1
    mine = make_credentials()
    contact = ContactFactory(actor=mine.user, first_name="Rosalind", last_name="Franklin")

    server = model(
        "openai",
        script(
            openai_tool_calls(("searchTools", {"query": "ownership history"})),
            openai_tool_calls(("getContactOwnershipHistory", {"contactId": contact.pk})),
            openai_text("Rosalind has had one owner."),
        ),
    )

    conversation = run(conversation_of(mine, "Who has owned the record of Rosalind?"))

    assert conversation.status == "resolved"
    assert "getContactOwnershipHistory" not in offered_tools(server.requests[0])
    assert "getContactOwnershipHistory" in offered_tools(server.requests[1])
    assert not tool_results(server.requests[2])[-1]["content"].startswith("There is no tool")


def test_the_workspace_wide_search_is_offered_when_the_words_ask_for_it_never_the_mcp_door_s_tools(
    model, make_credentials, conversation_of
):
    mine = make_credentials()
    ContactFactory(actor=mine.user, first_name="Acme", last_name="Holdings")
    server = model(
        "openai",
        script(
            openai_tool_calls(("searchWorkspace", {"query": "Acme"})),
            openai_text("Acme Holdings is a contact."),
        ),
    )

    conversation = run(conversation_of(mine, "Search the whole workspace for anything about Acme"))

    offered = offered_tools(server.requests[0])
    assert conversation.status == "resolved"
    assert "searchWorkspace" in offered
    assert "Acme Holdings" in tool_results(server.requests[1])[-1]["content"]
    assert not {"callTool", "getToolTaskStatus"} & set(offered)


@pytest.mark.parametrize("through_call_tool", [False, True], ids=["directly", "through callTool"])
def test_a_destructive_tool_is_refused_even_with_a_token_the_model_makes_up(
    model, make_credentials, conversation_of, through_call_tool
):
    admin = make_credentials("admin")
    keep = ContactFactory(actor=admin.user, first_name="Twin", last_name="One")
    drop = ContactFactory(actor=admin.user, first_name="Twin", last_name="Two")
    arguments = {"primaryId": keep.pk, "duplicateIds": [drop.pk], "confirmationToken": "confirm_madeup"}
    # Through callTool the token goes inside its `arguments`, and the refusal is the same.
    called = (
        ("callTool", {"name": "mergeContacts", "arguments": arguments})
        if through_call_tool
        else (
            "mergeContacts",
            arguments,
        )
    )

    def final(body):
        result = tool_results(body)[0]
        assert result["content"] == refusal_text("mergeContacts")
        assert result["content"].startswith("Refused: mergeContacts is marked DESTRUCTIVE")
        assert "confirm_" not in result["content"]
        return openai_text("Merging needs your confirmation; nothing was merged.")

    server = model("openai", script(openai_tool_calls(called), final))

    conversation = run(conversation_of(admin, "Merge the two Twin contacts"))

    assert conversation.status == "resolved" and server.problems == []
    drop.refresh_from_db()
    assert drop.merged_into_id is None
    described = [tool for tool in server.requests[0]["tools"] if tool["function"]["name"] == "mergeContacts"]
    if described:
        assert "confirmationToken" not in described[0]["function"]["parameters"]["properties"]


def test_a_budget_that_runs_out_mid_conversation_fails_it_saying_so(
    model, make_credentials, conversation_of, settings
):
    # A budget of one full call: 1,000 output tokens x 10 µUSD = 1 cent (input free here).
    mine = make_credentials(budget_usd_cents=1, budget_period="total")

    def tool_call(body):
        return openai_tool_calls(("listContacts", {}), usage=(50, body["max_tokens"]))

    server = model("openai", script(tool_call, tool_call, tool_call))
    settings.GATEWAY_MODEL_PRICES = {MODEL: {"input": "0", "output": "10"}}

    conversation = run(conversation_of(mine, "List every contact, then again"))

    assert conversation.status == "failed"
    assert conversation.error_code == "BUDGET_EXCEEDED"
    assert "budget is spent" in conversation.error_message
    assert "budget is spent" in reply_of(conversation)
    key = ApiKey.objects.get(pk=mine.key.pk)
    assert key.spent_micro_usd == 10_000 and key.reserved_micro_usd == 0
    assert len(server.requests) == 1


def test_what_is_left_of_the_budget_is_used_with_a_smaller_max_tokens(
    model, make_credentials, conversation_of, settings
):
    mine = make_credentials(budget_usd_cents=2, budget_period="total")

    def tool_call(body):
        return openai_tool_calls(("listContacts", {}), usage=(50, body["max_tokens"]))

    server = model(
        "openai",
        script(tool_call, lambda body: openai_tool_calls(("listContacts", {}), usage=(50, 500)), tool_call),
    )
    settings.GATEWAY_MODEL_PRICES = {MODEL: {"input": "0", "output": "10"}}

    conversation = run(conversation_of(mine, "List contacts again and again"))

    assert [request["max_tokens"] for request in server.requests] == [1000, 1000, 500]
    key = ApiKey.objects.get(pk=mine.key.pk)
    assert key.spent_micro_usd == 20_000  # 1,000 + 500 + 500 tokens x 10 µUSD: exactly the budget
    assert conversation.status == "failed" and conversation.error_code == "BUDGET_EXCEEDED"


def test_transient_model_errors_are_retried(model, make_credentials, conversation_of):
    mine = make_credentials()
    answers = [
        Reply(503, {"error": "busy"}),
        Reply(429, {"error": "slow down"}, {"Retry-After": "0"}),
        openai_text("Done."),
    ]
    server = model("openai", lambda body, index: answers[index])

    conversation = run(conversation_of(mine, "Say done"))

    assert conversation.status == "resolved" and reply_of(conversation) == "Done."
    assert len(server.requests) == 3
    assert list(Reservation.objects.filter(key=mine.key).values_list("state", flat=True)) == ["settled"]


def test_a_model_that_keeps_failing_fails_the_conversation_and_costs_nothing(
    model, make_credentials, conversation_of
):
    mine = make_credentials(budget_usd_cents=100)
    server = model(
        "anthropic", lambda body, index: Reply(529, {"type": "error", "error": {"type": "overloaded_error"}})
    )

    conversation = run(conversation_of(mine, "Anything"))

    assert conversation.status == "failed" and conversation.error_code == "MODEL_UNAVAILABLE"
    assert "not available" in conversation.error_message
    assert len(server.requests) == 3
    key = ApiKey.objects.get(pk=mine.key.pk)
    assert key.spent_micro_usd == 0 and key.reserved_micro_usd == 0


def test_a_refusing_model_api_is_not_retried(model, make_credentials, conversation_of, settings):
    mine = make_credentials()
    server = model("openai", script(openai_text("never")))
    settings.GATEWAY_MODEL_API_KEY = "a-wrong-key"

    conversation = run(conversation_of(mine, "Anything"))

    assert conversation.status == "failed" and conversation.error_code == "MODEL_UNAVAILABLE"
    assert server.requests == []


def test_arguments_that_are_not_json_and_unknown_tools_are_told_to_the_model(
    model, make_credentials, conversation_of
):
    mine = make_credentials()

    def final(body):
        results = tool_results(body)
        assert "not a JSON object" in results[0]["content"]
        assert results[1]["content"].startswith("There is no tool named launchRocket")
        return openai_text("Sorry.")

    server = model(
        "openai", script(openai_tool_calls(("listContacts", "{not json"), ("launchRocket", {})), final)
    )

    conversation = run(conversation_of(mine, "Do something odd"))

    assert conversation.status == "resolved" and server.problems == []


def test_arguments_too_deep_or_holding_nul_are_refused_and_the_model_told_why(
    model, make_credentials, conversation_of
):
    mine = make_credentials()
    deep = '{"query": ' + '{"a": ' * 70 + "1" + "}" * 71
    with_nul = '{"firstName": "Ada\\u0000", "lastName": "Nul"}'

    def final(body):
        results = tool_results(body)
        assert "refused" in results[0]["content"] and "nested deeper than 64" in results[0]["content"]
        assert "refused" in results[1]["content"] and "NUL" in results[1]["content"]
        return openai_text("Sorry.")

    server = model(
        "openai", script(openai_tool_calls(("listContacts", deep), ("createContact", with_nul)), final)
    )

    conversation = run(conversation_of(mine, "Do something odd"))

    assert conversation.status == "resolved" and server.problems == []
    assert not Contact.objects.filter(last_name="Nul").exists()


@pytest.mark.parametrize(
    ("protocol", "raw"),
    [
        # Thousands of levels: the standard library's parser ran out of recursion on these.
        ("openai", b'{"choices": ' + b"[" * 5000 + b"]" * 5000 + b"}"),
        # A NUL that PostgreSQL would refuse when the reply is stored.
        ("anthropic", b'{"content": [{"type": "text", "text": "hi\\u0000"}], "stop_reason": "end_turn"}'),
    ],
)
def test_a_model_answer_the_doors_would_refuse_is_a_model_error_not_a_crash(
    model, make_credentials, conversation_of, protocol, raw
):
    mine = make_credentials(budget_usd_cents=100)
    server = model(protocol, lambda body, index: Reply(200, raw=raw))

    conversation = run(conversation_of(mine, "Anything"))

    assert conversation.status == "failed" and conversation.error_code == "MODEL_UNAVAILABLE"
    assert len(server.requests) == 3  # tried again, as for any answer that cannot be used
    key = ApiKey.objects.get(pk=mine.key.pk)
    assert key.spent_micro_usd == 0 and key.reserved_micro_usd == 0


def test_the_last_allowed_call_asks_for_an_answer_without_tools(
    model, make_credentials, conversation_of, settings
):
    settings.GATEWAY_AGENT_MAX_MODEL_CALLS = 2
    mine = make_credentials()
    server = model("openai", script(openai_tool_calls(("listContacts", {}))))

    conversation = run(conversation_of(mine, "Loop forever"))

    assert [request["tool_choice"] for request in server.requests] == ["auto", "none"]
    assert conversation.status == "failed" and conversation.error_code == "TOO_MANY_STEPS"


def test_a_model_without_a_price_is_refused_at_start_up_and_never_called(
    model, make_credentials, conversation_of, settings
):
    mine = make_credentials()
    server = model("openai", script(openai_text("free?")))
    settings.GATEWAY_MODEL_PRICES = {}

    with pytest.raises(SystemCheckError, match="no price"):
        call_command("check")
    conversation = run(conversation_of(mine, "Anything"))

    assert conversation.status == "failed" and conversation.error_code == "AGENT_ERROR"
    assert server.requests == []


def test_a_run_resumed_after_its_worker_died_does_not_run_a_tool_again(
    model, make_credentials, conversation_of, monkeypatch
):
    mine = make_credentials(budget_usd_cents=100)
    contact = {"firstName": "Once", "lastName": "Only", "email": "once@resume.example"}
    server = model(
        "openai",
        script(openai_tool_calls(("createContact", {"contact": contact})), openai_text("Created once.")),
    )
    real_call = ModelAgent._call_model
    calls = []

    def dies_on_the_second_call(self, body, *args):
        calls.append(body)
        if len(calls) == 2:
            raise SystemExit("the worker process is gone")
        return real_call(self, body, *args)

    monkeypatch.setattr(ModelAgent, "_call_model", dies_on_the_second_call)
    conversation = conversation_of(mine, "Add Once Only")

    with pytest.raises(SystemExit):
        runner.run_conversation(conversation.pk)

    stuck = Conversation.objects.get(pk=conversation.pk)
    assert stuck.status == "processing" and stuck.open_reservation_id is not None
    assert ApiKey.objects.get(pk=mine.key.pk).reserved_micro_usd > 0
    Conversation.objects.filter(pk=conversation.pk).update(lease_expires_at=stuck.created_at)
    assert services.conversations_recover() == 1
    recovered = Conversation.objects.get(pk=conversation.pk)
    assert recovered.status == "open"
    assert ApiKey.objects.get(pk=mine.key.pk).reserved_micro_usd == 0

    monkeypatch.setattr(ModelAgent, "_call_model", real_call)
    finished = run(conversation)

    assert finished.status == "resolved" and reply_of(finished) == "Created once."
    assert finished.attempts == 2
    assert Contact.objects.filter(email="once@resume.example").count() == 1
    assert [
        step["role"]
        for step in AgentStep.objects.filter(conversation=conversation).values_list("message", flat=True)
    ] == [
        "assistant",
        "tool",
        "assistant",
    ]
    assert json.loads(json.dumps(tool_results(server.requests[-1])))[0]["id"] == "call_0_createContact"


def settle_interrupted(monkeypatch, error: BaseException, *, charged: bool) -> list[dict]:
    """apikeys' budget_settle raising `error` the first time, before the key is charged or once
    it is (`charged`); later calls settle. Each call's arguments, in order."""
    from apps.apikeys import services as apikeys_services

    real_settle = apikeys_services.budget_settle
    calls: list[dict] = []

    def settle(**kwargs):
        calls.append(kwargs)
        if len(calls) > 1:
            return real_settle(**kwargs)
        if charged:
            real_settle(**kwargs)
        raise error

    monkeypatch.setattr(apikeys_services, "budget_settle", settle)
    return calls


def test_a_run_handed_back_after_an_error_frees_the_reservation_of_the_call_it_could_not_settle(
    model, make_credentials, conversation_of, monkeypatch
):
    mine = make_credentials(budget_usd_cents=100)
    server = model("openai", script(openai_text("Done.", usage=(100, 20))))
    calls = settle_interrupted(
        monkeypatch, RuntimeError("an error between the answer and its bill"), charged=False
    )
    conversation = conversation_of(mine, "Say done")

    assert runner.run_conversation(conversation.pk) is None

    handed_back = Conversation.objects.get(pk=conversation.pk)
    assert (handed_back.status, handed_back.lease_token, handed_back.open_reservation_id) == (
        "open",
        "",
        None,
    )
    # Freed at once, not left to its expiry: the next run has the whole budget.
    key = ApiKey.objects.get(pk=mine.key.pk)
    assert (key.reserved_micro_usd, key.spent_micro_usd) == (0, 0)
    assert Reservation.objects.get(pk=calls[0]["reservation"].pk).state == "released"

    finished = run(conversation)

    assert finished.status == "resolved" and finished.attempts == 2 and len(server.requests) == 2
    key = ApiKey.objects.get(pk=mine.key.pk)
    assert key.reserved_micro_usd == 0 and key.spent_micro_usd == finished.cost_micro_usd == 400


def test_a_worker_that_dies_as_it_bills_a_call_leaves_the_key_and_the_conversation_agreeing(
    model, make_credentials, conversation_of, monkeypatch
):
    # The key's charge and the conversation's cost are one write: a worker killed between them
    # would leave the key charged for a call its conversation does not show, and the resumed run
    # asks the model again (the reply was not recorded), so the key would pay it twice.
    mine = make_credentials(budget_usd_cents=100)
    server = model("openai", script(openai_text("Billed once.", usage=(100, 20))))
    calls = settle_interrupted(monkeypatch, SystemExit("the worker process is gone"), charged=True)
    conversation = conversation_of(mine, "Say it once")
    with pytest.raises(SystemExit):
        runner.run_conversation(conversation.pk)

    assert len(calls) == 1 and len(server.requests) == 1
    assert ApiKey.objects.get(pk=mine.key.pk).spent_micro_usd == 0
    stuck = Conversation.objects.get(pk=conversation.pk)
    Conversation.objects.filter(pk=conversation.pk).update(lease_expires_at=stuck.created_at)
    assert services.conversations_recover() == 1

    finished = run(conversation)

    assert finished.status == "resolved" and reply_of(finished) == "Billed once."
    assert len(server.requests) == 2 and finished.model_calls == 1
    key = ApiKey.objects.get(pk=mine.key.pk)
    assert (key.spent_micro_usd, key.reserved_micro_usd) == (finished.cost_micro_usd, 0)
    assert finished.cost_micro_usd == 400


def test_the_model_calls_a_tool_makes_are_the_conversations_cost_even_when_the_tool_fails(
    model, make_credentials, conversation_of
):
    from apps.blog.tests.factories import PostFactory

    mine = make_credentials(budget_usd_cents=100)
    post = PostFactory(actor=mine.user, title="Draft", body="<p>Draft</p>")
    polished = json.dumps({"title": "Draft", "body": "<p>Better</p>"})
    server = model(
        "openai",
        script(
            openai_tool_calls(("polishBlogPost", {"postId": post.pk}), usage=(100, 10)),
            openai_text("Sure! Here is your text.", usage=(200, 20)),  # the tool's call: refused
            openai_tool_calls(("polishBlogPost", {"postId": post.pk}), usage=(300, 10)),
            openai_text(polished, usage=(200, 30)),  # the tool's call again: used
            openai_text("Polished.", usage=(400, 5)),
        ),
    )

    finished = run(conversation_of(mine, "Polish my draft"))

    assert finished.status == "resolved" and len(server.requests) == 5
    post.refresh_from_db()
    assert post.body == "<p>Better</p>"
    # µUSD: 2 a token read, 10 a token written; three calls of the agent and two of the tool.
    calls = [(100, 10), (200, 20), (300, 10), (200, 30), (400, 5)]
    assert finished.cost_micro_usd == sum(2 * read + 10 * written for read, written in calls) == 3_150
    assert finished.model_calls == 5
    key = ApiKey.objects.get(pk=mine.key.pk)
    assert (key.spent_micro_usd, key.reserved_micro_usd) == (finished.cost_micro_usd, 0)
    assert UsageDay.objects.get(key=mine.key).calls == 5


def test_a_run_resumed_after_its_reply_was_recorded_ends_with_that_reply_without_asking_again(
    model, make_credentials, conversation_of, monkeypatch
):
    mine = make_credentials(budget_usd_cents=100)
    server = model("openai", script(openai_text("The one answer.", usage=(100, 20)), openai_text("Another.")))
    real_finish = services.conversation_finish
    finishes = []

    def finish_fails_once(**kwargs):
        finishes.append(kwargs["status"])
        if len(finishes) == 1:
            raise RuntimeError("an error after the reply was recorded")
        return real_finish(**kwargs)

    monkeypatch.setattr(services, "conversation_finish", finish_fails_once)
    conversation = conversation_of(mine, "Answer once")

    assert runner.run_conversation(conversation.pk) is None
    assert Conversation.objects.get(pk=conversation.pk).status == "open"

    finished = run(conversation)

    assert finished.status == "resolved" and reply_of(finished) == "The one answer."
    assert len(server.requests) == 1
    assert finished.cost_micro_usd == ApiKey.objects.get(pk=mine.key.pk).spent_micro_usd == 400
    assert finished.model_calls == 1

"""The Platform area's tools about the service itself, through call_tool: usage and rates, help pages,
tickets to the operators, feasibility, the mobile app. Per tool a normal call, bad input and a
refusal."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.core import mail as outbox
from django.utils import timezone

from apps.apikeys.models import ApiKey, UsageDay
from apps.apikeys.services import api_key_create, budget_reserve, budget_settle
from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.models import ToolCall
from apps.catalogue.search import stems
from apps.catalogue.testing import call, ok, person_with, person_without, refused
from apps.core.recurrence import workspace_zone
from apps.gateway.agent.backends import Usage, configured_backend
from apps.platform import help
from apps.platform.models import SupportTicket

PRICES = {
    "house-model": {"input": 3, "output": 15, "cache_read": "0.3"},
    "spare-model": {"input": 1, "output": 2},
}

TOOLS = {
    "getBillingSummary": ("platform.admin", {}),
    "checkRates": ("platform.view", {}),
    "searchHelpArticles": ("platform.view", {"query": "budgets"}),
    "createSupportTicket": ("platform.view", {"subject": "Hello", "body": "A question"}),
    "assessFeasibility": ("platform.view", {"task": "send an invoice"}),
    "gatherMobileBuildConfig": ("platform.admin", {}),
    "getMobileAppInfra": ("platform.view", {}),
    "getMobileBrandingToolkit": ("platform.view", {}),
}


@pytest.fixture
def priced(settings):
    settings.GATEWAY_MODEL_BACKEND = "openai"
    settings.GATEWAY_MODEL_URL = "http://127.0.0.1:9"
    settings.GATEWAY_MODEL_NAME = "house-model"
    settings.GATEWAY_MODEL_PRICES = PRICES
    return settings


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_a_role_without_the_permission_cannot_call_it(acme, name):
    permission, arguments = TOOLS[name]
    person = person_without(permission, email=f"no-{name.lower()}@acme.example")

    with pytest.raises(ToolNotFound):
        call(person, name, arguments)


@pytest.mark.parametrize("name", ["getBillingSummary", "gatherMobileBuildConfig"])
def test_the_admins_tools_are_not_a_members(people, name):
    with pytest.raises(ToolNotFound):
        call(people["member"], name, {})
    assert ok(people["admin"], name, {})


# --- usage and rates -------------------------------------------------------------------------------


def test_rates_are_the_prices_the_meter_charges_with(people, priced):
    answer = ok(people["viewer"], "checkRates", {"inputTokens": 20_000, "outputTokens": 1_000})

    assert [model["model"] for model in answer["models"]] == ["house-model", "spare-model"]
    house = answer["models"][0]
    assert house["inUse"] is True and answer["models"][1]["inUse"] is False
    assert (Decimal(house["input"]), Decimal(house["output"]), Decimal(house["cacheRead"])) == (
        3,
        15,
        Decimal("0.3"),
    )
    # The meter's own arithmetic gives the same figure, in micro-dollars.
    backend = configured_backend()
    assert backend is not None
    charged = backend.cost(Usage(input_tokens=20_000, output_tokens=1_000))
    assert Decimal(house["estimateUsd"]) * 1_000_000 == charged == 75_000
    assert Decimal(answer["toolCallUsd"]) == 0 and answer["currency"] == "USD"


def test_rates_of_one_model_and_without_any(people, priced):
    only = ok(people["viewer"], "checkRates", {"model": "spare-model"})["models"]
    assert [model["model"] for model in only] == ["spare-model"] and only[0]["estimateUsd"] is None

    priced.GATEWAY_MODEL_PRICES = {}
    assert ok(people["viewer"], "checkRates")["models"] == []


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (
            {"model": "gpt-imaginary"},
            "'gpt-imaginary' is not a model the gateway prices; the priced ones are: ",
        ),
        ({"inputTokens": -1}, "`inputTokens`"),
        ({"model": "x" * 201}, "`model`"),
    ],
)
def test_rates_bad_input(people, priced, arguments, said):
    assert said in refused(people["viewer"], "checkRates", arguments)


def _spend(key, micro_usd):
    reservation = budget_reserve(key=key.pk, micro_usd=micro_usd)
    budget_settle(reservation=reservation, micro_usd=micro_usd)


def test_the_billing_summary_sums_the_keys_ledger_and_the_tool_calls(people, priced):
    zone = workspace_zone()
    today = timezone.now().astimezone(zone).date()
    busy = ApiKey.objects.get(
        pk=api_key_create(user=people["member"], label="busy bot", budget_usd_cents=500).key.pk
    )
    idle = ApiKey.objects.get(pk=api_key_create(user=people["viewer"], label="idle bot").key.pk)
    before = ok(people["admin"], "getBillingSummary", {"start": today.isoformat(), "end": today.isoformat()})
    _spend(busy, 12_345)
    _spend(busy, 5)
    now = timezone.now()
    ToolCall.objects.bulk_create(
        [
            ToolCall(at=now, tool="getContact", outcome="ok", duration_ms=1),
            ToolCall(at=now, tool="getContact", outcome="error", duration_ms=1),
            ToolCall(at=now, tool="listTasks", outcome="ok", duration_ms=1),
            ToolCall(at=now - timedelta(days=400), tool="listTasks", outcome="ok", duration_ms=1),
        ]
    )

    answer = ok(people["admin"], "getBillingSummary", {"start": today.isoformat(), "end": today.isoformat()})

    keys = {key["label"]: key for key in answer["keys"]}
    assert Decimal(keys["busy bot"]["spentUsd"]) == Decimal("0.01235") and keys["busy bot"]["modelCalls"] == 2
    assert (
        keys["busy bot"]["ownerEmail"] == "member@acme.example" and keys["busy bot"]["budgetUsdCents"] == 500
    )
    assert Decimal(keys["idle bot"]["spentUsd"]) == 0 and keys["idle bot"]["modelCalls"] == 0
    assert Decimal(answer["spentUsd"]) - Decimal(before["spentUsd"]) == Decimal("0.01235")
    assert answer["modelCalls"] - before["modelCalls"] == 2
    assert UsageDay.objects.get(key=busy).spent_micro_usd == 12_350

    def calls(summary, area):
        row = next((row for row in summary["toolCallsByArea"] if row["area"] == area), None)
        return (row["calls"], row["failed"]) if row else (0, 0)

    assert calls(answer, "contacts")[0] - calls(before, "contacts")[0] == 2
    assert calls(answer, "contacts")[1] - calls(before, "contacts")[1] == 1
    assert calls(answer, "tasks")[0] - calls(before, "tasks")[0] == 1  # not the call of 400 days ago
    assert next(row["title"] for row in answer["toolCallsByArea"] if row["area"] == "contacts") == "Contacts"
    assert answer["toolCalls"] == sum(row["calls"] for row in answer["toolCallsByArea"])
    assert answer["model"]["model"] == "house-model"
    assert idle.pk in {key["id"] for key in answer["keys"]}


def test_the_billing_summary_defaults_to_this_month(people):
    answer = ok(people["owner"], "getBillingSummary")
    today = timezone.now().astimezone(workspace_zone()).date()

    assert answer["end"] == today.isoformat() and answer["start"] == today.replace(day=1).isoformat()


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        ({"start": "2026-03-10", "end": "2026-03-01"}, "`end`: must be on or after 2026-03-10."),
        ({"start": "2024-01-01", "end": "2026-01-01"}, "The period is at most 366 days"),
        ({"start": "last month"}, "`start`"),
    ],
)
def test_the_billing_summary_bad_input(people, arguments, said):
    assert said in refused(people["admin"], "getBillingSummary", arguments)


# --- help --------------------------------------------------------------------------------------------


def test_help_finds_the_article_that_answers_with_a_snippet_and_a_link(people):
    articles = ok(people["viewer"], "searchHelpArticles", {"query": "rotate the webhook signing secret"})[
        "articles"
    ]

    assert articles and articles[0]["link"].startswith("docs/api-keys.md#")
    assert "API keys" in articles[0]["title"]
    assert {"webhook", "secret", "sign"} & set(stems(articles[0]["snippet"]))
    assert [article["score"] for article in articles] == sorted(
        (article["score"] for article in articles), reverse=True
    )


def test_help_never_shows_a_page_for_operators_only(people):
    source = (help.docs_dir() / "deploy.md").read_text(encoding="utf-8")
    assert help.OPERATORS_ONLY.search(source.splitlines()[0])

    found = ok(
        people["viewer"], "searchHelpArticles", {"query": "Docker Compose kubernetes deploy", "limit": 20}
    )

    assert not [article for article in found["articles"] if article["link"].startswith("docs/deploy.md")]


def test_help_pages_are_cut_at_their_headings():
    source = (
        "# Guide\n\nIntro.\n\n## Budgets\n\nA budget.\n\n```\n# not a heading\n```\n\n"
        "### Periods\n\nMonthly.\n"
    )

    articles = help.articles_of("guide.md", source)

    assert [(article.title, article.anchor) for article in articles] == [
        ("Guide", "guide"),
        ("Guide > Budgets", "budgets"),
        ("Guide > Budgets > Periods", "periods"),
    ]
    assert "not a heading" in articles[1].text
    assert help.articles_of("ops.md", "<!-- audience: operators -->\n# Ops\n\nSecrets.\n") == []


@pytest.mark.parametrize(
    ("arguments", "said"),
    [({"query": "   "}, "query"), ({}, "`query`"), ({"query": "budgets", "limit": 50}, "`limit`")],
)
def test_help_bad_input(people, arguments, said):
    assert said in refused(people["viewer"], "searchHelpArticles", arguments)


def test_help_not_installed_is_a_clear_error(people, settings, tmp_path):
    settings.BASE_DIR = tmp_path

    assert "The help pages are not installed" in refused(
        people["viewer"], "searchHelpArticles", {"query": "budgets"}
    )


# --- tickets to the operators ------------------------------------------------------------------------


def test_a_ticket_is_kept_mailed_to_the_operators_and_listed_with_the_callers_own(people, settings):
    settings.PLATFORM_SUPPORT_EMAIL = "operators@atrium.example"
    earlier = SupportTicket.objects.create(
        requested_by=people["member"],
        category="billing",
        subject="Old one",
        body="x",
        status="answered",
        reply="Done.",
    )
    SupportTicket.objects.create(
        requested_by=people["viewer"], category="question", subject="Someone else's", body="y"
    )

    answer = ok(
        people["member"],
        "createSupportTicket",
        {
            "subject": "  Exports   fail ",
            "body": "Since Monday every export fails.\nPlease look.",
            "category": "problem",
        },
    )

    ticket = SupportTicket.objects.get(pk=answer["ticket"]["id"])
    assert (ticket.subject, ticket.category, ticket.status) == ("Exports fail", "problem", "open")
    assert (
        ticket.body == "Since Monday every export fails.\nPlease look."
        and ticket.requested_by == people["member"]
    )
    assert answer["operatorsNotified"] is True and ticket.operators_notified
    sent = outbox.outbox[-1]
    assert sent.to == ["operators@atrium.example"] and f"#{ticket.pk} Exports fail" in sent.subject
    assert (
        "member@acme.example" in sent.body
        and "Since Monday" in sent.body
        and sent.reply_to == ["member@acme.example"]
    )
    mine = [(row["id"], row["status"], row["reply"]) for row in answer["yourTickets"]]
    assert mine[:2] == [(ticket.pk, "open", ""), (earlier.pk, "answered", "Done.")]
    assert "Someone else's" not in str(answer)


def test_without_the_operators_address_a_ticket_is_kept_only(people, settings):
    settings.PLATFORM_SUPPORT_EMAIL = ""
    sent = len(outbox.outbox)

    answer = ok(people["viewer"], "createSupportTicket", {"subject": "Question", "body": "How?"})

    assert answer["operatorsNotified"] is False and len(outbox.outbox) == sent
    assert SupportTicket.objects.filter(pk=answer["ticket"]["id"], operators_notified=False).exists()


def test_tickets_are_rate_limited_per_person(people, settings):
    settings.PLATFORM_SUPPORT_TICKETS_PER_HOUR = 2
    for number in range(2):
        ok(people["member"], "createSupportTicket", {"subject": f"Ticket {number}", "body": "text"})
    count = SupportTicket.objects.count()

    said = refused(people["member"], "createSupportTicket", {"subject": "One more", "body": "text"})

    assert "You sent 2 tickets to the service's operators in the last hour" in said
    assert SupportTicket.objects.count() == count
    assert ok(people["viewer"], "createSupportTicket", {"subject": "Mine", "body": "text"})


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        ({"subject": "   ", "body": "text"}, "subject"),
        ({"subject": "Hello", "body": " \n "}, "body"),
        ({"subject": "x" * 201, "body": "text"}, "`subject`"),
        ({"subject": "Hello", "body": "x" * 5001}, "`body`"),
        ({"subject": "Hello", "body": "text", "category": "urgent"}, "`category`"),
    ],
)
def test_ticket_bad_input_writes_nothing(people, arguments, said):
    count = SupportTicket.objects.count()

    assert said in refused(people["member"], "createSupportTicket", arguments)
    assert SupportTicket.objects.count() == count


# --- feasibility -------------------------------------------------------------------------------------


def test_feasibility_says_which_tools_would_do_it_and_what_stands_in_the_way(people, acme):
    acme.installed_areas = [area for area in acme.installed_areas if area != "events"]
    acme.save(update_fields=["installed_areas"])
    reader = person_with({"platform.view", "contacts.view"}, email="reader@acme.example")

    admin = ok(people["admin"], "assessFeasibility", {"task": "create a new contact for Jane Doe"})
    mine = ok(reader, "assessFeasibility", {"task": "create a new contact for Jane Doe"})
    events = ok(
        people["admin"], "assessFeasibility", {"task": "register an attendee for the conference event"}
    )

    assert admin["verdict"] == "ready" and admin["tools"][0]["name"] == "createContact"
    assert mine["verdict"] == "needs_permission" and mine["tools"][0]["name"] == "createContact"
    assert mine["tools"][0]["permission"] == "contacts.create" and admin["tools"][0]["permission"] is None
    assert (
        "contacts.create" in mine["permissionsMissing"]
        and "contacts.create" not in admin["permissionsMissing"]
    )
    assert events["verdict"] == "needs_area"
    assert {"area": "events", "title": "Events"} in events["areasNotInstalled"]


def test_feasibility_under_a_read_only_credential(people):
    answer = ok(people["admin"], "assessFeasibility", {"task": "create a new contact"}, scopes={"mcp:read"})

    assert answer["verdict"] == "needs_write_access" and answer["tools"][0]["name"] == "createContact"


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        ({"task": "  "}, "task"),
        ({"task": "x" * 1001}, "`task`"),
        ({"task": "invoice", "limit": 0}, "`limit`"),
    ],
)
def test_feasibility_bad_input(people, arguments, said):
    assert said in refused(people["member"], "assessFeasibility", arguments)


# --- the mobile app ----------------------------------------------------------------------------------


def test_the_mobile_build_config_is_the_workspaces_own(people, acme, settings):
    settings.OAUTH_REDIRECT_URI_SCHEMES = [*settings.OAUTH_REDIRECT_URI_SCHEMES, "com.acme.atrium"]

    answer = ok(people["admin"], "gatherMobileBuildConfig", {"appId": "com.acme.atrium"})
    default = ok(people["admin"], "gatherMobileBuildConfig")

    base = answer["baseUrl"]
    host = acme.get_primary_domain().domain
    assert (
        host in base
        and answer["mcpEndpoint"] == f"{base}/api/mcp"
        and answer["displayName"] == acme.brand_name
    )
    oauth = answer["oauth"]
    assert (
        oauth["authorizationEndpoint"] == f"{base}/oauth/authorize"
        and oauth["tokenEndpoint"] == f"{base}/oauth/token"
    )
    assert (
        oauth["metadataUrl"] == f"{base}/.well-known/oauth-authorization-server" and oauth["pkce"] == "S256"
    )
    assert (
        oauth["redirectUri"] == "com.acme.atrium:/oauth/callback" and oauth["redirectSchemeAccepted"] is True
    )
    assert "mcp" in oauth["scopes"]
    assert default["appId"].count(".") >= 1 and default["oauth"]["redirectSchemeAccepted"] is False


def test_the_mobile_build_config_bad_app_id(people):
    for app_id in ("atrium", "com..acme", "com.acme/app", "1com.acme"):
        said = refused(people["admin"], "gatherMobileBuildConfig", {"appId": app_id})
        assert f"{app_id!r} is not an app id" in said


def test_the_mobile_infrastructure(people, settings):
    answer = ok(people["viewer"], "getMobileAppInfra")

    endpoints = {endpoint["name"]: endpoint["url"] for endpoint in answer["endpoints"]}
    assert endpoints["mcp"].endswith("/api/mcp") and endpoints["agent"].endswith("/api/agent")
    assert endpoints["server-card"].endswith("/.well-known/mcp.json")
    assert answer["accessTokenSeconds"] == settings.OAUTH2_PROVIDER["ACCESS_TOKEN_EXPIRE_SECONDS"]
    assert answer["registrationsPerHour"] == settings.OAUTH_REGISTRATIONS_PER_HOUR
    assert answer["pushNotifications"] is False and answer["host"] in endpoints["mcp"]
    assert "not an argument" in refused(people["viewer"], "getMobileAppInfra", {"platform": "ios"})


def test_the_mobile_branding_toolkit(people, acme):
    answer = ok(people["viewer"], "getMobileBrandingToolkit")
    ios = ok(people["viewer"], "getMobileBrandingToolkit", {"platform": "ios"})

    assert answer["brandName"] == acme.brand_name and len(answer["shortName"]) <= 12
    colours = {colour["name"]: colour["hex"] for colour in answer["colours"]}
    assert colours["primary"] == "#3657d6" and colours["on-primary"] == "#fff"
    assert answer["logoUrl"].endswith("/static/icons/atrium.svg")
    assert {icon["platform"] for icon in answer["icons"]} == {"ios", "android"}
    assert {icon["platform"] for icon in ios["icons"]} == {"ios"}
    assert {"platform": "ios", "purpose": "app store", "pixels": 1024} in ios["icons"]
    assert "`platform`" in refused(people["viewer"], "getMobileBrandingToolkit", {"platform": "windows"})

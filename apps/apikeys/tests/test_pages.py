"""The API-key and agent-connection pages, through Django's client: the active / revoked filter,
renaming a key, the usage chart, and what the agent-connection page names and lists."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from apps.accounts.models import PersonalAccessToken
from apps.apikeys import charts, clients, services
from apps.apikeys.models import ApiKey, UsageDay
from apps.apikeys.periods import local_day
from apps.core.recurrence import workspace_zone

pytestmark = pytest.mark.django_db


def labels_listed(page: str) -> list[str]:
    return re.findall(r'<td><a href="/settings/api-keys/\d+/">([^<]*)</a></td>', page)


# --- the list: active and revoked ---------------------------------------------------------------


def test_the_list_shows_active_keys_by_default_and_revoked_ones_behind_their_tab(acme_client, people):
    member = people["member"]
    for label in ("Live one", "Live two", "Old one"):
        services.api_key_create(user=member, label=label)
    old = ApiKey.objects.get(label="Old one")
    services.api_key_revoke(actor=member, key=old)
    services.api_key_create(user=people["admin"], label="Someone else's")
    acme_client.force_login(member)

    default = acme_client.get("/settings/api-keys/").content.decode()
    revoked = acme_client.get("/settings/api-keys/?status=revoked").content.decode()

    assert sorted(labels_listed(default)) == ["Live one", "Live two"]
    assert labels_listed(revoked) == ["Old one"]
    for page in (default, revoked):
        assert re.search(r'data-testid="tab-active">Active <span class="count">2</span>', page)
        assert re.search(r'data-testid="tab-revoked">Revoked <span class="count">1</span>', page)
    assert 'href="?status=active" aria-current="page"' in default
    assert 'href="?status=revoked" aria-current="page"' in revoked


def test_an_unknown_filter_shows_the_active_keys(acme_client, people):
    services.api_key_create(user=people["member"], label="Live one")
    acme_client.force_login(people["member"])

    response = acme_client.get("/settings/api-keys/?status=%3Cscript%3E")

    assert response.status_code == 200
    assert labels_listed(response.content.decode()) == ["Live one"]


def test_each_tab_says_when_it_is_empty(acme_client, people):
    acme_client.force_login(people["member"])
    assert "No keys yet." in acme_client.get("/settings/api-keys/").content.decode()
    assert "No revoked keys." in acme_client.get("/settings/api-keys/?status=revoked").content.decode()
    key = services.api_key_create(user=people["member"], label="Gone").key
    services.api_key_revoke(actor=people["member"], key=key)
    assert "No active keys: create one below." in acme_client.get("/settings/api-keys/").content.decode()


# --- renaming -----------------------------------------------------------------------------------


def test_a_key_is_renamed_from_its_page_post_redirect_get(acme_client, people):
    key = services.api_key_create(user=people["member"], label="Old name").key
    acme_client.force_login(people["member"])

    response = acme_client.post(f"/settings/api-keys/{key.pk}/rename/", {"rename-label": "  Support inbox  "})

    assert response.status_code == 302 and response["Location"] == f"/settings/api-keys/{key.pk}/"
    key.refresh_from_db()
    assert key.label == "Support inbox"
    page = acme_client.get(response["Location"]).content.decode()
    assert "Key renamed “Support inbox”." in page
    assert 'value="Support inbox"' in page


@pytest.mark.parametrize(
    ("given", "said"),
    [("", "Give the key a label."), ("x" * 101, "Labels are at most 100 characters.")],
)
def test_a_refused_name_is_said_on_the_form_and_changes_nothing(acme_client, people, given, said):
    key = services.api_key_create(user=people["member"], label="Kept").key
    acme_client.force_login(people["member"])

    response = acme_client.post(f"/settings/api-keys/{key.pk}/rename/", {"rename-label": given})

    assert response.status_code == 400
    assert said in response.content.decode()
    key.refresh_from_db()
    assert key.label == "Kept"


def test_a_revoked_or_someone_elses_key_cannot_be_renamed(acme_client, people):
    mine = services.api_key_create(user=people["member"], label="Mine").key
    services.api_key_revoke(actor=people["member"], key=mine)
    theirs = services.api_key_create(user=people["admin"], label="Theirs").key
    acme_client.force_login(people["member"])

    refused = acme_client.post(f"/settings/api-keys/{mine.pk}/rename/", {"rename-label": "New"}, follow=True)
    not_found = acme_client.post(f"/settings/api-keys/{theirs.pk}/rename/", {"rename-label": "New"})

    assert "a revoked key cannot be changed" in refused.content.decode()
    assert not_found.status_code == 404
    assert acme_client.get(f"/settings/api-keys/{mine.pk}/rename/").status_code == 405
    assert (
        ApiKey.objects.get(pk=mine.pk).label == "Mine" and ApiKey.objects.get(pk=theirs.pk).label == "Theirs"
    )
    assert 'data-testid="rename"' not in acme_client.get(f"/settings/api-keys/{mine.pk}/").content.decode()


# --- the usage chart ----------------------------------------------------------------------------


def test_the_key_page_draws_30_days_of_spend_and_calls_and_gives_the_numbers(acme_client, people):
    key = services.api_key_create(user=people["member"], label="Charted").key
    today = local_day(timezone.now(), workspace_zone())
    UsageDay.objects.create(key=key, day=today, spent_micro_usd=1_500_000, calls=12, conversations=3)
    UsageDay.objects.create(key=key, day=today - timedelta(days=2), spent_micro_usd=500_000, calls=3)
    UsageDay.objects.create(key=key, day=today - timedelta(days=40), spent_micro_usd=9_000_000, calls=99)
    acme_client.force_login(people["member"])

    page = acme_client.get(f"/settings/api-keys/{key.pk}/").content.decode()

    svg = page[page.index("<svg") : page.index("</svg>")]
    assert 'role="img" aria-labelledby="usage-chart-title usage-chart-desc"' in svg
    assert '<title id="usage-chart-title">Use of this key over the last 30 days</title>' in svg
    assert "spent $2.00 in 15 model calls" in svg  # the 40-day-old row is out of the window
    assert svg.count('class="bar"') == 60  # 30 days, two panels
    assert f"<title>{today:%Y-%m-%d}: $1.50</title>" in svg
    assert f"<title>{today:%Y-%m-%d}: 12</title>" in svg
    assert "style=" not in svg and "<script" not in svg  # the CSP allows neither
    assert "Last 30 days" in page
    table = page[page.index("</figure>") :]
    assert table.count("<tr><td>") >= 30
    day = f'<time datetime="{today:%Y-%m-%d}">{today:%Y-%m-%d}</time>'
    assert f"<tr><td>{day}</td><td>$1.50</td><td>12</td><td>3</td></tr>" in table


def test_bars_are_drawn_to_a_round_scale():
    start = timezone.localdate()
    days = [
        {"date": start + timedelta(days=offset), "spent_micro_usd": spent, "calls": calls, "conversations": 0}
        for offset, (spent, calls) in enumerate([(0, 0), (3_000_000, 7), (1_500_000, 1)])
    ]

    chart = charts.usage_chart(days)

    spend, calls = chart.panels
    assert spend.scale_label == "$5.00" and calls.scale_label == "10"
    heights = [bar.height for bar in spend.bars]
    assert heights[0] == 0 and heights[1] == pytest.approx(charts.PANEL_HEIGHT * 0.6)
    assert heights[2] == pytest.approx(charts.PANEL_HEIGHT * 0.3)
    assert all(bar.y + bar.height == pytest.approx(spend.baseline) for bar in spend.bars)
    assert calls.bars[1].height == pytest.approx(charts.PANEL_HEIGHT * 0.7)
    assert all(bar.x + bar.width <= chart.width for panel in chart.panels for bar in panel.bars)


@pytest.mark.parametrize(
    ("value", "ceiling"), [(0, 1), (1, 1), (3, 5), (7, 10), (12, 20), (24, 25), (2_400_000, 2_500_000)]
)
def test_scales_are_round_numbers(value, ceiling):
    assert charts.nice_ceiling(value) == ceiling


def test_an_unused_key_says_so_in_its_chart():
    days = [{"date": timezone.localdate(), "spent_micro_usd": 0, "calls": 0, "conversations": 0}] * 3

    chart = charts.usage_chart(days)

    assert "none, it was not used" in chart.summary
    assert all(bar.height == 0 for panel in chart.panels for bar in panel.bars)


# --- the agent connection page ------------------------------------------------------------------


def test_the_agent_connection_page_lists_the_named_clients_and_where_their_files_go(acme_client, people):
    acme_client.force_login(people["member"])

    page = acme_client.get("/settings/agent-connection/").content.decode()

    listed = page[page.index('data-testid="named-clients"') : page.index("</table>")]
    for title in ("Claude Code", "Claude Desktop", "Cursor", "Visual Studio Code", "Windsurf", "OpenAI"):
        assert title in listed
    for location in (
        "<code>.mcp.json</code>",
        "<code>~/Library/Application Support/Claude/claude_desktop_config.json</code>",
        "<code>%APPDATA%\\Claude\\claude_desktop_config.json</code>",
        "<code>~/.cursor/mcp.json</code>",
        "<code>.vscode/mcp.json</code>",
        "<code>~/.codeium/windsurf/mcp_config.json</code>",
        "<code>POST /v1/responses</code>",
    ):
        assert location in listed
    assert "Any MCP client" not in listed  # the kinds for other clients are in the picker only
    assert [kind.name for kind in clients.named()] == [
        "claude-code",
        "claude-desktop",
        "cursor",
        "vscode",
        "windsurf",
        "openai",
    ]


def test_the_configuration_names_the_token_and_key_it_made_and_links_to_them(acme_client, people):
    acme_client.force_login(people["member"])

    response = acme_client.post("/settings/agent-connection/", {"client": "cursor", "profile": "suited"})
    page = acme_client.get(response["Location"]).content.decode()

    key = ApiKey.objects.filter(user=people["member"]).latest("created_at")
    token = PersonalAccessToken.objects.filter(user=people["member"]).latest("created_at")
    assert key.label.startswith("Cursor (") and token.name == f"Quick setup: {key.label}"
    made = page[page.index('data-testid="created-credentials"') :]
    assert f'<a href="/settings/tokens/#token-{token.pk}">“{token.name}”</a>' in made
    assert f'<a href="/settings/api-keys/{key.pk}/">“{key.label}”</a>' in made
    tokens_page = acme_client.get("/settings/tokens/").content.decode()
    assert f'id="token-{token.pk}"' in tokens_page

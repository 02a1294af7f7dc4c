"""The Credential Vaults: the two tools (a normal call, bad input, a refusal), who sees which item
under two roles, a value never answered nor stored in clear, resolution with its checks and log,
and the settings page (a value written, never shown)."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import call, ok, person_without, refused
from apps.core import encryption
from apps.core.errors import AppError
from apps.vaults import services
from apps.vaults.errors import VaultItemExpired, VaultItemNotForThis
from apps.vaults.models import VaultItem, VaultUse
from apps.vaults.tests.factories import item

SECRET = "sk_live_abcdefghijklmnop"


@pytest.mark.parametrize("name", ["vaultList", "vaultLookup"])
def test_a_role_without_the_permission_cannot_call_it(acme, name):
    person = person_without("vaults.view", email=f"no-{name.lower()}@acme.example")

    with pytest.raises(ToolNotFound):
        call(person, name, {"name": "x"} if name == "vaultLookup" else {})


def test_each_sees_their_own_the_shared_and_the_workspaces_never_a_value(people):
    member, viewer, admin = people["member"], people["viewer"], people["admin"]
    own = item(member, name="Stripe key", value=SECRET, allowed_hosts=["api.stripe.com"])
    shared = item(admin, name="Shipping API", value="ship-secret", shared_roles=[viewer.role])
    everyone = item(admin, "workspace", name="Weather key", value="weather-secret")
    hidden = item(admin, name="Admin only", value="admin-secret")

    as_member = ok(member, "vaultList", {"limit": 100})
    as_viewer = ok(viewer, "vaultList", {"limit": 100})

    assert {row["id"] for row in as_member["items"]} == {own.pk, everyone.pk}
    assert {row["id"] for row in as_viewer["items"]} == {shared.pk, everyone.pk}
    text = json.dumps([as_member, as_viewer])
    for secret in (SECRET, "ship-secret", "weather-secret", "admin-secret", "Admin only"):
        assert secret not in text
    row = next(row for row in as_member["items"] if row["id"] == own.pk)
    assert row["reference"] == f"vault:item/{own.pk}" and row["allowedHosts"] == ["api.stripe.com"]
    assert hidden.pk not in {row["id"] for row in ok(member, "vaultList", {"query": "Admin"})["items"]}


def test_the_value_is_encrypted_at_rest(people):
    made = item(people["member"], name="Key", value=SECRET)

    stored = VaultItem.objects.get(pk=made.pk).value_encrypted
    assert SECRET not in stored and encryption.decrypt(stored) == SECRET


def test_a_lookup_answers_a_reference_and_is_logged(people):
    member = people["member"]
    made = item(member, name="Stripe key", value=SECRET)

    answer = ok(member, "vaultLookup", {"name": "stripe  KEY", "purpose": "charge a card"})

    assert answer["reference"] == f"vault:item/{made.pk}" and answer["item"]["name"] == "Stripe key"
    assert SECRET not in json.dumps(answer)
    use = VaultUse.objects.get(item=made)
    assert (use.action, use.purpose, use.actor, use.tool) == (
        "lookup",
        "charge a card",
        member,
        "vaultLookup",
    )
    assert ok(member, "vaultLookup", {"itemId": made.pk})["reference"] == answer["reference"]


def test_bad_lookups_are_refused_and_another_persons_item_is_never_named(people):
    member, admin = people["member"], people["admin"]
    theirs = item(admin, name="Payroll bank login", value="bank-secret")

    assert "`name`" in refused(member, "vaultLookup", {})
    missing = refused(member, "vaultLookup", {"name": "Payroll bank login"})
    assert missing == refused(member, "vaultLookup", {"name": "Payroll bank logon"})
    assert "Payroll" not in missing
    assert "was not found" in refused(member, "vaultLookup", {"itemId": theirs.pk})
    assert "bank-secret" not in missing
    assert "`limit`" in refused(member, "vaultList", {"limit": 1000})
    assert not VaultUse.objects.exists()


def test_resolve_checks_expiry_and_hosts_and_logs_the_use(people):
    member = people["member"]
    made = item(member, name="Key", value=SECRET, allowed_hosts="api.example.com, other.example.com")

    assert services.resolve(made, actor=member, purpose="MCP server x", host="api.example.com") == SECRET
    assert VaultUse.objects.get(item=made, action="used").purpose == "MCP server x"
    with pytest.raises(VaultItemNotForThis):
        services.resolve(made, actor=member, purpose="x", host="evil.example.net")
    made.expires_at = timezone.now() - timedelta(days=1)
    with pytest.raises(VaultItemExpired):
        services.resolve(made, actor=member, purpose="x", host="api.example.com")
    assert VaultUse.objects.filter(item=made, action="used").count() == 1


def test_writes_are_checked_and_nothing_half_written(people):
    member, viewer = people["member"], people["viewer"]
    item(member, name="Taken", value="x")
    before = VaultItem.objects.count()

    for fields in (
        {"name": "taken", "value": "y"},
        {"name": "No value"},
        {"name": "Bad host", "value": "y", "allowed_hosts": ["https://x.example/path"]},
        {"name": "Everyone", "value": "y", "visibility": "workspace"},
    ):
        with pytest.raises(AppError):
            services.item_create(actor=member, fields=fields)
    with pytest.raises(AppError):
        services.item_create(actor=viewer, fields={"name": "Viewer", "value": "y"})
    assert VaultItem.objects.count() == before


def test_the_page_writes_a_value_and_never_shows_it(people, acme_client):
    member = people["member"]
    acme_client.force_login(member)

    added = acme_client.post(
        "/settings/vault/add/",
        {
            "name": "Page key",
            "kind": "api_key",
            "value": SECRET,
            "visibility": "private",
            "allowed_hosts": "",
        },
    )
    assert added.status_code == 302
    made = VaultItem.objects.get(name="Page key")
    page = acme_client.get("/settings/vault/").content.decode()
    edit = acme_client.get(f"/settings/vault/{made.pk}/").content.decode()
    assert "Page key" in page and SECRET not in page and SECRET not in edit

    acme_client.post(
        f"/settings/vault/{made.pk}/",
        {"name": "Page key 2", "kind": "api_key", "value": "", "visibility": "private"},
    )
    made.refresh_from_db()
    assert made.name == "Page key 2" and encryption.decrypt(made.value_encrypted) == SECRET

    other = item(people["admin"], name="Admin's")
    assert acme_client.post(f"/settings/vault/{other.pk}/delete/").status_code == 404
    assert acme_client.post(f"/settings/vault/{made.pk}/delete/").status_code == 302
    assert not VaultItem.objects.live().filter(pk=made.pk).exists()


def test_a_viewer_may_not_add(people, acme_client):
    acme_client.force_login(people["viewer"])

    assert acme_client.get("/settings/vault/").status_code == 200
    refused_post = acme_client.post("/settings/vault/add/", {"name": "X", "kind": "note", "value": "v"})
    assert refused_post.status_code == 403
    assert not VaultItem.objects.filter(name="X").exists()

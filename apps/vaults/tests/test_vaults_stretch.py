"""The Credential Vault as its people live it: a member adds a secret on Settings → Vault, an agent
lists it and looks it up (a reference, never the value), a server-side tool uses it, and the page's
log shows each use; another person's secret is never listed, named or logged to them; a viewer
reads without adding."""

import json

from apps.catalogue.testing import ok, refused
from apps.vaults import services
from apps.vaults.models import VaultItem
from apps.vaults.tests.factories import item

SECRET = "sk_live_stretch_abcdefghijklmnop"


def test_a_secret_added_found_used_and_logged(people, acme_client):
    member, admin, viewer = people["member"], people["admin"], people["viewer"]
    acme_client.force_login(member)
    form = {"name": "Shop API key", "kind": "api_key", "value": SECRET, "visibility": "private"}
    assert (
        acme_client.post("/settings/vault/add/", {**form, "allowed_hosts": "api.shop.example"}).status_code
        == 302
    )
    made = VaultItem.objects.get(name="Shop API key")
    theirs = item(admin, name="Payroll bank login", value="bank-secret")

    listed = ok(member, "vaultList", {"limit": 100})
    assert [row["name"] for row in listed["items"]] == ["Shop API key"]
    assert theirs.pk not in [row["id"] for row in listed["items"]]
    looked = ok(member, "vaultLookup", {"name": "shop api key", "purpose": "sync the orders"})
    assert looked["reference"] == f"vault:item/{made.pk}"
    assert SECRET not in json.dumps([listed, looked])
    assert "Payroll" not in refused(member, "vaultLookup", {"name": "Payroll bank login"})

    # A tool on the server resolves the reference for its host, and only for it.
    assert services.resolve(made, actor=member, purpose="order sync", host="api.shop.example") == SECRET
    page = acme_client.get("/settings/vault/").content.decode()
    assert "Shop API key" in page and SECRET not in page
    assert "sync the orders" in page and "order sync" in page and "vaultLookup" in page
    assert "Payroll" not in page and "bank-secret" not in page

    acme_client.force_login(viewer)
    seen = acme_client.get("/settings/vault/").content.decode()
    assert "Shop API key" not in seen and "Payroll" not in seen
    assert (
        acme_client.post("/settings/vault/add/", {"name": "X", "kind": "note", "value": "v"}).status_code
        == 403
    )
    assert VaultItem.objects.filter(name="X").count() == 0

"""What a week of a team keeping its credentials in the vault found: a member could rewrite or
delete the workspace's own credentials (only the vault's administrators keep those); a secret typed
on the page lost its leading and trailing spaces; and naming a private item told a person that
someone else already kept a private item of that name (names are now each owner's own)."""

from apps.catalogue.testing import ok, refused
from apps.core import encryption
from apps.vaults import services
from apps.vaults.models import VaultItem
from apps.vaults.tests.factories import item

PAGE = "/settings/vault/"


def test_a_member_neither_rewrites_nor_deletes_the_workspaces_credentials(people, acme_client):
    admin, member = people["admin"], people["member"]
    stripe = item(admin, "workspace", name="Stripe live key", value="sk_live_real")
    acme_client.force_login(member)

    rewritten = acme_client.post(
        f"{PAGE}{stripe.pk}/",
        {"name": "Stripe live key", "kind": "api_key", "value": "sk_live_mine", "visibility": "private"},
    )
    deleted = acme_client.post(f"{PAGE}{stripe.pk}/delete/")

    stripe.refresh_from_db()
    assert rewritten.status_code == 403 and deleted.status_code == 403
    assert stripe.deleted_at is None and stripe.visibility == "workspace"
    assert encryption.decrypt(stripe.value_encrypted) == "sk_live_real"
    # Their administrator rotates it.
    services.item_update(actor=admin, item=stripe, fields={"value": "sk_live_rotated"})
    assert encryption.decrypt(VaultItem.objects.get(pk=stripe.pk).value_encrypted) == "sk_live_rotated"


def test_a_secret_is_kept_exactly_as_typed(people, acme_client):
    acme_client.force_login(people["member"])
    phrase = "  correct horse battery staple  "

    acme_client.post(
        PAGE + "add/", {"name": "Wi-Fi", "kind": "login", "value": phrase, "visibility": "private"}
    )

    made = VaultItem.objects.get(name="Wi-Fi")
    assert services.resolve(made, actor=people["member"], purpose="test") == phrase


def test_a_private_items_name_is_no_way_to_learn_of_anothers(people, nora):
    member, admin = people["member"], people["admin"]
    mine = item(member, name="AWS root", value="aws-member")

    theirs = item(nora, name="aws root", value="aws-nora")

    assert theirs.owner_id == nora.pk and mine.name == "AWS root"
    # Each finds their own by name; the administrator, who sees both, is asked for the id.
    assert ok(member, "vaultLookup", {"name": "AWS root"})["item"]["id"] == mine.pk
    assert ok(nora, "vaultLookup", {"name": "AWS root"})["item"]["id"] == theirs.pk
    assert "itemId" in refused(admin, "vaultLookup", {"name": "aws root"})
    # One's own names stay one each.
    assert "already" in refused_create(member, "aws ROOT")


def refused_create(actor, name):
    from apps.core.errors import AppError

    try:
        services.item_create(actor=actor, fields={"name": name, "value": "x"})
    except AppError as error:
        return str(error.message)
    raise AssertionError("made")

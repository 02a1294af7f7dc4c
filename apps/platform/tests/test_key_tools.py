"""The Platform area's API-key tools through call_tool: the caller's keys (an admin of people:
everyone's), and revoking one, at once for every door. Per tool a normal call, bad input and a
refusal."""

import pytest

from apps.apikeys.models import ApiKey
from apps.apikeys.services import api_key_create
from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import call, confirmed, ok, person_without, refused


def _key(user, label):
    return ApiKey.objects.get(pk=api_key_create(user=user, label=label, budget_usd_cents=500).key.pk)


@pytest.mark.parametrize("name", ["listApiKeys", "revokeApiKey"])
def test_a_role_without_the_permission_cannot_call_it(acme, name):
    person = person_without("platform.view", email=f"no-{name.lower()}@acme.example")

    with pytest.raises(ToolNotFound):
        call(person, name, {"keyId": 1} if name == "revokeApiKey" else {})


def test_own_keys_and_an_admins_view_of_everyones(people):
    mine = _key(people["member"], "zapier")
    theirs = _key(people["viewer"], "viewer's script")

    member = ok(people["member"], "listApiKeys")["keys"]
    member_everyone = ok(people["member"], "listApiKeys", {"everyone": True})["keys"]
    admin_everyone = ok(people["admin"], "listApiKeys", {"everyone": True})["keys"]

    # The member's own keys only, newest first (tests that commit may have left others of theirs).
    own = list(
        ApiKey.objects.filter(user=people["member"], revoked_at__isnull=True)
        .order_by("-created_at", "-id")
        .values_list("pk", flat=True)
    )
    assert [key["id"] for key in member] == own == [key["id"] for key in member_everyone]
    assert own[0] == mine.pk and theirs.pk not in own
    assert member[0]["label"] == "zapier" and member[0]["lastFour"] == mine.last_four
    assert member[0]["budgetUsdCents"] == 500 and member[0]["spentTotalMicroUsd"] == 0
    assert "key" not in member[0] and "digest" not in member[0]
    assert {mine.pk, theirs.pk} <= {key["id"] for key in admin_everyone}


def test_revoke_is_confirmed_then_takes_effect_and_is_listed_as_revoked(people):
    key = _key(people["member"], "leaked")

    answer = ok(
        people["member"],
        "revokeApiKey",
        {"keyId": key.pk},
        capabilities={"elicitation": {}},
        elicit=confirmed,
    )

    key.refresh_from_db()
    assert answer["revokedAt"] and key.revoked_at is not None and not key.is_active
    assert key.pk not in [row["id"] for row in ok(people["member"], "listApiKeys")["keys"]]
    every = ok(people["member"], "listApiKeys", {"activeOnly": False})["keys"]
    assert (every[0]["id"], bool(every[0]["revokedAt"])) == (key.pk, True)


def test_an_admin_of_people_revokes_anyones_a_member_only_their_own(people):
    theirs = _key(people["viewer"], "viewer's script")
    confirm = {"capabilities": {"elicitation": {}}, "elicit": confirmed}

    assert f"API key {theirs.pk} was not found" in refused(
        people["member"], "revokeApiKey", {"keyId": theirs.pk}, **confirm
    )
    theirs.refresh_from_db()
    assert theirs.revoked_at is None

    ok(people["admin"], "revokeApiKey", {"keyId": theirs.pk}, **confirm)
    theirs.refresh_from_db()
    assert theirs.revoked_at is not None


@pytest.mark.parametrize(
    ("name", "arguments", "said"),
    [
        ("revokeApiKey", {"keyId": 999999}, "API key 999999 was not found"),
        ("revokeApiKey", {"keyId": "leaked"}, "`keyId`"),
        ("revokeApiKey", {}, "`keyId`"),
        ("listApiKeys", {"everyone": "yes please"}, "`everyone`"),
    ],
)
def test_bad_arguments_are_clear_errors(people, name, arguments, said):
    assert said in refused(
        people["member"], name, arguments, capabilities={"elicitation": {}}, elicit=confirmed
    )

"""listRecentlyDeleted: the records in the trash of every installed area, as the caller may see
them, with how each comes back. A normal call, bad input, a refusal, and another person's private
record in the trash, never listed, counted or named."""

import pytest

from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import call, ok, person_without, refused
from apps.contacts.tests.factories import ContactFactory
from apps.core import kinds
from apps.deals.tests.factories import DealFactory, PipelineFactory
from apps.platform import trash

pytestmark = pytest.mark.django_db

MARKER = "Oberwald-Tinnisfeld"


def test_the_trash_of_every_area_last_deleted_first_with_its_restore_tool(people):
    member = people["member"]
    contact = ContactFactory(actor=member, first_name="Ada", last_name="Binned")
    # A pipeline of its own: the workspace may hold several (a deal then names one).
    deal = DealFactory(actor=member, pipeline=PipelineFactory(actor=people["owner"]), title="Binned deal")
    kept = ContactFactory(actor=member, first_name="Still here")
    contact.trash(member)
    deal.trash(member)

    answer = ok(member, "listRecentlyDeleted", {"limit": 100})

    rows = [(row["entityType"], row["id"]) for row in answer["items"]]
    assert rows.index(("deal", deal.pk)) < rows.index(("contact", contact.pk))  # the last deleted first
    assert ("contact", kept.pk) not in rows
    [binned_deal] = [row for row in answer["items"] if row["entityType"] == "deal" and row["id"] == deal.pk]
    assert binned_deal["title"] == "Binned deal" and binned_deal["restoreWith"] == "restoreDeal"
    assert binned_deal["deletedBy"]["id"] == member.pk and binned_deal["purgeAt"] is None
    [binned_contact] = [
        row for row in answer["items"] if row["id"] == contact.pk and row["entityType"] == "contact"
    ]
    assert (
        binned_contact["restoreWith"] == "restoreContact"
        and "restoreContact" in binned_contact["restoreHint"]
    )
    assert answer["total"] >= 2

    only_deals = ok(member, "listRecentlyDeleted", {"entityType": "deal", "limit": 100})
    assert {row["entityType"] for row in only_deals["items"]} == {"deal"}
    first = ok(member, "listRecentlyDeleted", {"limit": 1})
    second = ok(member, "listRecentlyDeleted", {"limit": 1, "offset": first["nextOffset"]})
    assert [first["items"][0]["id"], second["items"][0]["id"]] == [row[1] for row in rows[:2]]


def test_another_persons_private_record_in_the_trash_is_never_listed_counted_or_named(people):
    owner = people["owner"]
    private = ContactFactory(actor=owner, first_name=MARKER, visibility="private")
    private.trash(owner)

    for person in (people["member"], people["viewer"]):
        before = ok(person, "listRecentlyDeleted", {"limit": 100})
        assert MARKER not in str(before)
        assert ("contact", private.pk) not in {(row["entityType"], row["id"]) for row in before["items"]}
        assert before["total"] == len(before["items"])
    # The area's admin sees every contact, the trash included.
    admin_rows = ok(people["admin"], "listRecentlyDeleted", {"entityType": "contact", "limit": 100})
    assert private.pk in {row["id"] for row in admin_rows["items"]}


def test_bad_input_is_refused_with_the_kinds_that_can_be(people):
    member = people["member"]

    assert "not a kind of record" in refused(member, "listRecentlyDeleted", {"entityType": "spaceship"})
    untrashed = next(kind for kind in kinds.kinds() if kind not in trash.trashable())
    message = refused(member, "listRecentlyDeleted", {"entityType": untrashed.key})
    assert "do not go to a trash" in message and "contact" in message
    assert refused(member, "listRecentlyDeleted", {"limit": 0})


def test_a_role_without_platform_view_neither_lists_nor_calls_it(acme):
    person = person_without("platform.view", email="no-platform-view-trash@acme.example")
    with pytest.raises(ToolNotFound):
        call(person, "listRecentlyDeleted", {})

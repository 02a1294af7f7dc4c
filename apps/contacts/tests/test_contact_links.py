"""Documents, files, events and e-mails of other areas, through the plug-in points of
apps.core.kinds (items) and apps.core.kinds.sources, and the credit bureau over real HTTP on loopback."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import call, person_without, structured, text_of
from apps.contacts.models import ContactLink, CreditCheck
from apps.contacts.tests.factories import ContactFactory
from apps.contacts.tests.providers import Bureau, bureau_configured, documents, files
from apps.core.kinds import Item
from apps.core.kinds.sources import Message, UpcomingEvent
from apps.core.kinds.testing import Calendar, Items, Mailbox, areas, without_areas


def accept(message, schema):
    return {"action": "accept", "content": {"confirm": True}}


def ok(user, name, arguments=None, **context):
    return structured(call(user, name, arguments or {}, **context))


def refused(user, name, arguments=None, **context):
    result = call(user, name, arguments or {}, **context)
    assert result["isError"] is True, result
    return text_of(result)


# --- documents and files ------------------------------------------------------------------------


def test_documents_and_files_are_linked_listed_and_unlinked(people):
    contact = ContactFactory(actor=people["member"])
    with areas(documents(d1="Contract 2026", d2="Proposal"), files(f5="passport.pdf")):
        linked = ok(people["member"], "linkDocumentToContact", {"contactId": contact.pk, "documentId": 1})
        again = ok(people["member"], "linkDocumentToContact", {"contactId": contact.pk, "documentId": 1})
        ok(people["member"], "linkFileToContact", {"contactId": contact.pk, "fileId": 5})

        attachments = ok(people["viewer"], "getContactAttachments", {"contactId": contact.pk})
        listed = ok(people["viewer"], "listContactFiles", {"contactId": contact.pk})
        ok(
            people["member"],
            "linkDocumentToContact",
            {"contactId": contact.pk, "documentId": 1, "remove": True},
        )

    assert (linked["title"], linked["changed"], again["changed"]) == ("Contract 2026", True, False)
    assert [document["title"] for document in attachments["documents"]] == ["Contract 2026"]
    assert attachments["unavailableAreas"] == []
    assert [(f["id"], f["title"], f["mimeType"], f["size"]) for f in listed["items"]] == [
        (5, "passport.pdf", "application/pdf", 1024)
    ]
    assert not ContactLink.objects.filter(kind="document").exists()


def test_an_item_the_person_may_no_longer_read_shows_as_unavailable(people):
    contact = ContactFactory(actor=people["member"])
    library = Items("file", "contacts", {5: Item(5, "old.pdf")})
    with areas(library):
        ok(people["member"], "linkFileToContact", {"contactId": contact.pk, "fileId": 5})
        library.hidden.add(5)
        [item] = ok(people["viewer"], "listContactFiles", {"contactId": contact.pk})["items"]

    assert (item["available"], item["title"]) == (False, "")


def test_linking_something_that_does_not_exist_is_refused(people):
    contact = ContactFactory(actor=people["member"])
    with areas(documents(d1="Contract")):
        message = refused(
            people["member"], "linkDocumentToContact", {"contactId": contact.pk, "documentId": 99}
        )

    assert "Document 99 was not found" in message
    assert not ContactLink.objects.exists()


def test_without_the_areas_the_tools_say_so(people):
    contact = ContactFactory(actor=people["member"])

    with without_areas("documents", "files"):
        no_documents = refused(
            people["member"], "linkDocumentToContact", {"contactId": contact.pk, "documentId": 1}
        )
        no_files = refused(people["viewer"], "listContactFiles", {"contactId": contact.pk})
        neither = refused(people["viewer"], "getContactAttachments", {"contactId": contact.pk})

    assert "Documents are not available in this workspace" in no_documents
    assert "Files are not available" in no_files
    assert "Neither the Documents nor the Files area" in neither


def test_a_provider_whose_area_is_not_installed_is_not_used(people):
    contact = ContactFactory(actor=people["member"])
    with areas(Items("document", "documents", {1: Item(1, "Contract")})), without_areas("documents"):
        message = refused(
            people["member"], "linkDocumentToContact", {"contactId": contact.pk, "documentId": 1}
        )

    assert "not available" in message


def test_viewers_may_not_link(people):
    for name, argument in (("linkDocumentToContact", "documentId"), ("linkFileToContact", "fileId")):
        with pytest.raises(ToolNotFound):
            call(people["viewer"], name, {"contactId": 1, argument: 1})


def test_attachments_are_refused_to_a_role_without_contacts(acme):
    blind = person_without("contacts.view", email="blind@acme.example")
    for name in (
        "getContactAttachments",
        "listContactFiles",
        "getContactUpcomingEvents",
        "searchContactEmails",
    ):
        with pytest.raises(ToolNotFound):
            call(blind, name, {"contactId": 1})


# --- upcoming events ----------------------------------------------------------------------------


def test_upcoming_events_come_from_the_calendar_soonest_first(people):
    contact = ContactFactory(actor=people["member"])
    now = timezone.now()
    calendar = Calendar(
        "contacts",
        events={
            contact.pk: [
                UpcomingEvent(2, "Renewal call", now + timedelta(days=9), location="phone"),
                UpcomingEvent(1, "Site visit", now + timedelta(days=2)),
                UpcomingEvent(3, "Next year", now + timedelta(days=200)),
            ]
        },
    )
    with areas(calendar):
        answer = ok(people["viewer"], "getContactUpcomingEvents", {"contactId": contact.pk, "days": 30})

    assert [event["title"] for event in answer["events"]] == ["Site visit", "Renewal call"]


def test_upcoming_events_refuse_a_bad_horizon_and_say_when_there_is_no_calendar(people):
    contact = ContactFactory(actor=people["member"])

    assert "`days`" in refused(
        people["viewer"], "getContactUpcomingEvents", {"contactId": contact.pk, "days": 0}
    )
    with without_areas("calendars"):
        no_calendar = refused(people["viewer"], "getContactUpcomingEvents", {"contactId": contact.pk})
    assert "Calendars area is not installed" in no_calendar


# --- e-mails ------------------------------------------------------------------------------------


def test_emails_with_the_contact_are_found_newest_first(people):
    contact = ContactFactory(actor=people["member"], email="ada@engines.example")
    now = timezone.now()
    mailbox = Mailbox(
        "contacts",
        messages=[
            Message(
                1, "Quote for engines", "ada@engines.example", ["sales@acme.example"], now - timedelta(days=3)
            ),
            Message(
                2,
                "Re: Quote for engines",
                "sales@acme.example",
                ["ADA@engines.example"],
                now - timedelta(days=1),
            ),
            Message(3, "Quote for someone else", "bob@example.org", ["sales@acme.example"], now),
        ],
    )
    with areas(mailbox):
        everything = ok(people["viewer"], "searchContactEmails", {"contactId": contact.pk})
        about = ok(
            people["viewer"], "searchContactEmails", {"contactId": contact.pk, "query": "re:", "limit": 1}
        )

    assert [item["id"] for item in everything["items"]] == [2, 1]
    assert (about["total"], about["items"][0]["subject"]) == (1, "Re: Quote for engines")


def test_emails_need_a_mailbox_and_an_address(people):
    contact = ContactFactory(actor=people["member"], phone="+442071838750")

    with without_areas("emailinbox"):
        assert "Email Inbox area is not installed" in refused(
            people["viewer"], "searchContactEmails", {"contactId": contact.pk}
        )
    with areas(Mailbox("contacts")):
        assert "has no e-mail address" in refused(
            people["viewer"], "searchContactEmails", {"contactId": contact.pk}
        )


# --- credit checks ------------------------------------------------------------------------------


def test_a_credit_check_asks_the_bureau_and_keeps_its_answer(people):
    contact = ContactFactory(
        actor=people["admin"], first_name="Ada", last_name="Lovelace", country="GB", city="London"
    )
    with bureau_configured() as bureau:
        answer = ok(
            people["admin"],
            "getContactCreditCheck",
            {"contactId": contact.pk, "purpose": "account_opening"},
            capabilities={"elicitation": {}},
            elicit=accept,
        )

    [request] = bureau.requests
    assert request["auth"] == f"Bearer {Bureau.KEY}"
    assert request["body"]["purpose"] == "account_opening"
    assert (
        request["body"]["subject"]["name"] == "Ada Lovelace" and request["body"]["subject"]["country"] == "GB"
    )
    assert (answer["score"], answer["band"], answer["reference"]) == (712, "B", f"rep-contact-{contact.pk}")
    assert CreditCheck.objects.get(contact=contact).score == 712


def test_a_credit_check_is_gated_behind_the_users_confirmation(people):
    contact = ContactFactory(actor=people["admin"], country="GB")
    with bureau_configured() as bureau:
        message = refused(
            people["admin"], "getContactCreditCheck", {"contactId": contact.pk, "purpose": "contract"}
        )

    assert "marked GATED" in message
    assert bureau.requests == []


def test_without_a_bureau_the_check_says_it_is_not_set_up(people, settings):
    settings.ATRIUM_CREDIT_BUREAU_URL = ""
    contact = ContactFactory(actor=people["admin"], country="GB")

    message = refused(
        people["admin"],
        "getContactCreditCheck",
        {"contactId": contact.pk, "purpose": "contract"},
        capabilities={"elicitation": {}},
        elicit=accept,
    )

    assert "no credit bureau is configured" in message
    assert not CreditCheck.objects.exists()


@pytest.mark.parametrize(
    ("fields", "key", "said"),
    [
        ({"first_name": "Unknown", "country": "GB"}, Bureau.KEY, "has no file on this contact"),
        (
            {"first_name": "Ada", "country": ""},
            Bureau.KEY,
            "needs more to identify this contact: country is required",
        ),
        ({"first_name": "Busy", "country": "GB"}, Bureau.KEY, "unavailable (HTTP 503)"),
        ({"first_name": "Ada", "country": "GB"}, "wrong-key", "refused this workspace's credentials"),
    ],
)
def test_the_bureaus_refusals_become_clear_tool_errors(people, fields, key, said):
    contact = ContactFactory(actor=people["admin"], **fields)
    with bureau_configured(key=key):
        message = refused(
            people["admin"],
            "getContactCreditCheck",
            {"contactId": contact.pk, "purpose": "contract"},
            capabilities={"elicitation": {}},
            elicit=accept,
        )

    assert said in message
    assert not CreditCheck.objects.exists()


def test_an_unreachable_bureau_is_a_clear_tool_error(people, settings):
    from apps.core.testing import free_port

    settings.ATRIUM_CREDIT_BUREAU_URL = f"http://127.0.0.1:{free_port()}"
    settings.ATRIUM_CREDIT_BUREAU_KEY = "k"
    contact = ContactFactory(actor=people["admin"], country="GB")

    message = refused(
        people["admin"],
        "getContactCreditCheck",
        {"contactId": contact.pk, "purpose": "contract"},
        capabilities={"elicitation": {}},
        elicit=accept,
    )

    assert "could not be reached" in message


def test_a_credit_check_needs_a_lawful_purpose_and_the_permission(people):
    assert "`purpose`" in refused(
        people["admin"], "getContactCreditCheck", {"contactId": 1, "purpose": "curiosity"}
    )
    with pytest.raises(ToolNotFound):
        call(people["member"], "getContactCreditCheck", {"contactId": 1, "purpose": "contract"})

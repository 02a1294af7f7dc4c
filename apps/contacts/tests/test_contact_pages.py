"""The Contacts settings pages: the list with its search, a contact's page with its fields, links,
shares and history, the same visibility as the tools, and no 500 for any query string."""

import pytest

from apps.catalogue.dispatch import MemorySession, ToolContext, call_tool
from apps.catalogue.testing import call, person_without, principal_for, structured
from apps.contacts import services
from apps.contacts.models import Contact
from apps.contacts.permissions import ContactsPerm
from apps.contacts.tests.factories import ContactFactory, OrganisationFactory


def page_of(client, url, status=200):
    response = client.get(url)
    assert response.status_code == status, response.content.decode()[:500]
    return response.content.decode()


def test_the_list_shows_the_contacts_the_reader_may_see_and_searches_them(acme_client, people):
    ContactFactory(actor=people["member"], first_name="Zephyrine", last_name="Quill", city="Leeds")
    ContactFactory(actor=people["member"], first_name="Barnaby", last_name="Quill")
    ContactFactory(actor=people["member"], first_name="Priscilla", last_name="Hidden", visibility="private")
    acme_client.force_login(people["viewer"])

    everyone = page_of(acme_client, "/settings/contacts/")
    assert "Zephyrine Quill" in everyone and "Barnaby Quill" in everyone
    assert "Priscilla Hidden" not in everyone
    assert 'href="/settings/contacts/"' in everyone  # in the navigation

    found = page_of(acme_client, "/settings/contacts/?q=zephyrine")
    assert "Zephyrine Quill" in found and "Barnaby Quill" not in found
    assert page_of(acme_client, "/settings/contacts/?q=leeds").count("Zephyrine Quill") == 1
    assert "No contact matches this search." in page_of(acme_client, "/settings/contacts/?q=Priscilla")
    assert "No contact matches this search." in page_of(acme_client, "/settings/contacts/?q=nobody-like-this")

    acme_client.force_login(people["admin"])  # the area's administrators see private ones too
    assert "Priscilla Hidden" in page_of(acme_client, "/settings/contacts/?q=Priscilla")


def test_the_list_narrows_by_kind_and_stage_and_pages(acme_client, people):
    OrganisationFactory(
        actor=people["member"], organisation_name="Vexillo Engines", lifecycle_stage="customer"
    )
    for number in range(32):
        ContactFactory(actor=people["member"], first_name=f"Pagewright{number:02}", lifecycle_stage="lead")
    acme_client.force_login(people["member"])

    organisations = page_of(acme_client, "/settings/contacts/?kind=organisation&stage=customer")
    assert "Vexillo Engines" in organisations and "Pagewright" not in organisations

    first = page_of(acme_client, "/settings/contacts/?q=Pagewright")
    second = page_of(acme_client, "/settings/contacts/?q=Pagewright&page=2")
    assert first.count("data-contact=") == 30 and second.count("data-contact=") == 2
    assert "q=Pagewright&amp;page=2" in first  # the pager keeps the search


def test_a_contact_the_reader_may_not_see_is_not_found(acme_client, people):
    hidden = ContactFactory(actor=people["member"], first_name="Secretia", visibility="private")
    acme_client.force_login(people["viewer"])

    assert page_of(acme_client, f"/settings/contacts/{hidden.pk}/", 404)
    assert page_of(acme_client, "/settings/contacts/999999999/", 404)
    assert page_of(acme_client, "/settings/contacts/99999999999999999999999/", 404)


def test_a_share_lets_a_person_see_a_private_contact(acme_client, people):
    contact = ContactFactory(actor=people["member"], first_name="Sharington", visibility="private")
    services.contact_share(actor=people["member"], contact=contact, person=people["viewer"], access="view")
    acme_client.force_login(people["viewer"])

    assert f'href="/settings/contacts/{contact.pk}/"' in page_of(
        acme_client, "/settings/contacts/?q=Sharington"
    )
    detail = page_of(acme_client, f"/settings/contacts/{contact.pk}/")
    shares = detail.split('data-section="shares"')[1].split("</table>")[0]
    assert "viewer@acme.example" in shares and "member@acme.example" in shares  # with, and by whom


def test_a_person_without_the_contacts_permission_may_not_open_the_pages(acme_client, people):
    contact = ContactFactory(actor=people["member"], first_name="Forbidda")
    outsider = person_without(ContactsPerm.VIEW, email="no-contacts@acme.example")
    acme_client.force_login(outsider)

    assert acme_client.get("/settings/contacts/").status_code == 403
    assert acme_client.get(f"/settings/contacts/{contact.pk}/").status_code == 403
    assert 'href="/settings/contacts/"' not in page_of(acme_client, "/settings/")


def test_the_detail_shows_the_fields_the_links_and_the_archived_state(acme_client, people):
    member = people["member"]
    engines = OrganisationFactory(actor=member, organisation_name="Orrery Works", city="York")
    ada = ContactFactory(
        actor=member,
        first_name="Ada",
        last_name="Orrery",
        email="ada@orrery.example",
        job_title="Engineer",
        organisation_id=engines.pk,
        tags=["vip"],
        data={"industry": "clocks", "items": "gears"},
    )
    structured(
        call(
            member,
            "updateKeyContacts",
            {"contactId": engines.pk, "keyContacts": [{"contactId": ada.pk, "role": "decision maker"}]},
        )
    )
    department = structured(
        call(people["admin"], "createDepartment", {"department": {"name": "Procurement"}})
    )
    structured(
        call(
            people["admin"],
            "linkContactToDepartment",
            {"departmentId": department["id"], "contactId": ada.pk, "role": "supplier"},
        )
    )
    acme_client.force_login(member)

    person = page_of(acme_client, f"/settings/contacts/{ada.pk}/")
    for text in (
        "Ada Orrery",
        "ada@orrery.example",
        "Engineer",
        "vip",
        "industry",
        "clocks",
        "gears",
        "Orrery Works",
    ):
        assert text in person, text
    assert f'href="/settings/contacts/{engines.pk}/"' in person
    assert "Key contact at" in person and "decision maker" in person
    listed = person.split('data-section="linking"')[1].split("</table>")[0]
    assert "Procurement" in listed and "supplier" in listed

    organisation = page_of(acme_client, f"/settings/contacts/{engines.pk}/")
    assert (
        "People of this organisation" in organisation
        and f'href="/settings/contacts/{ada.pk}/"' in organisation
    )

    services.contact_delete(actor=people["admin"], contact=Contact.objects.get(pk=ada.pk))
    archived = page_of(acme_client, f"/settings/contacts/{ada.pk}/")
    assert "archived" in archived
    assert "Ada Orrery" in page_of(acme_client, "/settings/contacts/?show=archived")
    assert "Ada Orrery" not in page_of(acme_client, "/settings/contacts/")


def test_the_history_says_who_changed_a_contact_and_through_which_door(acme_client, people):
    member = people["member"]
    contact = ContactFactory(actor=member, first_name="Historia", city="Leeds")
    structured(call(member, "updateContact", {"contactId": contact.pk, "changes": {"city": "York"}}))
    gateway = ToolContext(
        principal=principal_for(member, client="Support desk key"), session=MemorySession(), door="gateway"
    )
    structured(
        call_tool(gateway, "updateContact", {"contactId": contact.pk, "changes": {"jobTitle": "Curator"}})
    )
    services.contact_update(
        actor=people["admin"], contact=Contact.objects.get(pk=contact.pk), fields={"source": "fair"}
    )
    acme_client.force_login(people["viewer"])

    history = page_of(acme_client, f"/settings/contacts/{contact.pk}/").split('data-section="history"')[1]
    rows = [row for row in history.split("<tr")[2:]]
    created, by_mcp, by_gateway, by_admin = rows[::-1][:4]
    assert 'data-event="created"' in created and "member@acme.example" in created
    assert "an agent over MCP" in by_mcp and "test client" in by_mcp and "updateContact" in by_mcp
    assert "Leeds → York" in by_mcp
    assert "gateway" in by_gateway and "Support desk key" in by_gateway and "Curator" in by_gateway
    assert "admin@acme.example" in by_admin and "fair" in by_admin and "agent" not in by_admin


@pytest.mark.parametrize(
    "query",
    [
        "page=abc",
        "page=-1",
        "page=999999999999999999999",
        "kind=robot",
        "stage=%00",
        "show=everything",
        "q=%25_%27%22%5C",
        "q=++++",
        "q=a&q=b",
        "q=" + "x" * 200,
    ],
)
def test_odd_query_strings_answer_the_list(acme_client, people, query):
    acme_client.force_login(people["viewer"])

    assert "<h1>Contacts</h1>" in page_of(acme_client, f"/settings/contacts/?{query}")


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("q=" + "x" * 201, "A search is at most 200 characters long."),
        ("q=a%00b", "cannot hold a NUL character"),
    ],
)
def test_a_search_it_cannot_run_is_a_clear_400(acme_client, people, query, message):
    acme_client.force_login(people["viewer"])

    assert message in page_of(acme_client, f"/settings/contacts/?{query}", 400)


def test_the_detail_pages_its_history_and_takes_odd_page_numbers(acme_client, people):
    contact = ContactFactory(actor=people["member"], first_name="Pagina")
    for number in range(35):
        services.contact_update(actor=people["member"], contact=contact, fields={"city": f"Town {number}"})
    acme_client.force_login(people["viewer"])

    first = page_of(acme_client, f"/settings/contacts/{contact.pk}/")
    assert "Town 34" in first and 'data-event="created"' not in first
    assert 'data-event="created"' in page_of(acme_client, f"/settings/contacts/{contact.pk}/?page=2")
    assert "Pagina" in page_of(acme_client, f"/settings/contacts/{contact.pk}/?page=zzz")

"""Creating, reading, changing and finding contacts through call_tool: per tool a normal call, a
bad input and a refusal."""

import pytest

from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import call, person_without, structured
from apps.contacts.models import Contact, ContactConflict, ContactEvent, OwnershipChange
from apps.contacts.tests.factories import ContactFactory, OrganisationFactory
from apps.core.kinds.testing import without_areas


def ok(user, name, arguments=None, **context):
    return structured(call(user, name, arguments or {}, **context))


def refused(user, name, arguments=None):
    result = call(user, name, arguments or {})
    assert result["isError"] is True, result
    return result["content"][0]["text"]


# --- createContact ------------------------------------------------------------------------------


def test_create_contact_stores_a_person_with_normalised_fields(people):
    answer = ok(
        people["member"],
        "createContact",
        {
            "contact": {
                "firstName": " Ada ",
                "lastName": "Lovelace",
                "email": "ADA@Example.ORG",
                "phone": "020 7183 8750",
                "country": "United Kingdom",
                "website": "ada.example.org",
                "tags": ["VIP", "vip", "mathematics"],
                "lifecycleStage": "customer",
                "data": {"industry": "computing"},
            }
        },
    )

    contact = Contact.objects.get(pk=answer["contact"]["id"])
    assert (contact.first_name, contact.email, contact.phone, contact.country) == (
        "Ada",
        "ada@example.org",
        "+442071838750",
        "GB",
    )
    assert contact.website == "https://ada.example.org"
    assert contact.tags == ["vip", "mathematics"]
    assert contact.data == {"industry": "computing"}
    assert contact.owner == people["member"]
    assert answer["contact"]["yourAccess"] == "owner"
    assert answer["possibleDuplicates"] == []
    assert ContactEvent.objects.filter(contact=contact, kind="created").exists()
    assert OwnershipChange.objects.get(contact=contact).new_owner == people["member"]


def test_create_contact_flags_possible_duplicates(people):
    first = ContactFactory(actor=people["member"], email="grace@navy.example")

    answer = ok(
        people["member"], "createContact", {"contact": {"firstName": "G", "email": "Grace@navy.example"}}
    )

    [duplicate] = answer["possibleDuplicates"]
    assert duplicate["other"]["id"] == first.pk
    assert duplicate["reason"] == "same_email"
    assert ContactConflict.objects.filter(status="open").count() == 1


def test_create_contact_refuses_bad_values_and_writes_nothing(people):
    for fields, field in [
        ({"firstName": "A", "email": "not-an-address"}, "email"),
        ({"firstName": "A", "phone": "12"}, "phone"),
        ({"firstName": "A", "country": "Atlantis"}, "country"),
        ({"kind": "organisation"}, "organisation_name"),
        ({"jobTitle": "CEO"}, "first_name"),
        ({"firstName": "A", "ownerEmail": "nobody@acme.example"}, "nobody@acme.example"),
    ]:
        message = refused(people["member"], "createContact", {"contact": fields})
        assert field in message or field.replace("_", "") in message.lower(), message
    assert not Contact.objects.exists()


def test_create_contact_asks_for_an_international_number_without_a_country(people):
    message = refused(
        people["member"], "createContact", {"contact": {"firstName": "A", "phone": "020 7183 8750"}}
    )

    assert "international form" in message


def test_viewers_cannot_create_contacts(people):
    with pytest.raises(ToolNotFound):
        call(people["viewer"], "createContact", {"contact": {"firstName": "A"}})


# --- getContact ---------------------------------------------------------------------------------


def test_get_contact_returns_every_field(people):
    organisation = OrganisationFactory(actor=people["member"], organisation_name="Analytical Engines")
    contact = ContactFactory(
        actor=people["member"], first_name="Ada", organisation_id=organisation.pk, city="London"
    )

    answer = ok(people["viewer"], "getContact", {"contactId": contact.pk})

    assert answer["displayName"] == "Ada"
    assert answer["organisation"] == {
        "id": organisation.pk,
        "kind": "organisation",
        "displayName": "Analytical Engines",
    }
    assert answer["address"]["city"] == "London"
    assert answer["owner"]["email"] == "member@acme.example"
    assert answer["yourAccess"] == "view"
    assert answer["health"] == "healthy"


def test_get_contact_of_an_unknown_id_says_how_to_find_it(people):
    message = refused(people["viewer"], "getContact", {"contactId": 987654})

    assert "Contact 987654 was not found" in message and "searchContacts" in message


def test_a_private_contact_is_not_found_for_others_but_seen_when_shared(people):
    contact = ContactFactory(actor=people["member"], visibility="private")

    assert "was not found" in refused(people["viewer"], "getContact", {"contactId": contact.pk})
    assert ok(people["admin"], "getContact", {"contactId": contact.pk})["yourAccess"] == "admin"
    ok(people["member"], "shareContact", {"contactId": contact.pk, "personEmail": "viewer@acme.example"})
    assert ok(people["viewer"], "getContact", {"contactId": contact.pk})["yourAccess"] == "view"


def test_visibility_is_workspace_or_private_as_in_every_area(people):
    created = ok(people["member"], "createContact", {"contact": {"firstName": "Vis"}})
    private = ok(
        people["member"], "createContact", {"contact": {"firstName": "Priv", "visibility": "private"}}
    )

    assert (created["contact"]["visibility"], private["contact"]["visibility"]) == ("workspace", "private")
    assert "visibility" in refused(
        people["member"], "createContact", {"contact": {"firstName": "Old", "visibility": "everyone"}}
    )


def test_a_contact_shared_to_view_is_read_only(people):
    contact = ContactFactory(actor=people["admin"], visibility="private", city="Leeds")
    ok(people["admin"], "shareContact", {"contactId": contact.pk, "personEmail": "member@acme.example"})

    assert ok(people["member"], "getContact", {"contactId": contact.pk})["yourAccess"] == "view"
    message = refused(
        people["member"], "updateContact", {"contactId": contact.pk, "changes": {"city": "York"}}
    )

    assert f"You can see contact {contact.pk} but not change it" in message
    assert Contact.objects.get(pk=contact.pk).city == "Leeds"
    ok(
        people["admin"],
        "shareContact",
        {"contactId": contact.pk, "personEmail": "member@acme.example", "access": "edit"},
    )
    ok(people["member"], "updateContact", {"contactId": contact.pk, "changes": {"city": "York"}})
    assert Contact.objects.get(pk=contact.pk).city == "York"


def test_a_viewer_of_contacts_cannot_change_one_even_shared_to_edit(people):
    from apps.contacts import services
    from apps.core.errors import Forbidden

    viewer = people["viewer"]
    contact = ContactFactory(actor=people["member"], visibility="private")
    ok(
        people["member"],
        "shareContact",
        {"contactId": contact.pk, "personEmail": viewer.email, "access": "edit"},
    )

    assert ok(viewer, "getContact", {"contactId": contact.pk})["yourAccess"] == "view"
    assert not Contact.objects.restrict(viewer, "change").filter(pk=contact.pk).exists()
    with pytest.raises(Forbidden, match="may see contacts but not change them"):
        Contact.objects.fetch(viewer, contact.pk, "change")
    with pytest.raises(Forbidden):
        services.contact_update(actor=viewer, contact=contact, fields={"city": "York"})
    with pytest.raises(ToolNotFound):
        call(viewer, "updateContact", {"contactId": contact.pk, "changes": {"city": "York"}})


def test_an_archived_contact_is_reported_as_archived(people):
    from apps.contacts import services

    contact = ContactFactory(actor=people["admin"])
    services.contact_delete(actor=people["admin"], contact=contact)

    assert "is archived" in refused(people["viewer"], "getContact", {"contactId": contact.pk})
    assert ok(people["viewer"], "getContact", {"contactId": contact.pk, "includeArchived": True})[
        "archivedAt"
    ]


def test_get_contact_is_refused_to_a_role_without_contacts(acme):
    person = person_without("contacts.view", email="blind@acme.example")

    with pytest.raises(ToolNotFound):
        call(person, "getContact", {"contactId": 1})


# --- updateContact ------------------------------------------------------------------------------


def test_update_contact_changes_only_what_is_sent_and_keeps_history(people):
    contact = ContactFactory(
        actor=people["member"], first_name="Ada", city="London", data={"industry": "computing"}
    )

    answer = ok(
        people["member"],
        "updateContact",
        {
            "contactId": contact.pk,
            "changes": {"city": "Paris", "jobTitle": None, "data": {"tier": "gold", "industry": None}},
        },
    )

    contact.refresh_from_db()
    assert (contact.first_name, contact.city) == ("Ada", "Paris")
    assert contact.data == {"tier": "gold"}
    assert answer["changed"] == ["city", "data"]
    event = ContactEvent.objects.filter(contact=contact, kind="updated").get()
    assert event.changes["city"] == ["London", "Paris"]


def test_update_contact_can_hand_it_to_another_owner(people):
    contact = ContactFactory(actor=people["member"])

    ok(
        people["member"],
        "updateContact",
        {"contactId": contact.pk, "changes": {"ownerEmail": "admin@acme.example"}},
    )

    contact.refresh_from_db()
    assert contact.owner == people["admin"]
    assert OwnershipChange.objects.filter(contact=contact).count() == 2


def test_update_contact_refuses_a_bad_value_and_changes_nothing(people):
    contact = ContactFactory(actor=people["member"], email="ok@example.org", city="London")

    message = refused(
        people["member"],
        "updateContact",
        {"contactId": contact.pk, "changes": {"city": "Paris", "email": "nope"}},
    )

    contact.refresh_from_db()
    assert "email" in message
    assert (contact.city, contact.email) == ("London", "ok@example.org")


def test_a_private_contact_shared_for_viewing_cannot_be_changed(people):
    contact = ContactFactory(actor=people["admin"], visibility="private")
    ok(people["admin"], "shareContact", {"contactId": contact.pk, "personEmail": "member@acme.example"})

    message = refused(
        people["member"], "updateContact", {"contactId": contact.pk, "changes": {"city": "Paris"}}
    )

    assert "share it with you with edit access" in message


def test_viewers_cannot_update_contacts(people):
    with pytest.raises(ToolNotFound):
        call(people["viewer"], "updateContact", {"contactId": 1, "changes": {}})


# --- listContacts, searchContacts, queryContacts ------------------------------------------------


@pytest.fixture
def crowd(people):
    member = people["member"]
    acme_org = OrganisationFactory(actor=member, organisation_name="Acme Rockets")
    return {
        "ada": ContactFactory(
            actor=member,
            first_name="Ada",
            last_name="Lovelace",
            email="ada@engines.example",
            city="London",
            tags=["vip"],
            lifecycle_stage="customer",
            organisation_id=acme_org.pk,
            data={"tier": "gold", "seats": 12},
        ),
        "alan": ContactFactory(
            actor=member,
            first_name="Alan",
            last_name="Turing",
            email="alan@bletchley.example",
            city="Manchester",
            lifecycle_stage="customer",
            data={"tier": "silver", "seats": 3},
        ),
        "grace": ContactFactory(
            actor=people["admin"],
            first_name="Grace",
            last_name="Hopper",
            city="Arlington",
            tags=["vip", "navy"],
            phone="+1 202 555 0101",
        ),
        "org": acme_org,
    }


def test_list_contacts_pages_with_filters(people, crowd):
    first = ok(people["viewer"], "listContacts", {"limit": 2})
    second = ok(people["viewer"], "listContacts", {"limit": 2, "offset": first["nextOffset"]})

    assert first["total"] == 4
    assert [item["displayName"] for item in first["items"] + second["items"]] == [
        "Acme Rockets",
        "Grace Hopper",
        "Ada Lovelace",
        "Alan Turing",
    ]
    assert second["nextOffset"] is None
    vip = ok(people["viewer"], "listContacts", {"tag": "VIP", "ownerEmail": "member@acme.example"})
    assert [item["id"] for item in vip["items"]] == [crowd["ada"].pk]
    people_of_org = ok(people["viewer"], "listContacts", {"organisationId": crowd["org"].pk})
    assert [item["company"] for item in people_of_org["items"]] == ["Acme Rockets"]


def test_list_contacts_refuses_an_unknown_sort(people):
    assert "`sort`" in refused(people["viewer"], "listContacts", {"sort": "shoe size"})


def test_search_contacts_ranks_an_exact_email_first(people, crowd):
    answer = ok(people["viewer"], "searchContacts", {"query": "alan@bletchley.example"})

    assert answer["items"][0]["id"] == crowd["alan"].pk


def test_search_contacts_matches_every_word_across_fields(people, crowd):
    found = ok(people["viewer"], "searchContacts", {"query": "grace navy"})
    by_phone = ok(people["viewer"], "searchContacts", {"query": "5550101"})

    assert [item["id"] for item in found["items"]] == [crowd["grace"].pk]
    assert [item["id"] for item in by_phone["items"]] == [crowd["grace"].pk]


def test_search_contacts_needs_words(people):
    assert "`query`" in refused(people["viewer"], "searchContacts", {"query": ""})
    assert "at least one word" in refused(people["viewer"], "searchContacts", {"query": "   "})


def test_query_contacts_combines_conditions_on_fields_and_business_data(people, crowd):
    answer = ok(
        people["viewer"],
        "queryContacts",
        {
            "filters": [
                {"field": "lifecycleStage", "op": "eq", "value": "customer"},
                {"field": "data.seats", "op": "gte", "value": 10},
            ]
        },
    )
    either = ok(
        people["viewer"],
        "queryContacts",
        {
            "match": "any",
            "filters": [
                {"field": "city", "op": "startsWith", "value": "man"},
                {"field": "tags", "op": "contains", "value": "navy"},
            ],
        },
    )
    recent = ok(
        people["viewer"], "queryContacts", {"filters": [{"field": "health", "op": "eq", "value": "healthy"}]}
    )

    assert [item["id"] for item in answer["items"]] == [crowd["ada"].pk]
    assert {item["id"] for item in either["items"]} == {crowd["alan"].pk, crowd["grace"].pk}
    assert recent["total"] == 4


def test_query_contacts_explains_a_wrong_condition(people):
    unknown = refused(
        people["viewer"], "queryContacts", {"filters": [{"field": "shoeSize", "op": "eq", "value": 9}]}
    )
    wrong_op = refused(
        people["viewer"], "queryContacts", {"filters": [{"field": "kind", "op": "gt", "value": "x"}]}
    )
    bad_date = refused(
        people["viewer"],
        "queryContacts",
        {"filters": [{"field": "createdAt", "op": "gt", "value": "yesterday"}]},
    )

    assert "'shoeSize' is not a field" in unknown
    assert "'gt' does not apply to kind" in wrong_op
    assert "is not a date-time" in bad_date


def test_listing_tools_are_refused_to_a_role_without_contacts(acme):
    person = person_without("contacts.view", email="blind@acme.example")

    for name, arguments in [
        ("listContacts", {}),
        ("searchContacts", {"query": "a"}),
        ("queryContacts", {"filters": [{"field": "city", "op": "eq", "value": "x"}]}),
        ("lookupCountry", {"query": "de"}),
        ("examineContact", {"contactId": 1}),
    ]:
        with pytest.raises(ToolNotFound):
            call(person, name, arguments)


# --- lookupCountry ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "alpha2"),
    [
        ("Germany", "DE"),
        ("deu", "DE"),
        ("276", "DE"),
        ("+44", "GB"),
        ("united king", "GB"),
        ("Cote d'Ivoire", "CI"),
    ],
)
def test_lookup_country_finds_countries_by_name_code_or_calling_code(people, query, alpha2):
    answer = ok(people["viewer"], "lookupCountry", {"query": query})

    assert answer["matches"][0]["alpha2"] == alpha2


def test_lookup_country_gives_the_codes_and_calling_code(people):
    [germany] = ok(people["viewer"], "lookupCountry", {"query": "DE"})["matches"]

    assert germany == {
        "alpha2": "DE",
        "alpha3": "DEU",
        "numeric": "276",
        "name": "Germany",
        "officialName": "Federal Republic of Germany",
        "callingCode": 49,
        "flag": "🇩🇪",
    }


def test_lookup_country_finds_nothing_for_nonsense_and_refuses_an_empty_query(people):
    assert ok(people["viewer"], "lookupCountry", {"query": "Qqqqxz"})["matches"] == []
    assert "`query`" in refused(people["viewer"], "lookupCountry", {"query": ""})


# --- examineContact -----------------------------------------------------------------------------


def test_examine_contact_gathers_everything_and_says_what_is_not_installed(people, crowd):
    ok(
        people["member"],
        "updateKeyContacts",
        {"contactId": crowd["org"].pk, "keyContacts": [{"contactId": crowd["ada"].pk, "role": "CEO"}]},
    )

    with without_areas("documents", "files", "calendars"):
        answer = ok(people["viewer"], "examineContact", {"contactId": crowd["org"].pk})

    assert answer["contact"]["keyContacts"][0]["contact"]["id"] == crowd["ada"].pk
    assert [person["id"] for person in answer["people"]] == [crowd["ada"].pk]
    assert answer["health"]["basis"] == "activity"
    assert [event["kind"] for event in answer["recentHistory"]] == ["key_contacts_updated", "created"]
    assert answer["attachments"]["available"] is False
    assert "Neither the Documents nor the Files area is installed" in answer["attachments"]["reason"]
    assert answer["upcomingEvents"]["available"] is False
    assert answer["lastCreditCheck"] is None


def test_examine_contact_refuses_a_bad_id(people):
    assert "`contactId`" in refused(people["viewer"], "examineContact", {"contactId": 0})

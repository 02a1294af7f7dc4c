"""Prepared querysets (apps.core.prepared): the same rows and model instances as the queryset,
compiled once per shape, run in the current workspace's schema, and refused at once when a value
cannot be substituted after compiling. On Contacts, whose rows have JSON, arrays and a user."""

import pytest
from django.contrib.postgres.aggregates import JSONBAgg
from django.db import connection
from django.db.models import Exists, JSONField, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce, ExtractYear, JSONObject
from django.db.models.signals import post_init
from django.test.utils import CaptureQueriesContext
from django_tenants.utils import schema_context

from apps.accounts.models import User
from apps.contacts.models import Contact, ContactShare
from apps.contacts.tests.factories import ContactFactory
from apps.core.prepared import NotPreparable, Prepared, _qualified


def by_owner(with_owner: bool, *, owner_id: int, email: str):  # type: ignore[no-untyped-def]
    rows = Contact.objects.filter(Q(owner_id=owner_id) | Q(email=email)).order_by("id")
    return rows.select_related("owner") if with_owner else rows


def test_the_rows_are_the_querysets_with_their_related_objects_and_converted_values(people):
    member = people["member"]
    ada = ContactFactory(
        actor=member, first_name="Ada", email="ada@example.org", tags=["vip"], data={"tier": "gold"}
    )
    ContactFactory(actor=people["admin"], first_name="Grace", email="grace@example.org")
    prepared = Prepared(by_owner)

    found = prepared(True, owner_id=member.pk, email="grace@example.org")
    expected = list(by_owner(True, owner_id=member.pk, email="grace@example.org"))

    assert [row.pk for row in found] == [row.pk for row in expected] and len(found) == 2
    first = next(row for row in found if row.pk == ada.pk)
    assert (first.first_name, first.tags, first.data) == ("Ada", ["vip"], {"tier": "gold"})
    with CaptureQueriesContext(connection) as captured:
        assert first.owner.email == member.email  # loaded with the row
    assert captured.captured_queries == []
    first.first_name = "Augusta"
    first.save(update_fields=["first_name"])  # a real model instance, saved as usual
    assert Contact.objects.get(pk=ada.pk).first_name == "Augusta"


def instance_state(obj):  # type: ignore[no-untyped-def]
    fields = {key: value for key, value in vars(obj).items() if key != "_state"}
    return fields, obj._state.adding, obj._state.db


def test_an_instance_made_from_a_row_is_what_django_makes_of_it(people, monkeypatch):
    member = people["member"]
    ContactFactory(actor=member, first_name="Ada", tags=["vip"], data={"tier": "gold"})
    prepared = Prepared(by_owner)
    expected = [instance_state(row) for row in by_owner(False, owner_id=member.pk, email="-")]
    assert expected

    # Made by filling the instance's attributes at once (no per-field setattr through __init__)...
    made = prepared(False, owner_id=member.pk, email="-")
    assert [instance_state(row) for row in made] == expected
    assert all(type(row) is Contact and not row._state.adding for row in made)
    assert [compiled.plain is not None for compiled in prepared._compiled.values()] == [True]

    # ...and through Django's own from_db whenever something listens as instances are made.
    seen: list[int] = []
    receiver = lambda sender, instance, **kwargs: seen.append(instance.pk)  # noqa: E731
    post_init.connect(receiver, sender=Contact)
    try:
        again = prepared(False, owner_id=member.pk, email="-")
    finally:
        post_init.disconnect(receiver, sender=Contact)
    assert [instance_state(row) for row in again] == expected
    assert seen == [row.pk for row in again]


def test_a_related_instance_made_from_a_row_is_what_django_makes_of_it(people):
    member = people["member"]
    ContactFactory(actor=member, first_name="Ada")
    prepared = Prepared(by_owner)
    expected = list(by_owner(True, owner_id=member.pk, email="-"))
    assert expected

    made = prepared(True, owner_id=member.pk, email="-")

    assert [instance_state(row.owner) for row in made] == [instance_state(row.owner) for row in expected]
    assert all(type(row.owner) is User for row in made)
    (compiled,) = prepared._compiled.values()
    assert [related.plain is not None for related in compiled.populators] == [True]  # the fast path


def test_an_instance_with_fields_left_out_is_made_by_django(people):
    member = people["member"]
    ContactFactory(actor=member, first_name="Ada")
    prepared = Prepared(
        lambda *, owner_id: Contact.objects.filter(owner_id=owner_id).only("id", "first_name")
    )

    (made,) = prepared(owner_id=member.pk)
    assert made.get_deferred_fields() and made.first_name == "Ada"


def test_each_shape_is_built_and_compiled_once_and_values_change_per_call(people):
    built = []

    def build(with_owner, *, owner_id, email):  # type: ignore[no-untyped-def]
        built.append(with_owner)
        return by_owner(with_owner, owner_id=owner_id, email=email)

    prepared = Prepared(build)
    mine = ContactFactory(actor=people["member"], email="mine@example.org")
    theirs = ContactFactory(actor=people["admin"], email="theirs@example.org")

    assert [c.pk for c in prepared(False, owner_id=people["member"].pk, email="none")] == [mine.pk]
    assert [c.pk for c in prepared(False, owner_id=people["admin"].pk, email="none")] == [theirs.pk]
    assert [c.pk for c in prepared(True, owner_id=0, email="theirs@example.org")] == [theirs.pk]
    assert built == [False, True]


def test_it_runs_in_the_workspace_active_when_it_is_called(people, globex):
    prepared = Prepared(lambda *, email: Contact.objects.filter(email=email))
    ContactFactory(actor=people["member"], email="same@example.org", first_name="Acme's")
    assert [c.first_name for c in prepared(email="same@example.org")] == ["Acme's"]

    with schema_context("globex"):
        owner = User.objects.order_by("id").first()
        ContactFactory(actor=owner, email="same@example.org", first_name="Globex's")
        assert [c.first_name for c in prepared(email="same@example.org")] == ["Globex's"]


def prepared_on_the_server(sql_start: str) -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements WHERE NOT from_sql")
        return [row[0] for row in cursor.fetchall() if row[0].startswith(sql_start)]


def test_postgresql_prepares_it_and_still_runs_it_in_each_workspace(people, globex):
    prepared = Prepared(lambda *, email: Contact.objects.filter(email=email).only("id", "first_name"))
    ContactFactory(actor=people["member"], email="twice@example.org", first_name="Acme's")
    with schema_context("globex"):
        ContactFactory(
            actor=User.objects.order_by("id").first(), email="twice@example.org", first_name="Globex's"
        )
    runs = connection.connection.prepare_threshold + 1

    for _ in range(runs):
        assert [c.first_name for c in prepared(email="twice@example.org")] == ["Acme's"]
    # Bound on the server ($1, no value in the text) and prepared once the threshold was passed.
    statements = prepared_on_the_server('SELECT "contacts_contact"."id", "contacts_contact"."first_name"')
    assert len(statements) == 1 and "$1" in statements[0] and "twice@" not in statements[0]

    # The prepared statement follows the search_path: another workspace gets its own rows.
    with schema_context("globex"):
        for _ in range(runs):
            assert [c.first_name for c in prepared(email="twice@example.org")] == ["Globex's"]
    assert [c.first_name for c in prepared(email="twice@example.org")] == ["Acme's"]


def test_a_value_its_lookup_changes_is_refused_when_prepared(acme):
    prepared = Prepared(lambda *, text: Contact.objects.filter(first_name__icontains=text))

    with pytest.raises(NotPreparable, match="changed on its way"):
        prepared(text="ada")


def test_a_value_the_builder_changes_is_refused(acme):
    prepared = Prepared(lambda *, contact_id: Contact.objects.filter(pk=contact_id + 1))

    with pytest.raises(NotPreparable, match="changed on its way"):
        prepared(contact_id=4)


def test_a_shape_may_leave_a_value_out(people):
    contact = ContactFactory(actor=people["member"])
    prepared = Prepared(
        lambda everyone, *, contact_id, owner_id: (
            Contact.objects.filter(pk=contact_id)
            if everyone
            else Contact.objects.filter(pk=contact_id, owner_id=owner_id)
        )
    )

    assert [c.pk for c in prepared(True, contact_id=contact.pk, owner_id=0)] == [contact.pk]
    assert prepared(False, contact_id=contact.pk, owner_id=0) == []


def test_only_integers_and_strings_are_values(acme):
    prepared = Prepared(lambda *, flag: Contact.objects.filter(first_name="x"))

    with pytest.raises(NotPreparable, match="only integers and strings"):
        prepared(flag=True)


def with_shares(*, owner_id: int):  # type: ignore[no-untyped-def]
    shares = (
        ContactShare.objects.filter(item_id=OuterRef("pk"))
        .order_by()
        .values("item_id")
        .annotate(rows=JSONBAgg(JSONObject(email="user__email", access="access"), order_by="user__email"))
        .values("rows")
    )
    return (
        Contact.objects.filter(owner_id=owner_id)
        .annotate(
            shares_read=Coalesce(Subquery(shares), Value([], output_field=JSONField())),
            shared=Exists(ContactShare.objects.filter(item_id=OuterRef("pk"))),
        )
        .select_related("owner")
        .order_by("id")
    )


def test_annotations_come_converted_as_the_querysets_own(people):
    member = people["member"]
    shared = ContactFactory(actor=member, first_name="Shared", data={"tier": "gold"})
    alone = ContactFactory(actor=member, first_name="Alone")
    for user, access in ((people["viewer"], "view"), (people["admin"], "edit")):
        ContactShare.objects.create(item=shared, user=user, access=access)
    prepared = Prepared(with_shares)

    found = prepared(owner_id=member.pk)
    expected = list(with_shares(owner_id=member.pk))

    assert [(c.pk, c.shares_read, c.shared) for c in found] == [
        (c.pk, c.shares_read, c.shared) for c in expected
    ]
    first, second = found
    assert (first.pk, second.pk) == (shared.pk, alone.pk)
    # The JSON aggregate is decoded (JSONField.from_db_value), the empty one is [] not NULL.
    assert first.shares_read == [
        {"email": "admin@acme.example", "access": "edit"},
        {"email": "viewer@acme.example", "access": "view"},
    ]
    assert (second.shares_read, first.shared, second.shared) == ([], True, False)
    assert first.data == {"tier": "gold"} and first.owner.email == member.email


def test_the_builders_constants_are_written_into_the_sql_and_only_the_calls_values_are_sent(people):
    member = people["member"]
    odd_name = "50% o'clock \\ %s"
    wanted = ContactFactory(actor=member, first_name=odd_name, data={"tier": "gold"})
    ContactFactory(actor=member, first_name=odd_name, data={"tier": "tin"})
    ContactFactory(actor=member, first_name="Plain", data={"tier": "gold"})
    prepared = Prepared(
        lambda *, owner_id: Contact.objects.filter(owner_id=owner_id, first_name=odd_name, data__tier="gold")
    )

    assert [row.pk for row in prepared(owner_id=member.pk)] == [wanted.pk]
    assert prepared(owner_id=people["admin"].pk) == []
    (compiled,) = prepared._compiled.values()
    assert len(compiled.params) == 1 and compiled.slots == ((0, "owner_id"),)
    assert "'50%% o''clock" in compiled.sql  # a literal, its percent signs kept from psycopg
    assert "'50% o''clock \\\\ %s'" in compiled.loop_sql  # for the loop's raw cursor: as it is


def test_for_the_loop_its_workspace_tables_are_where_the_schema_goes_and_nothing_else(people):
    # A join, a subquery of the same table under an alias, EXTRACT(... FROM a column).
    prepared = Prepared(
        lambda *, pk: (
            Contact.objects.annotate(year=ExtractYear("created_at"))
            .filter(pk=pk)
            .exclude(notes='FROM "contacts_contact"')
            .filter(Exists(Contact.objects.filter(pk=OuterRef("pk"))))
            .select_related("owner")
        )
    )
    compiled = prepared._compile((), {"pk": 1}, "default")

    assert compiled.qualified is not None
    statement = '"acme".'.join(compiled.qualified)
    assert statement.count('FROM "acme"."contacts_contact"') == 2
    assert statement.count('JOIN "acme"."accounts_user"') == 1
    assert 'EXTRACT(YEAR FROM "contacts_contact"."created_at"' in statement  # a column: left alone
    assert "'FROM \"contacts_contact\"'" in statement  # a constant: left alone
    assert "".join(compiled.qualified) == compiled.loop_sql  # the loop's, unqualified
    # The thread's, but for PostgreSQL's placeholders: the one value is $1.
    assert compiled.sql.count("%s") == 1 and compiled.loop_sql == compiled.sql.replace("%s", "$1")


def test_a_table_of_no_model_is_never_qualified(acme):
    # Neither a workspace's nor the public schema's: found through the search path as it is.
    assert "\x01" in _qualified('SELECT 1 FROM "somewhere_else" WHERE 1 = %s')
    public_only = 'SELECT 1 FROM "tenancy_domain" WHERE 1 = %s'
    assert _qualified(public_only) == public_only

"""Group accounts through the Platform's import and export tools (apps/groupaccounts/transfer.py),
called through the catalogue's dispatcher: an export by two roles (an archived account absent), an
import validated (problems by row and column, nothing made) then committed twice with one effect,
an account of the same name found as a duplicate and not as a problem, and a role that may not
make group accounts refused."""

import csv
import io

from apps.catalogue.testing import ok, person_without, refused
from apps.groupaccounts import services
from apps.groupaccounts.models import GroupAccount
from apps.groupaccounts.tests.factories import GroupAccountFactory
from apps.platform.models import DataImport
from apps.platform.tests.test_transfer_tools import _commit, _validate


def _export(user, query):
    answer = ok(user, "exportDataCsv", {"entityType": "group_account", "query": query})
    return list(csv.DictReader(io.StringIO(answer["csvText"])))


def test_an_export_holds_the_live_accounts_for_each_role(people):
    GroupAccountFactory(
        actor=people["member"],
        name="Exportmarker Holdings",
        kind="supplier",
        email_domains=["holdings.example", "hold.example"],
        tags=["vip", "north"],
        website="holdings.example",
    )
    GroupAccountFactory(actor=people["member"], name="@Exportmarker Formula")
    gone = GroupAccountFactory(actor=people["member"], name="Exportmarker Archived")
    services.account_delete(actor=people["admin"], account=gone)

    for role in ("member", "viewer"):
        rows = _export(people[role], "Exportmarker")

        assert sorted(row["name"] for row in rows) == ["'@Exportmarker Formula", "Exportmarker Holdings"]
        holdings = next(row for row in rows if row["name"] == "Exportmarker Holdings")
        assert list(holdings)[:3] == ["id", "name", "kind"]
        assert (holdings["kind"], holdings["emailDomains"], holdings["tags"], holdings["ownerEmail"]) == (
            "supplier",
            "holdings.example, hold.example",
            "vip; north",
            "member@acme.example",
        )
        assert holdings["website"] == "https://holdings.example"


def test_an_import_is_checked_by_row_and_column_then_made_once(people):
    held = GroupAccountFactory(actor=people["admin"], name="Importmarker Held")
    before = GroupAccount.objects.count()
    text = (
        "Name,kind,industry,website,email domains,ownerEmail,tags\n"
        'Importmarker One,partner,Engines,one.example,"one.example, uno.example",'
        "admin@acme.example,vip;east\n"  # 2: fine
        "Importmarker Two,friend,,,,,\n"  # 3: kind
        "Importmarker Three,,,not a site,,,\n"  # 4: website
        "Importmarker Four,,,,not_a_domain,,\n"  # 5: domain
        "Importmarker Five,,,,,nobody@acme.example,\n"  # 6: owner
        ",customer,,,,,\n"  # 7: no name
        "importmarker   ONE,,,,,,\n"  # 8: repeats row 2
        "IMPORTMARKER HELD,supplier,,,,,\n"  # 9: an account we have
        "Importmarker Six,,,,,,\n"  # 10: fine
    )

    plan = _validate(people["member"], text, kind="group_account")

    problems = {(p["row"], p["column"]) for p in plan["problems"]}
    assert problems == {(3, "kind"), (4, "website"), (5, "emailDomains"), (6, "ownerEmail"), (7, "name")}
    assert all(p["problem"] for p in plan["problems"])
    assert [(d["row"], d["key"], d["ofRow"], d["existingId"]) for d in plan["duplicates"]] == [
        (8, "name:importmarker one", 2, None),
        (9, "name:importmarker held", None, held.pk),
    ]
    assert (plan["toImport"], plan["invalidRows"]) == (2, 5)
    assert GroupAccount.objects.count() == before

    first = _commit(people["member"], plan["token"], skipInvalidRows=True)
    again = _commit(people["member"], plan["token"], skipInvalidRows=True)

    made = list(GroupAccount.objects.filter(pk__in=first["createdIds"]).order_by("id"))
    assert [account.pk for account in made] == again["createdIds"] and again["alreadyCommitted"] is True
    one, six = made
    assert (one.name, one.kind, one.industry, one.website, one.email_domains, one.tags, one.owner) == (
        "Importmarker One",
        "partner",
        "Engines",
        "https://one.example",
        ["one.example", "uno.example"],
        ["vip", "east"],
        people["admin"],
    )
    assert (six.kind, six.owner, six.created_by) == ("customer", people["member"], people["member"])
    assert GroupAccount.objects.count() == before + 2


def test_a_role_that_may_not_make_group_accounts_may_not_import_them(people):
    person = person_without("groupaccounts.edit", email="no-groupaccounts-edit@acme.example")
    text = "name\nRefusedmarker Ltd\n"

    assert "permission" in refused(
        person, "validateDataImport", {"entityType": "group_account", "csvText": text}
    )
    assert not GroupAccount.objects.filter(name="Refusedmarker Ltd").exists()
    assert not DataImport.objects.filter(created_by=person).exists()

"""The company register: due dates by the UK rules, companies typed in or read from a loopback
Companies House (its shape, key, 404 and rate limit), filings marked filed opening the next of
their cycle, reminders at the chosen lead times, corporate events and the notices they owe,
domains, personal data; per tool a normal call, bad input and a refusal."""

import io
import json
from datetime import date

import pytest
from django.test import override_settings
from django.utils import timezone

from apps.accounting import tasks
from apps.accounting.models import CompanyPerson, Filing, RegisteredCompany
from apps.accounting.services import register
from apps.accounting.tests.factories import registered_company
from apps.accounting.tests.samples import acc_ok as ok
from apps.accounting.tests.samples import acc_refused as refused
from apps.accounting.tests.servers import REGISTER_KEY, Register, companies_house, register_company
from apps.catalogue.dispatch import MemorySession, ToolNotFound
from apps.catalogue.testing import call, person_without
from apps.datarights.personal_data import personal_data_erase, personal_data_export
from apps.notifications.models import Notification

pytestmark = pytest.mark.django_db
TODAY = date(2026, 11, 26)


@pytest.fixture(autouse=True)
def today(monkeypatch):
    """Due dates are computed from today: the tests fix it."""
    monkeypatch.setattr(timezone, "localdate", lambda *args, **kwargs: TODAY)


def due(answer):
    """{form: (made up to, due)} of a list of filings."""
    return {f["form"]: (f["periodEnd"], f["dueOn"]) for f in answer}


@pytest.mark.parametrize(
    ("company_type", "kind", "period_end", "expected"),
    [
        ("ltd", "confirmation_statement", date(2025, 5, 13), date(2025, 5, 27)),
        ("ltd", "accounts", date(2025, 3, 31), date(2025, 12, 31)),
        ("plc", "accounts", date(2025, 3, 31), date(2025, 9, 30)),
        # From a month's last day to the last day of the month (s443): not 28 November.
        ("ltd", "accounts", date(2025, 2, 28), date(2025, 11, 30)),
        # The first period, longer than 12 months: 21 months from incorporation (s442(3)).
        ("ltd", "accounts", date(2025, 1, 31), date(2025, 10, 15)),
        ("plc", "accounts", date(2025, 1, 31), date(2025, 7, 15)),
        ("ltd", "corporation_tax", date(2025, 3, 31), date(2026, 1, 1)),
        ("ltd", "tax_return", date(2025, 3, 31), date(2026, 3, 31)),
    ],
)
def test_due_dates_follow_the_uk_rules(company_type, kind, period_end, expected):
    company = RegisteredCompany(
        company_type=company_type, incorporated_on=date(2024, 1, 15), ard_day=31, ard_month=1
    )
    assert register.first_period_end(company) == date(2025, 1, 31)
    assert register.due_on(company, kind, period_end) == expected


TOOLS = {
    "registerCompany": ("accounting.admin", {"number": "01234567"}),
    "updateRegisteredCompany": ("accounting.admin", {"companyId": 1, "company": {}}),
    "manageCompanyDomain": ("accounting.admin", {"companyId": 1, "action": "add", "domain": "a.example"}),
    "examineCorporateRegister": ("accounting.view", {"number": "01234567"}),
    "getCompanyFilings": ("accounting.view", {}),
    "markFilingComplete": ("accounting.post", {"filingId": 1}),
    "setFilingReminders": ("accounting.edit", {"companyId": 1, "leadDays": [7]}),
    "addCorporateEvent": (
        "accounting.edit",
        {"companyId": 1, "kind": "other", "on": "2026-01-01", "detail": "x"},
    ),
}


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_a_role_without_the_permission_cannot_call_it(acme, name):
    permission, arguments = TOOLS[name]
    person = person_without(permission, email=f"no-{name.lower()}@acme.example")
    with pytest.raises(ToolNotFound):
        call(person, name, arguments, session=MemorySession())


def test_a_member_may_not_register_a_company(people):
    with pytest.raises(ToolNotFound):
        call(people["member"], "registerCompany", {"number": "01234567"}, session=MemorySession())


def test_a_company_is_read_from_the_register_and_compared_with_it(people):
    admin = people["admin"]
    with companies_house(Register(register_company())) as served:
        made = ok(admin, "registerCompany", {"number": "9876543"})
        company = made["company"]
        assert (company["number"], company["name"], company["jurisdiction"]) == (
            "09876543",
            "ACME WIDGETS LIMITED",
            "england-wales",
        )
        assert (company["accountsReferenceDate"], company["sicCodes"], company["registerStatus"]) == (
            "05-31",
            ["62020"],
            "active",
        )
        assert company["registeredOffice"] == "1 Widget Street, London, EC1A 1BB"
        assert [(p["name"], p["role"], p["ceasedOn"]) for p in company["people"]] == [
            ("DOE, Jane", "director", None),
            ("ROE, Richard", "secretary", "2022-01-31"),
        ]
        # The register's next periods, with due dates by the rules.
        assert due(made["filings"]) == {
            "AA": ("2026-05-31", "2027-02-28"),
            "CT": ("2026-05-31", "2027-03-01"),
            "CS01": ("2027-05-13", "2027-05-27"),
            "CT600": ("2026-05-31", "2027-05-31"),
        }
        assert [path.split("?")[0] for path, _ in served.requests] == [
            "/company/09876543",
            "/company/09876543/officers",
            "/company/09876543/filing-history",
        ]
        assert all(authorised for _, authorised in served.requests)

        looked = ok(admin, "examineCorporateRegister", {"number": "09876543"})
        assert (looked["registeredId"], looked["differences"]) == (company["id"], [])
        assert looked["nextAccountsDue"] == "2027-02-28" and looked["recentFilings"][0]["form"] == "CS01"

        ok(
            admin,
            "updateRegisteredCompany",
            {"companyId": company["id"], "company": {"registeredOffice": "Elsewhere"}},
        )
        ok(
            admin,
            "addCorporateEvent",
            {"companyId": company["id"], "kind": "appointment", "on": "2026-11-02", "detail": "Ann New"},
        )
        looked = ok(people["viewer"], "examineCorporateRegister", {"number": "09876543"})
        assert looked["differences"] == [
            "registeredOffice: register 1 Widget Street, London, EC1A 1BB, ours Elsewhere",
            "officer in our records only: ann new",
        ]
        assert "registered already" in refused(admin, "registerCompany", {"number": "09876543"})


def test_register_failures_are_clear_tool_errors(people):
    admin = people["admin"]
    assert "No company register provider is configured" in refused(
        admin, "examineCorporateRegister", {"number": "09876543"}
    )
    assert "No company register provider is configured" in refused(
        admin, "registerCompany", {"number": "09876543"}
    )
    assert "8 digits, or 2 letters and 6 digits" in refused(
        admin, "examineCorporateRegister", {"number": "12-AB"}
    )
    with companies_house(Register(register_company(), limit=4)) as served:
        assert "no company numbered 01234567" in refused(
            admin, "examineCorporateRegister", {"number": "1234567"}
        )
        ok(admin, "examineCorporateRegister", {"number": "09876543"})
        assert "try again in 120 seconds" in refused(
            admin, "examineCorporateRegister", {"number": "09876543"}
        )
        with override_settings(ATRIUM_ACCOUNTING_REGISTER_API_KEY="wrong-" + REGISTER_KEY):
            served.limit = None
            assert "refused the API key" in refused(admin, "examineCorporateRegister", {"number": "09876543"})
    assert not RegisteredCompany.objects.filter(number__in=["09876543", "01234567"]).exists()


def test_a_typed_in_company_files_and_its_cycles_move_on(people):
    admin, member = people["admin"], people["member"]
    arguments = {"number": "123456", "fromRegister": False}
    assert "incorporatedOn" in refused(
        admin, "registerCompany", {**arguments, "company": {"name": "Hooli Ltd"}}
    )
    assert "SIC code" in refused(
        admin,
        "registerCompany",
        {**arguments, "company": {"name": "Hooli Ltd", "incorporatedOn": "2024-01-15", "sicCodes": ["6"]}},
    )
    made = ok(
        admin,
        "registerCompany",
        {**arguments, "company": {"name": "Hooli Ltd", "incorporatedOn": "2024-01-15"}},
    )
    company_id = made["company"]["id"]
    assert made["company"]["accountsReferenceDate"] == "01-31"
    assert due(made["filings"]) == {
        "CS01": ("2027-01-15", "2027-01-29"),
        "AA": ("2027-01-31", "2027-10-31"),
        "CT": ("2027-01-31", "2027-11-01"),
        "CT600": ("2026-01-31", "2027-01-31"),
    }

    soon = ok(member, "getCompanyFilings", {"companyId": company_id, "dueWithinDays": 70})
    assert [f["form"] for f in soon["filings"]] == ["CS01", "CT600"] and soon["companies"][0][
        "name"
    ] == "Hooli Ltd"

    statement = next(f for f in made["filings"] if f["form"] == "CS01")
    done = ok(
        member,
        "markFilingComplete",
        {"filingId": statement["id"], "filedOn": "2026-11-20", "reference": "X1"},
    )
    assert (done["filing"]["status"], done["filing"]["filedOn"]) == ("filed", "2026-11-20")
    # A statement made up early starts the next review period from its date.
    assert (done["next"]["periodEnd"], done["next"]["dueOn"]) == ("2027-11-20", "2027-12-04")
    assert "is filed" in refused(member, "markFilingComplete", {"filingId": statement["id"]})
    assert "in the future" in refused(
        member, "markFilingComplete", {"filingId": done["next"]["id"], "filedOn": "2027-01-01"}
    )
    assert "Filing 999999 was not found" in refused(member, "markFilingComplete", {"filingId": 999999})
    filed = ok(member, "getCompanyFilings", {"companyId": company_id, "status": "filed"})
    assert [f["id"] for f in filed["filings"]] == [statement["id"]]

    # A new year end moves the open accounts and tax filings; the filed statement stays.
    changed = ok(
        admin,
        "updateRegisteredCompany",
        {"companyId": company_id, "company": {"accountsReferenceDate": "03-31"}},
    )
    assert changed["changed"] == ["ard"]
    open_now = due(ok(member, "getCompanyFilings", {"companyId": company_id})["filings"])
    assert open_now["AA"] == ("2026-03-31", "2026-12-31") and open_now["CS01"] == ("2027-11-20", "2027-12-04")
    assert "MM-DD" in refused(
        admin,
        "updateRegisteredCompany",
        {"companyId": company_id, "company": {"accountsReferenceDate": "02-30"}},
    )
    # An LLP owes no corporation tax of its own.
    ok(admin, "updateRegisteredCompany", {"companyId": company_id, "company": {"companyType": "llp"}})
    assert set(due(ok(member, "getCompanyFilings", {"companyId": company_id})["filings"])) == {"CS01", "AA"}
    assert "Company 999999 was not found" in refused(member, "getCompanyFilings", {"companyId": 999999})


def test_corporate_events_change_the_records_and_open_their_notices(people):
    member = people["member"]
    company = registered_company(people["owner"])
    event = {"companyId": company.pk, "on": "2026-11-20"}

    added = ok(member, "addCorporateEvent", {**event, "kind": "appointment", "detail": "Jane Doe"})
    assert added["notice"]["form"] == "AP01" and added["notice"]["dueOn"] == "2026-12-04"
    gone = ok(
        member,
        "addCorporateEvent",
        {**event, "kind": "resignation", "on": "2026-11-25", "detail": "jane doe"},
    )
    assert (gone["notice"]["form"], gone["notice"]["dueOn"]) == ("TM01", "2026-12-09")
    person = CompanyPerson.objects.get(company=company, name="Jane Doe")
    assert (person.role, person.appointed_on, person.ceased_on) == (
        "director",
        date(2026, 11, 20),
        date(2026, 11, 25),
    )

    shares = ok(
        member, "addCorporateEvent", {**event, "kind": "allotment", "detail": "100 ordinary shares of 1 GBP"}
    )
    assert (shares["notice"]["form"], shares["notice"]["dueOn"]) == ("SH01", "2026-12-20")
    moved = ok(member, "addCorporateEvent", {**event, "kind": "office_moved", "detail": "3 Dock Road, Leith"})
    assert moved["notice"] is None
    company.refresh_from_db()
    assert company.registered_office == "3 Dock Road, Leith"

    assert "no current officer named 'Nobody'" in refused(
        member, "addCorporateEvent", {**event, "kind": "resignation", "detail": "Nobody"}
    )
    assert "in the future" in refused(
        member, "addCorporateEvent", {**event, "kind": "other", "on": "2027-01-01", "detail": "x"}
    )
    assert "before the company was incorporated" in refused(
        member, "addCorporateEvent", {**event, "kind": "other", "on": "2020-01-01", "detail": "x"}
    )
    assert "kind" in refused(member, "addCorporateEvent", {**event, "kind": "merger", "detail": "x"})


def test_domains_are_checked_and_belong_to_one_company(people):
    admin = people["admin"]
    first, second = registered_company(admin, name="First Ltd"), registered_company(admin, name="Second Ltd")

    answer = ok(
        admin, "manageCompanyDomain", {"companyId": first.pk, "action": "add", "domain": "Bücher.Example."}
    )
    assert answer["domains"] == [{"domain": "xn--bcher-kva.example", "purpose": "both"}]
    answer = ok(
        admin,
        "manageCompanyDomain",
        {"companyId": first.pk, "action": "add", "domain": "https://mail.first.example/", "purpose": "mail"},
    )
    assert [d["domain"] for d in answer["domains"]] == ["mail.first.example", "xn--bcher-kva.example"]
    assert "belongs to another company (First Ltd)" in refused(
        admin,
        "manageCompanyDomain",
        {"companyId": second.pk, "action": "add", "domain": "mail.first.example"},
    )
    for bad in ("not a domain", "localhost", "under_score.example", "example.123"):
        assert "domain" in refused(
            admin, "manageCompanyDomain", {"companyId": first.pk, "action": "add", "domain": bad}
        )
    answer = ok(
        admin,
        "manageCompanyDomain",
        {"companyId": first.pk, "action": "remove", "domain": "xn--bcher-kva.example"},
    )
    assert [d["domain"] for d in answer["domains"]] == ["mail.first.example"]
    assert "is not one of Second Ltd's domains" in refused(
        admin,
        "manageCompanyDomain",
        {"companyId": second.pk, "action": "remove", "domain": "mail.first.example"},
    )


def test_reminders_go_out_once_at_each_lead_time(people):

    Notification.objects.all().delete()  # the demo's own (leave approved), in this transaction
    member = people["member"]
    company = registered_company(people["owner"])
    assert "0 to 365 days" in refused(
        member, "setFilingReminders", {"companyId": company.pk, "leadDays": [-1]}
    )

    answer = ok(member, "setFilingReminders", {"companyId": company.pk, "leadDays": [7, 30, 7]})
    assert answer["leadDays"] == [30, 7]
    first = answer["upcoming"][0]
    assert (first["form"], first["dueOn"], first["remindOn"]) == ("CS01", "2027-01-29", "2026-12-30")

    def told():
        return set(Notification.objects.filter(recipient=member).values_list("title", flat=True))

    assert register.reminders_send(today=date(2026, 12, 29)) == 0
    assert register.reminders_send(today=date(2027, 1, 1)) == 2
    assert told() == {
        "confirmation statement of Sample Holdings Ltd due in 28 day(s), on 2027-01-29",
        "corporation tax return of Sample Holdings Ltd due in 30 day(s), on 2027-01-31",
    }
    assert register.reminders_send(today=date(2027, 1, 2)) == 0
    assert register.reminders_send(today=date(2027, 2, 1)) == 2
    assert "confirmation statement of Sample Holdings Ltd overdue since 2027-01-29" in told()
    assert Notification.objects.filter(recipient=people["viewer"]).count() == 0

    # The daily sweep, over every workspace (Celery beat's entry).
    ok(member, "setFilingReminders", {"companyId": company.pk, "leadDays": [365]})
    assert tasks.send_filing_reminders() == 0
    assert Filing.objects.filter(company=company, reminded__contains=[365]).count() == 4
    assert ok(member, "setFilingReminders", {"companyId": company.pk, "leadDays": []})["upcoming"] == []


def test_officers_are_exported_and_erased_but_the_filings_stay(acme, people):
    member = people["member"]
    member.full_name = "Mo Member"
    member.save(update_fields=["full_name"])
    company = registered_company(people["owner"])
    ok(
        member,
        "addCorporateEvent",
        {"companyId": company.pk, "kind": "appointment", "on": "2026-11-02", "detail": "Mo Member"},
    )
    filing = company.filings.get(form="CS01")
    ok(member, "markFilingComplete", {"filingId": filing.pk})

    out = io.BytesIO()
    personal_data_export(workspace=acme, email=member.email, out=out, performed_by="test")
    records = json.loads(out.getvalue())["records"]
    assert records["accounting.companyperson"][0]["name"] == "Mo Member"
    assert records["accounting.filing"][0]["id"] == filing.pk

    personal_data_erase(workspace=acme, email=member.email, performed_by="test")
    assert CompanyPerson.objects.get(company=company).name == "(erased)"
    filing.refresh_from_db()
    assert (filing.status, filing.filed_by_id) == ("filed", None)

"""Billable charges: recorded, listed while unclaimed, put on a draft invoice (then claimed),
written off and restored; per tool a normal call, bad input and a refusal."""

import pytest

from apps.accounting.models import Charge
from apps.accounting.tests.factories import draft, issued
from apps.accounting.tests.samples import CHARGE
from apps.accounting.tests.samples import acc_ok as ok
from apps.accounting.tests.samples import acc_refused as refused
from apps.catalogue.dispatch import MemorySession, ToolNotFound
from apps.catalogue.testing import call, person_without

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("name", "permission"),
    [
        ("createCharge", "accounting.edit"),
        ("manageCharge", "accounting.edit"),
        ("listUnclaimedCharges", "accounting.view"),
    ],
)
def test_a_role_without_the_permission_cannot_call_it(acme, name, permission):
    person = person_without(permission, email=f"no-{name.lower()}@acme.example")
    with pytest.raises(ToolNotFound):
        call(person, name, {}, session=MemorySession())


def test_charges_wait_unclaimed_until_they_are_put_on_an_invoice(people):
    member = people["member"]
    first = ok(member, "createCharge", {"charge": CHARGE})
    second = ok(member, "createCharge", {"charge": {**CHARGE, "description": "Travel", "unitPrice": "42.50"}})
    other = ok(member, "createCharge", {"charge": {**CHARGE, "customerName": "Hooli"}})
    assert (first["status"], first["quantity"], first["unitPrice"]) == ("unclaimed", "3", "90")

    listed = ok(member, "listUnclaimedCharges", {"customer": "contoso"})
    assert [item["id"] for item in listed["items"]] == [first["id"], second["id"]]

    result = ok(member, "manageCharge", {"action": "invoice", "chargeIds": [first["id"], second["id"]]})
    invoice = ok(member, "getInvoice", {"invoiceId": result["invoice"]["id"]})
    assert invoice["status"] == "draft" and invoice["customerName"] == "Contoso"
    assert [line["description"] for line in invoice["lines"]] == [
        "Design workshop (2026-03-04)",
        "Travel (2026-03-04)",
    ]
    assert invoice["net"] == "397.50" and {c["status"] for c in result["charges"]} == {"invoiced"}
    assert [item["id"] for item in ok(member, "listUnclaimedCharges", {})["items"]] == [other["id"]]

    # Onto an existing draft: its lines stay, the charge's is added.
    existing = draft(member, customer="Hooli")
    ok(member, "manageCharge", {"action": "invoice", "chargeIds": [other["id"]], "invoiceId": existing.pk})
    assert existing.lines.count() == 2 and Charge.objects.get(pk=other["id"]).invoice_id == existing.pk
    assert "not invoiced" in refused(
        member, "manageCharge", {"action": "write_off", "chargeIds": [other["id"]]}
    )


def test_a_charge_is_updated_written_off_and_restored(people):
    member = people["member"]
    made = ok(member, "createCharge", {"charge": CHARGE})

    updated = ok(
        member, "manageCharge", {"action": "update", "chargeIds": [made["id"]], "charge": {"quantity": "4"}}
    )
    assert updated["changed"] == ["quantity"] and updated["charges"][0]["quantity"] == "4"
    ok(member, "manageCharge", {"action": "write_off", "chargeIds": [made["id"]]})
    assert ok(member, "listUnclaimedCharges", {})["total"] == 0
    restored = ok(member, "manageCharge", {"action": "restore", "chargeIds": [made["id"]]})
    assert restored["charges"][0]["status"] == "unclaimed"


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({**CHARGE, "taxType": "VAT99"}, "no tax type VAT99"),
        ({**CHARGE, "customerName": None}, "customerName"),
        ({**CHARGE, "quantity": "0"}, "quantity"),
        ({**CHARGE, "currency": "ZZZ"}, "ISO 4217"),
        ({k: v for k, v in CHARGE.items() if k != "unitPrice"}, "unitPrice"),
    ],
)
def test_create_charge_names_bad_input(people, arguments, problem):
    assert problem in refused(people["member"], "createCharge", {"charge": arguments})


def test_charges_go_only_on_a_draft_invoice_in_their_currency(people):
    member = people["member"]
    made = ok(member, "createCharge", {"charge": CHARGE})
    euro = draft(member, currency="EUR")
    approved = issued(people["owner"])

    assert "not in EUR" in refused(
        member, "manageCharge", {"action": "invoice", "chargeIds": [made["id"]], "invoiceId": euro.pk}
    )
    assert "only drafts" in refused(
        member, "manageCharge", {"action": "invoice", "chargeIds": [made["id"]], "invoiceId": approved.pk}
    )
    assert "Charge 999999 was not found" in refused(
        member, "manageCharge", {"action": "write_off", "chargeIds": [999999]}
    )
    assert Charge.objects.get(pk=made["id"]).status == "unclaimed"

"""The Accounting tools through call_tool: per tool a normal call, bad input and a refusal; the
mandatory first call; figures hidden from a role without the area's own permissions."""

from datetime import date

import pytest

from apps.accounting.tests.factories import post_sale
from apps.accounting.tests.samples import acc_ok as ok
from apps.accounting.tests.samples import acc_refused as refused
from apps.catalogue.dispatch import MemorySession, ToolNotFound
from apps.catalogue.testing import call, person_with, person_without, structured, text_of

pytestmark = pytest.mark.django_db

TOOLS = {
    "getAccountingSummary": ("accounting.view", {}),
    "listTaxTypes": ("accounting.view", {}),
    "previewTaxBreakdown": ("accounting.view", {"lines": [{"unitPrice": "1", "taxType": "UK-STD"}]}),
    "previewCurrencyConversion": ("accounting.view", {"amount": "1", "source": "USD"}),
}


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_a_role_without_the_permission_cannot_call_it(acme, name):
    permission, arguments = TOOLS[name]
    person = person_without(permission, email=f"no-{name.lower()}@acme.example")

    with pytest.raises(ToolNotFound):
        call(person, name, arguments, session=MemorySession())


def test_a_member_of_other_areas_alone_sees_no_figures(acme, acme_client):
    person = person_with({"contacts.view", "calendars.view"}, email="no-books@acme.example")

    with pytest.raises(ToolNotFound):
        call(person, "getAccountingSummary", {})
    acme_client.force_login(person)
    assert acme_client.get("/settings/accounting/").status_code == 403


def test_every_accounting_tool_waits_for_the_summary_in_its_session(people):
    session = MemorySession()
    before = call(people["member"], "listTaxTypes", {}, session=session)

    assert before["isError"] is True and "getAccountingSummary must be called first" in text_of(before)
    structured(call(people["member"], "getAccountingSummary", {}, session=session))
    assert call(people["member"], "listTaxTypes", {}, session=session)["isError"] is False


def test_the_summary_comes_from_the_ledger(people):
    post_sale(people["owner"], net="100.00")

    answer = ok(people["viewer"], "getAccountingSummary")

    assert answer["baseCurrency"] == "GBP" and answer["taxRegime"] == "UK VAT"
    assert answer["receivable"] == "120.00" and answer["payable"] == "0.00"
    assert answer["balanced"] is True
    assert {row["code"]: row["debit"] for row in answer["trialBalance"]}["1100"] == "120.00"
    assert {"key": "invoice", "next": "INV-0001"} in answer["numbering"]
    assert answer["lockDate"] is None and any("lock date" in item for item in answer["attention"])


def test_the_summary_takes_no_arguments(people):
    result = call(people["owner"], "getAccountingSummary", {"days": 3})
    assert result["isError"] is True and "days" in text_of(result)


def test_list_tax_types_filters_by_kind(people):
    answer = ok(people["member"], "listTaxTypes", {"kind": "reverse_charge"})

    assert [item["code"] for item in answer["items"]] == ["UK-RC"]
    assert answer["items"][0]["exemptionReason"] and answer["items"][0]["rate"] == "20.0000"
    assert "kind" in refused(people["member"], "listTaxTypes", {"kind": "luxury"})


# --- previewTaxBreakdown ----------------------------------------------------------------------------

LINES = [
    {"quantity": "3", "unitPrice": "0.35", "taxType": "UK-STD"},
    {"quantity": "3", "unitPrice": "0.35", "taxType": "UK-STD"},
    {"quantity": "1", "unitPrice": "10", "taxType": "UK-ZERO"},
]


def test_rounding_per_line_and_per_document_differ_where_they_should(people):
    per_line = ok(people["member"], "previewTaxBreakdown", {"lines": LINES, "rounding": "line"})
    per_document = ok(people["member"], "previewTaxBreakdown", {"lines": LINES, "rounding": "document"})

    # 1.05 at 20 % is 0.21 each; per line 0.21 + 0.21, per document 20 % of 2.10 = 0.42: equal here,
    # but three lines of 0.35 at 5 % are not.
    assert per_line["tax"] == per_document["tax"] == "0.42"
    odd = [{"unitPrice": "0.35", "taxType": "UK-RED"}] * 3
    assert ok(people["member"], "previewTaxBreakdown", {"lines": odd, "rounding": "line"})["tax"] == "0.06"
    assert (
        ok(people["member"], "previewTaxBreakdown", {"lines": odd, "rounding": "document"})["tax"] == "0.05"
    )
    assert {group["taxType"] for group in per_document["groups"]} == {"UK-STD", "UK-ZERO"}


def test_tax_inclusive_prices_keep_their_total(people):
    answer = ok(
        people["member"],
        "previewTaxBreakdown",
        {"lines": [{"unitPrice": "100", "taxType": "UK-STD"}], "pricesIncludeTax": True, "currency": "JPY"},
    )

    assert (answer["net"], answer["tax"], answer["total"], answer["currency"]) == ("83", "17", "100", "JPY")


def test_reverse_charge_and_exempt_lines_charge_no_tax(people):
    answer = ok(
        people["member"],
        "previewTaxBreakdown",
        {"lines": [{"unitPrice": "500", "taxType": "UK-RC"}, {"unitPrice": "50", "taxType": "UK-EXEMPT"}]},
    )
    assert (answer["tax"], answer["total"]) == ("0.00", "550.00")


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({"lines": [{"unitPrice": "1", "taxType": "VAT99"}]}, "no tax type VAT99"),
        ({"lines": [{"unitPrice": "1", "taxType": "UK-STD", "discountPercent": "120"}]}, "discountPercent"),
        ({"lines": [{"unitPrice": "1", "taxType": "UK-STD"}], "currency": "XYZ"}, "ISO 4217"),
        ({"lines": []}, "lines"),
        ({"lines": [{"unitPrice": "abc", "taxType": "UK-STD"}]}, "unitPrice"),
    ],
)
def test_preview_tax_breakdown_names_bad_input(people, arguments, problem):
    assert problem in refused(people["member"], "previewTaxBreakdown", arguments)


# --- previewCurrencyConversion ----------------------------------------------------------------------


def test_a_conversion_uses_the_reference_rate_of_the_day(people):
    answer = ok(
        people["member"],
        "previewCurrencyConversion",
        {"amount": "1000", "source": "usd", "target": "JPY", "on": "2026-03-01"},
    )

    assert answer["source"] == "USD" and answer["day"] == "2026-02-27" and answer["provider"] == "ecb-bundled"
    assert "." not in answer["converted"] and 100_000 < int(answer["converted"]) < 200_000
    to_base = ok(
        people["member"], "previewCurrencyConversion", {"amount": "10", "source": "EUR", "on": "2026-03-02"}
    )
    assert to_base["target"] == "GBP"


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({"amount": "1", "source": "KWD", "on": "2026-03-02"}, "No KWD/GBP exchange rate"),
        ({"amount": "1", "source": "USD", "on": "1990-01-01"}, "No USD/GBP exchange rate for 1990-01-01"),
        ({"amount": "1", "source": "US$"}, "source"),
    ],
)
def test_preview_currency_conversion_names_bad_input(people, arguments, problem):
    assert problem in refused(people["member"], "previewCurrencyConversion", arguments)


def test_after_the_bundled_history_ends_its_last_rate_is_used_and_dated(people):
    later = date(2099, 1, 1).isoformat()
    answer = ok(people["member"], "previewCurrencyConversion", {"amount": "1", "source": "USD", "on": later})
    assert answer["day"] < "2099" and answer["provider"] == "ecb-bundled"

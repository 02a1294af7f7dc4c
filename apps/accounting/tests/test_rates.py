"""Exchange rates: the bundled ECB history offline, and the live ECB provider over real HTTP on
loopback; the rate function other areas call."""

from datetime import date
from decimal import Decimal

import pytest
from django.test import override_settings

from apps.accounting.errors import RatesUnavailable
from apps.accounting.lib import rates
from apps.accounting.models import ExchangeRate, JournalEntry, SalesDocument
from apps.accounting.tests.factories import draft
from apps.accounting.tests.samples import acc, acc_ok, acc_refused
from apps.accounting.tests.servers import Served, eurofxref, serving
from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import call, person_without, structured, text_of
from apps.core.errors import NoExchangeRate

pytestmark = pytest.mark.django_db

DAYS = {
    "2026-03-02": {"USD": "1.0800", "GBP": "0.8400", "JPY": "160.00"},
    "2026-02-27": {"USD": "1.0700", "GBP": "0.8500"},
}


def live(url: str):  # type: ignore[no-untyped-def]
    return override_settings(ATRIUM_ACCOUNTING_RATES_PROVIDER="ecb-live", ATRIUM_ACCOUNTING_RATES_URL=url)


def test_the_bundled_rates_cross_through_the_euro(acme):
    usd = rates.rate(source="EUR", target="USD", on=date(2026, 3, 2))
    gbp = rates.rate(source="EUR", target="GBP", on=date(2026, 3, 2))
    cross = rates.rate(source="USD", target="GBP", on=date(2026, 3, 2))

    assert usd.provider == "ecb-bundled" and usd.day == date(2026, 3, 2)
    assert abs(cross.value - gbp.value / usd.value) < Decimal("1e-9")
    assert rates.rate(source="GBP", target="GBP", on=date(2026, 3, 2)).value == 1


def test_the_live_provider_reads_ecb_xml_once_and_keeps_it(people):
    with serving(Served(eurofxref(DAYS))) as server, live(server.url):
        monday = rates.rate(source="USD", target="GBP", on=date(2026, 3, 2))
        sunday = rates.rate(source="GBP", target="USD", on=date(2026, 3, 1))
        answer = structured(
            acc(
                people["member"],
                "previewCurrencyConversion",
                {"amount": "100", "source": "USD", "on": "2026-03-02"},
            )
        )

    assert monday == rates.Rate(Decimal("0.7777777778"), date(2026, 3, 2), "ecb-live")
    assert sunday.day == date(2026, 2, 27) and sunday.value == Decimal("1.2588235294")
    assert (answer["converted"], answer["provider"]) == ("77.78", "ecb-live")
    assert len(server.paths) == 1 and server.paths[0].endswith("eurofxref-hist-90d.xml")
    assert ExchangeRate.objects.filter(source="ecb-live", day=date(2026, 3, 2)).count() == 3


def test_the_live_provider_says_what_went_wrong(people):
    with (
        serving(Served(b"<html>maintenance</html", status=200)) as server,
        live(server.url),
        pytest.raises(RatesUnavailable, match="not XML"),
    ):
        rates.rate(source="USD", target="GBP", on=date(2026, 3, 2))
    with serving(Served(b"", status=503)) as server, live(server.url):
        result = acc(
            people["member"],
            "previewCurrencyConversion",
            {"amount": "1", "source": "USD", "on": "2026-03-02"},
        )
    assert result["isError"] and "HTTPStatusError" in text_of(result)


def test_a_currency_the_provider_does_not_publish_has_no_rate(acme):
    with (
        serving(Served(eurofxref(DAYS))) as server,
        live(server.url),
        pytest.raises(NoExchangeRate, match="KWD/GBP"),
    ):
        rates.rate(source="KWD", target="GBP", on=date(2026, 3, 2))


def test_a_currency_the_ecb_does_not_publish_names_the_tool_that_records_its_rate(people):
    member = people["member"]
    invoice = draft(member, currency="KWD", issue_date=date(2026, 3, 2))

    message = acc_refused(member, "approveInvoice", {"invoiceId": invoice.pk})
    assert "No KWD/GBP exchange rate for 2026-03-02" in message and "recordExchangeRate" in message
    assert "give the rate yourself" not in message

    recorded = acc_ok(member, "recordExchangeRate", {"source": "KWD", "rate": "2.6143", "on": "2026-03-02"})
    assert (recorded["rate"], recorded["target"], recorded["provider"], recorded["replaced"]) == (
        "2.6143",
        "GBP",
        "recorded",
        None,
    )
    approved = acc_ok(member, "approveInvoice", {"invoiceId": invoice.pk})
    assert Decimal(approved["rate"]) == Decimal("2.6143")
    entry = JournalEntry.objects.get(pk=SalesDocument.objects.get(pk=invoice.pk).entry_id)
    assert (entry.rate_source, entry.rate_date) == ("recorded", date(2026, 3, 2))
    # Either way round, and later in the week when the provider has none.
    back = rates.rate(source="GBP", target="KWD", on=date(2026, 3, 5))
    assert back.day == date(2026, 3, 2) and back.value == Decimal("0.3825115710")
    with pytest.raises(NoExchangeRate, match="recordExchangeRate"):
        rates.rate(source="KWD", target="GBP", on=date(2026, 3, 10))


def test_a_recorded_rate_comes_before_the_provider_and_is_replaced_by_the_next(people):
    member = people["member"]
    acc_ok(member, "recordExchangeRate", {"source": "USD", "rate": "0.5", "on": "2026-03-02"})
    replaced = acc_ok(member, "recordExchangeRate", {"source": "USD", "rate": "0.75", "on": "2026-03-02"})
    assert replaced["replaced"] == "0.5"

    preview = acc_ok(
        member, "previewCurrencyConversion", {"amount": "100", "source": "USD", "on": "2026-03-02"}
    )
    assert (preview["converted"], preview["provider"]) == ("75.00", "recorded")
    # Another day is the provider's again.
    assert rates.rate(source="USD", target="GBP", on=date(2026, 3, 3)).provider == "ecb-bundled"
    assert ExchangeRate.objects.filter(source="recorded").count() == 1


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"source": "GBP", "rate": "1.1", "on": "2026-03-02"}, "`target`: is the source currency"),
        ({"source": "KWD", "rate": "0", "on": "2026-03-02"}, "`rate`: must be more than zero"),
        ({"source": "ZZZ", "rate": "1", "on": "2026-03-02"}, "source"),
        ({"source": "KWD", "rate": "-2", "on": "2026-03-02"}, "rate"),
    ],
)
def test_a_rate_that_cannot_be_is_refused(people, arguments, expected):
    assert expected in acc_refused(people["member"], "recordExchangeRate", arguments)
    assert not ExchangeRate.objects.filter(source="recorded").exists()


def test_recording_a_rate_needs_the_right_to_post(acme):
    person = person_without("accounting.post", email="no-rates@acme.example")
    with pytest.raises(ToolNotFound):
        call(person, "recordExchangeRate", {"source": "KWD", "rate": "2", "on": "2026-03-02"})

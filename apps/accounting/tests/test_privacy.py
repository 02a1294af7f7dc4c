"""Personal data in the books: exported, and on erasure the customer's details cleared in place
while issued invoices, their numbers and the ledger stay (legal retention)."""

import io
import json

import pytest

from apps.accounting.lib import ledger
from apps.accounting.models import JournalEntry, SalesDocument, SentMail
from apps.accounting.tests.factories import issued
from apps.accounting.tests.samples import acc
from apps.catalogue.testing import structured
from apps.datarights.personal_data import personal_data_erase, personal_data_export

pytestmark = pytest.mark.django_db
EMAIL = "jane.customer@example.org"


def test_a_customer_is_exported_and_erased_but_the_books_stay(acme, people):
    invoice = issued(people["owner"], customer="Jane Customer", email=EMAIL)
    structured(acc(people["owner"], "sendInvoice", {"invoiceId": invoice.pk}))
    entries = JournalEntry.objects.count()

    out = io.BytesIO()
    personal_data_export(workspace=acme, email=EMAIL, out=out, performed_by="test")
    records = json.loads(out.getvalue())["records"]
    assert records["accounting.salesdocument"][0]["customer_name"] == "Jane Customer"
    assert records["accounting.sentmail"][0]["recipient"] == EMAIL

    counts = personal_data_erase(workspace=acme, email=EMAIL, performed_by="test")

    assert counts["accounting.salesdocument"] == 1 and counts["accounting.sentmail"] == 1
    kept = SalesDocument.objects.get(pk=invoice.pk)
    assert (kept.customer_name, kept.customer_email, kept.number, kept.total) == (
        "(erased)",
        "",
        "INV-0001",
        invoice.total,
    )
    assert not SentMail.objects.filter(recipient=EMAIL).exists()
    assert JournalEntry.objects.count() == entries and ledger.trial_balance().balanced

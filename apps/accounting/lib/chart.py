"""The chart of accounts, journals, tax types and number series a workspace's books start with,
chosen by its base currency (where the tax regime follows from it: GBP is UK VAT, EUR an EU VAT
regime, USD US sales tax; any other currency gets the generic chart with no tax types).

`seed(base_currency)` is idempotent: it adds what is missing and never changes what exists.
"""

from decimal import Decimal
from typing import NamedTuple

from apps.accounting.models import Account, Journal, NumberSeries, TaxType

A = Account.Type
R = Account.Role


class AccountSeed(NamedTuple):
    code: str
    name: str
    type: str
    role: str = ""


ACCOUNTS = [
    AccountSeed("1100", "Accounts receivable", A.ASSET, R.RECEIVABLE),
    AccountSeed("1200", "Bank current account", A.ASSET, R.BANK),
    AccountSeed("1300", "Prepayments", A.ASSET),
    AccountSeed("2100", "Accounts payable", A.LIABILITY, R.PAYABLE),
    AccountSeed("2200", "{tax} control", A.LIABILITY, R.TAX),
    AccountSeed("2300", "Accruals", A.LIABILITY),
    AccountSeed("3000", "Share capital", A.EQUITY),
    AccountSeed("3100", "Retained earnings", A.EQUITY, R.EQUITY),
    AccountSeed("4000", "Sales", A.INCOME, R.SALES),
    AccountSeed("4100", "Services", A.INCOME),
    AccountSeed("4900", "Other income", A.INCOME),
    AccountSeed("5000", "Cost of sales", A.EXPENSE, R.PURCHASES),
    AccountSeed("6000", "General expenses", A.EXPENSE),
    AccountSeed("6100", "Rent", A.EXPENSE),
    AccountSeed("6200", "Travel", A.EXPENSE),
    AccountSeed("6300", "Software and subscriptions", A.EXPENSE),
    AccountSeed("7900", "Foreign exchange gains and losses", A.EXPENSE, R.FX),
    AccountSeed("7950", "Rounding", A.EXPENSE, R.ROUNDING),
]

JOURNALS = [
    ("SAL", "Sales"),
    ("PUR", "Purchases"),
    ("BNK", "Bank"),
    ("GEN", "General"),
]

SERIES = [("invoice", "INV-"), ("credit_note", "CN-"), ("quote", "QU-")]


class TaxSeed(NamedTuple):
    code: str
    name: str
    rate: str
    kind: str = TaxType.Kind.STANDARD
    report_box: str = ""
    exemption_reason: str = ""


K = TaxType.Kind
REGIMES: dict[str, tuple[str, str, list[TaxSeed]]] = {
    # currency: (regime, what the tax control account is called, tax types)
    "GBP": (
        "UK VAT",
        "VAT",
        [
            TaxSeed("UK-STD", "UK VAT standard 20%", "20", report_box="1"),
            TaxSeed("UK-RED", "UK VAT reduced 5%", "5", report_box="1"),
            TaxSeed("UK-ZERO", "UK VAT zero-rated", "0", K.ZERO, "6"),
            TaxSeed("UK-EXEMPT", "UK VAT exempt", "0", K.EXEMPT, "6", "VATEX-EU-132"),
            TaxSeed(
                "UK-RC", "Reverse charge (services from abroad)", "20", K.REVERSE_CHARGE, "1", "VATEX-EU-AE"
            ),
            TaxSeed("NONE", "No tax", "0", K.OUT_OF_SCOPE),
        ],
    ),
    "EUR": (
        "EU VAT",
        "VAT",
        [
            TaxSeed("EU-STD", "VAT standard 20%", "20", report_box="01"),
            TaxSeed("EU-RED", "VAT reduced 10%", "10", report_box="02"),
            TaxSeed("EU-ZERO", "VAT zero-rated", "0", K.ZERO, "03"),
            TaxSeed("EU-EXEMPT", "VAT exempt", "0", K.EXEMPT, "04", "VATEX-EU-132"),
            TaxSeed("EU-RC", "Intra-EU reverse charge", "20", K.REVERSE_CHARGE, "05", "VATEX-EU-IC"),
            TaxSeed("NONE", "No tax", "0", K.OUT_OF_SCOPE),
        ],
    ),
    "USD": (
        "US sales tax",
        "Sales tax",
        [
            TaxSeed("SALES-TAX", "Sales tax", "0", report_box="1"),
            TaxSeed("EXEMPT", "Exempt sale (resale certificate)", "0", K.EXEMPT, "2", "Resale"),
            TaxSeed("NONE", "No tax", "0", K.OUT_OF_SCOPE),
        ],
    ),
}
GENERIC = ("none", "Tax", [TaxSeed("NONE", "No tax", "0", K.OUT_OF_SCOPE)])


def regime(base_currency: str) -> tuple[str, str, list[TaxSeed]]:
    return REGIMES.get(base_currency, GENERIC)


def seed(base_currency: str) -> None:
    _regime, tax_word, taxes = regime(base_currency)
    for account in ACCOUNTS:
        Account.objects.get_or_create(
            code=account.code,
            defaults={"name": account.name.format(tax=tax_word), "type": account.type, "role": account.role},
        )
    for code, name in JOURNALS:
        Journal.objects.get_or_create(code=code, defaults={"name": name})
    for key, prefix in SERIES:
        NumberSeries.objects.get_or_create(key=key, defaults={"prefix": prefix})
    for tax in taxes:
        TaxType.objects.get_or_create(
            code=tax.code,
            defaults={
                "name": tax.name,
                "rate": Decimal(tax.rate),
                "kind": tax.kind,
                "report_box": tax.report_box,
                "exemption_reason": tax.exemption_reason,
            },
        )

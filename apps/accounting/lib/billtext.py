"""What a supplier's bill says, read from its text (a PDF's text layer or OCR): the supplier, their
VAT number, the bill's reference, dates, currency, stated net, tax and total, and item lines.

Bills have no standard layout, so this reads the way a person skims one: labels ("Invoice no",
"Date", "Due", "VAT", "Total due") followed by a value on the same line; an item line is a
description followed by quantity, unit price and amount, where quantity x price = amount. What
is not found stays empty: the proposal is corrected with validatePurchaseInvoiceProposal and the
stated total is checked against the lines with reconcilePurchaseInvoiceTotal, never trusted.
"""

import re
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal, InvalidOperation

import iso4217
from dateutil import parser as dateparser

SYMBOLS = {"£": "GBP", "€": "EUR", "$": "USD", "¥": "JPY"}
# 1,234.56 / 1.234,56 / 1 234,56 / 1234.56 / 1234 (a currency symbol or code may precede it).
AMOUNT = r"-?(?:\d{1,3}(?:[,. \u00a0]\d{3})+|\d+)(?:[.,]\d{1,3})?"
AMOUNT_RE = re.compile(rf"(?<![\w.,]){AMOUNT}(?![\w])")
DATE_RES = [
    re.compile(r"\b\d{4}-\d{2}-\d{2}\b"),
    re.compile(r"\b\d{1,2}[/.\-]\d{1,2}[/.\-]\d{2,4}\b"),
    re.compile(r"\b\d{1,2}(?:st|nd|rd|th)?\s+[A-Za-z]{3,9}\.?,?\s+\d{4}\b"),
    re.compile(r"\b[A-Za-z]{3,9}\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}\b"),
]
REFERENCE_RE = re.compile(
    r"\b(?:invoice|inv|bill|document)\s*(?:no\.?|number|num\.?|#|ref(?:erence)?\.?)\s*[:#.]?\s*"
    r"([A-Z0-9][A-Z0-9\-/_.]{1,39})",
    re.IGNORECASE,
)
VAT_RE = re.compile(
    r"\b(?:VAT|TVA|USt-?IdNr|BTW|IVA)\s*(?:reg(?:istration)?\.?\s*)?(?:no\.?|number|id|#)?\s*[:.]?\s*"
    r"([A-Z]{2}\s?[0-9A-Z][0-9A-Z ]{6,15})",
    re.IGNORECASE,
)
ISSUE_LABEL = re.compile(r"\b(?:invoice date|date of issue|issue date|issued|tax point|date)\b", re.I)
DUE_LABEL = re.compile(r"\b(?:due date|payment due|due by|due on|pay by|due)\b", re.I)
TOTAL_LABEL = re.compile(
    r"\b(?:total due|amount due|balance due|grand total|total payable|invoice total|total)\b", re.I
)
NOT_TOTAL = re.compile(r"\b(?:sub-?\s?total|total net|net total|total vat|total tax|excl)", re.I)
NET_LABEL = re.compile(r"\b(?:sub-?\s?total|net total|total net|net amount|total excl\w*|net)\b", re.I)
TAX_LABEL = re.compile(r"\b(?:vat|tax|gst|tva|mwst|iva)\b", re.I)
NOT_TAX = re.compile(r"\b(?:reg|no\.?|number|excl\w*|incl\w*|id)\b|%\s*$", re.I)
ITEM_RE = re.compile(
    rf"^(?P<description>[A-Za-z].*?)\s+(?P<quantity>\d+(?:[.,]\d+)?)\s*(?:x\s+)?"
    rf"[£€$]?\s?(?P<price>{AMOUNT})\s+[£€$]?\s?(?P<amount>{AMOUNT})\s*$"
)
HEADER_WORDS = re.compile(r"^(?:tax\s+)?invoice\b|^bill\b|^receipt\b|^page\b", re.I)


@dataclass
class Item:
    description: str
    quantity: Decimal
    unit_price: Decimal
    amount: Decimal


@dataclass
class Read:
    supplier_name: str = ""
    vat_number: str = ""
    reference: str = ""
    issue_date: date | None = None
    due_date: date | None = None
    currency: str = ""
    net: Decimal | None = None
    tax: Decimal | None = None
    total: Decimal | None = None
    items: list[Item] = field(default_factory=list)

    @property
    def found(self) -> list[str]:
        names = ["supplier_name", "vat_number", "reference", "issue_date", "due_date", "currency"]
        names += ["net", "tax", "total"]
        return [name for name in names if getattr(self, name) not in ("", None)] + (
            ["lines"] if self.items else []
        )


def amount_of(text: str) -> Decimal | None:
    """A written amount as a Decimal: the last "." or "," followed by one to two digits (three
    only when the other separator also appears) is the decimal point; the rest group thousands."""
    value = text.replace("\u00a0", "").replace(" ", "")
    negative = value.startswith("-")
    value = value.lstrip("-")
    match = re.search(r"[.,](\d{1,3})$", value)
    if match and (len(match.group(1)) < 3 or ("," in value and "." in value)):
        whole, fraction = value[: match.start()], match.group(1)
    else:
        whole, fraction = value, ""
    whole = re.sub(r"[.,]", "", whole)
    try:
        amount = Decimal(f"{whole}.{fraction}" if fraction else whole)
    except InvalidOperation:
        return None
    return -amount if negative else amount


def _amounts(line: str) -> list[Decimal]:
    found = [amount_of(match.group(0)) for match in AMOUNT_RE.finditer(line)]
    return [value for value in found if value is not None]


def _date_in(text: str, *, day_first: bool) -> date | None:
    for pattern in DATE_RES:
        match = pattern.search(text)
        if match:
            try:
                return dateparser.parse(
                    match.group(0), dayfirst=day_first, yearfirst="-" in match.group(0)[:5]
                ).date()
            except (ValueError, OverflowError):
                continue
    return None


def _currency(text: str) -> str:
    codes = re.findall(r"\b([A-Z]{3})\b", text)
    for code in codes:
        if code in iso4217.Currency.__members__ or code.lower() in iso4217.Currency.__members__:
            return code
    for symbol, code in SYMBOLS.items():
        if symbol in text:
            return code
    return ""


def _labelled_date(
    lines: list[str], label: re.Pattern[str], skip: re.Pattern[str] | None, day_first: bool
) -> date | None:
    for line in lines:
        match = label.search(line)
        if match and not (skip and skip.search(line)):
            found = _date_in(line[match.end() :], day_first=day_first)
            if found:
                return found
    return None


def read(text: str, *, day_first: bool = True) -> Read:
    """What the bill's text says (see the module). `day_first`: 03/04/2026 is 3 April."""
    lines = [re.sub(r"[ \t]+", " ", line).strip() for line in text.splitlines()]
    lines = [line for line in lines if line]
    result = Read(currency=_currency(text))
    for line in lines:
        if not HEADER_WORDS.search(line) and re.search(r"[A-Za-z]{2}", line):
            result.supplier_name = line[:200]
            break
    reference = REFERENCE_RE.search(text)
    if reference and re.search(r"\d", reference.group(1)):
        result.reference = reference.group(1).strip(".")[:100]
    vat = VAT_RE.search(text)
    if vat:
        result.vat_number = re.sub(r"\s", "", vat.group(1)).upper()[:30]
    result.due_date = _labelled_date(lines, DUE_LABEL, None, day_first)
    result.issue_date = _labelled_date(lines, ISSUE_LABEL, DUE_LABEL, day_first)
    if result.issue_date is None:
        result.issue_date = _date_in(text, day_first=day_first)
    totals: list[Decimal] = []
    for line in lines:
        amounts = _amounts(line)
        if not amounts:
            continue
        if TOTAL_LABEL.search(line) and not NOT_TOTAL.search(line):
            totals.append(amounts[-1])
        elif NET_LABEL.search(line) and result.net is None:
            result.net = amounts[-1]
        elif TAX_LABEL.search(line) and not NOT_TAX.search(line.split(":")[0]) and result.tax is None:
            result.tax = amounts[-1]
        else:
            item = ITEM_RE.match(line)
            if item:
                quantity = amount_of(item.group("quantity"))
                price = amount_of(item.group("price"))
                amount = amount_of(item.group("amount"))
                if (
                    quantity
                    and price is not None
                    and amount is not None
                    and abs(quantity * price - amount) < Decimal("0.01")
                ):
                    result.items.append(
                        Item(item.group("description").strip()[:500], quantity, price, amount)
                    )
    if totals:
        result.total = max(totals)
    return result

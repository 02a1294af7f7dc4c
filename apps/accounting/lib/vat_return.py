"""The UK VAT return (Making Tax Digital's nine boxes) from the ledger's taxed lines, invoice basis.

Every journal line that carries a tax type counts, in base currency, on the side of its entry:
the sales journal (SAL) makes outputs, the purchases journal (PUR) inputs; another journal's line is
an output on an income account or a credit to the tax account, an input otherwise. A void or a
correction counts as it was posted (its reversing lines take the figures back in the period they
are dated in).

- Box 1: the tax posted on outputs (the tax account's lines), plus the tax due under the reverse
  charge on inputs whose tax type reports in box 1 (net x rate, per tax type, rounded once).
- Box 2: the tax due on acquisitions of goods (reverse-charge inputs whose tax type reports in box
  2 or 9, Northern Ireland from the EU).
- Box 3 = 1 + 2. Box 4: the tax posted on inputs, plus the reverse-charge tax of boxes 1 and 2
  (reclaimed as it is due). Box 5: the difference of 3 and 4, never negative (`payable` says
  which way it goes).
- Box 6: the net of outputs (standard, reduced, zero-rated, exempt and reverse-charge sales), plus
  the net of reverse-charge services received (HMRC counts those as outputs too). Box 7: the net
  of inputs. Box 8: outputs whose tax type reports in box 8 (goods to the EU); box 9: inputs whose
  tax type reports in box 2 or 9. Out-of-scope lines are in no box.
- Boxes 1-5 in pounds and pence; boxes 6-9 in whole pounds, the pence left out (towards zero), as
  HMRC asks.

Cash accounting (VAT counted when money moves) and the flat rate scheme need what the ledger does
not keep per payment; the reports' selector refuses them (VAT_SCHEME_NOT_SUPPORTED) rather than answer
figures that would be wrong.
"""

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import ROUND_DOWN, Decimal

from apps.accounting.lib.money import round_money

ZERO = Decimal(0)
HUNDRED = Decimal(100)
OUTPUT = "output"
INPUT = "input"
SCHEMES = ("invoice", "cash", "flatRate")
ACQUISITION_BOXES = ("2", "9")
# Each box: its field in HMRC's MTD VAT API, and what it holds.
BOXES = {
    1: ("vatDueSales", "VAT due on sales and other outputs"),
    2: ("vatDueAcquisitions", "VAT due on acquisitions of goods (NI from EU)"),
    3: ("totalVatDue", "Total VAT due (1 + 2)"),
    4: ("vatReclaimedCurrPeriod", "VAT reclaimed on purchases and other inputs"),
    5: ("netVatDue", "Net VAT to pay or reclaim"),
    6: ("totalValueSalesExVAT", "Total sales and other outputs, excluding VAT"),
    7: ("totalValuePurchasesExVAT", "Total purchases and other inputs, excluding VAT"),
    8: ("totalValueGoodsSuppliedExVAT", "Goods supplied to the EU (NI), excluding VAT"),
    9: ("totalAcquisitionsExVAT", "Goods acquired from the EU (NI), excluding VAT"),
}


@dataclass(frozen=True)
class TaxedLine:
    """One journal line with a tax type, in base currency (signed: debit positive)."""

    side: str  # OUTPUT or INPUT
    on_tax_account: bool
    tax_code: str
    kind: str  # the tax type's kind (apps.accounting.models.TaxType.Kind)
    rate: Decimal
    box: str  # the tax type's report box
    amount: Decimal


@dataclass
class TaxTypeRow:
    """What one tax type adds to the return, on one side: its net and its tax."""

    tax_code: str
    side: str
    kind: str
    net: Decimal = ZERO
    tax: Decimal = ZERO
    reverse_charge_tax: Decimal = ZERO


@dataclass
class VatReturn:
    currency: str
    boxes: dict[int, Decimal]
    payable: bool
    rows: list[TaxTypeRow] = field(default_factory=list)


def side_of(*, journal: str, account_type: str, on_tax_account: bool, amount: Decimal) -> str:
    if journal == "SAL":
        return OUTPUT
    if journal == "PUR":
        return INPUT
    if on_tax_account:
        return OUTPUT if amount < 0 else INPUT
    return OUTPUT if account_type == "income" else INPUT


def whole_pounds(amount: Decimal) -> Decimal:
    return amount.quantize(Decimal(1), rounding=ROUND_DOWN)


def compute(lines: Iterable[TaxedLine], *, currency: str) -> VatReturn:
    """The nine boxes of the lines (see the module)."""
    rows: dict[tuple[str, str], TaxTypeRow] = {}
    rates: dict[str, tuple[Decimal, str]] = {}
    for line in lines:
        if line.kind == "out_of_scope":
            continue
        row = rows.setdefault((line.tax_code, line.side), TaxTypeRow(line.tax_code, line.side, line.kind))
        # Outputs are credits: turned positive, as the return shows them.
        value = -line.amount if line.side == OUTPUT else line.amount
        if line.on_tax_account:
            row.tax += value
        else:
            row.net += value
        rates[line.tax_code] = (line.rate, line.box)
    boxes: dict[int, Decimal] = defaultdict(Decimal)
    for row in rows.values():
        rate, box = rates[row.tax_code]
        if row.side == OUTPUT:
            boxes[1] += row.tax
            boxes[6] += row.net
            if box == "8":
                boxes[8] += row.net
            continue
        boxes[4] += row.tax
        boxes[7] += row.net
        if row.kind == "reverse_charge":
            due = round_money(row.net * rate / HUNDRED, currency)
            row.reverse_charge_tax = due
            boxes[4] += due
            if box in ACQUISITION_BOXES:
                boxes[2] += due
                boxes[9] += row.net
            else:
                boxes[1] += due
                boxes[6] += row.net
        elif box in ACQUISITION_BOXES:
            boxes[9] += row.net
    boxes[3] = boxes[1] + boxes[2]
    difference = boxes[3] - boxes[4]
    boxes[5] = abs(difference)
    result = {number: round_money(boxes[number], currency) for number in range(1, 6)}
    result.update({number: whole_pounds(boxes[number]) for number in range(6, 10)})
    ordered = sorted(rows.values(), key=lambda row: (row.side != OUTPUT, row.tax_code))
    for row in ordered:
        row.net, row.tax = round_money(row.net, currency), round_money(row.tax, currency)
        row.reverse_charge_tax = round_money(row.reverse_charge_tax, currency)
    return VatReturn(currency=currency, boxes=result, payable=difference >= 0, rows=ordered)

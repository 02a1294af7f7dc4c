"""Tax on a document's lines: net, tax and gross per line, per tax type and in total.

Prices are tax-exclusive (the tax is added) or tax-inclusive (the price holds the tax). The
books' `tax_rounding` says where the rounding happens (Xero and EN 16931 differ):
- `line`: each line's net and tax are rounded; the document adds the rounded lines up;
- `document`: each line's net is rounded (EN 16931 BT-131), the tax is computed once per tax type
  on the sum of those nets and rounded there (the VAT breakdown, BG-23); a line shows its share
  of the tax unrounded, the document's tax is the breakdown's.
With tax-inclusive prices the gross is what was written: rounding moves between net and tax,
never the total. Every rounding is `money.round_money`. Zero-rated, exempt, out-of-scope and
reverse-charge lines charge no tax on the document (reverse charge: the buyer accounts for it).
"""

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.utils.translation import gettext_lazy as _

from apps.accounting.lib.money import check_fits, round_money
from apps.accounting.models import TaxRounding, TaxType
from apps.core.errors import invalid

ZERO = Decimal(0)
HUNDRED = Decimal(100)


@dataclass(frozen=True)
class LineIn:
    quantity: Decimal
    unit_price: Decimal
    tax_type: TaxType
    discount_percent: Decimal = ZERO


@dataclass(frozen=True)
class LineTax:
    net: Decimal
    tax: Decimal
    gross: Decimal
    tax_type: TaxType


@dataclass(frozen=True)
class Group:
    tax_type: TaxType
    net: Decimal
    tax: Decimal


@dataclass(frozen=True)
class Breakdown:
    currency: str
    prices_include_tax: bool
    rounding: str
    lines: list[LineTax]
    groups: list[Group]
    net: Decimal
    tax: Decimal
    total: Decimal


def tax_types_by_code(codes: Sequence[str]) -> dict[str, TaxType]:
    """The live tax types of `codes`, or an error naming the first that does not exist."""
    found = {tax.code: tax for tax in TaxType.objects.filter(code__in=set(codes), archived=False)}
    for code in codes:
        if code not in found:
            raise invalid("taxType", _("there is no tax type {code}; listTaxTypes has the codes"), code=code)
    return found


def _gross_of_line(line: LineIn) -> Decimal:
    if not ZERO <= line.discount_percent <= HUNDRED:
        raise invalid("discountPercent", _("must be between 0 and 100"))
    return line.quantity * line.unit_price * (HUNDRED - line.discount_percent) / HUNDRED


def set_lines(document: Any, lines: Sequence[tuple[LineIn, dict[str, Any]]]) -> None:
    """Replaces the lines of a document in one currency (a sales document's, a bill's: its `lines`),
    each given as its `LineIn` and its other fields, with their net and tax as the document's
    currency and tax rules make them; the document's totals with them (its caller saves it)."""
    result = breakdown(
        [line for line, _fields in lines],
        currency=document.currency,
        prices_include_tax=document.prices_include_tax,
        rounding=document.tax_rounding,
    )
    made = document.lines.model
    parent = document.lines.field.name
    document.lines.all().delete()
    made.objects.bulk_create(
        made(
            **{parent: document},
            position=index,
            quantity=line.quantity,
            unit_price=line.unit_price,
            tax_type=line.tax_type,
            net=round_money(computed.net, document.currency),
            tax=round_money(computed.tax, document.currency),
            **fields,
        )
        for index, ((line, fields), computed) in enumerate(zip(lines, result.lines, strict=True))
    )
    document.net, document.tax, document.total = result.net, result.tax, result.total


def breakdown(
    lines: Sequence[LineIn], *, currency: str, prices_include_tax: bool, rounding: str
) -> Breakdown:
    if rounding not in TaxRounding.values:
        raise invalid("rounding", _("line or document"))
    results: list[LineTax] = []
    for line in lines:
        amount = _gross_of_line(line)
        # Before any rounding: the ledger's columns hold each line and the totals, or nothing is made.
        check_fits(amount, currency, what=str(_("A line")))
        rate = line.tax_type.charged_rate / HUNDRED
        if prices_include_tax:
            gross = round_money(amount, currency)
            exact_net = gross / (1 + rate)
        else:
            exact_net = amount
        if rounding == TaxRounding.LINE:
            if prices_include_tax:
                tax = round_money(gross - exact_net, currency)
                net = gross - tax
            else:
                net = round_money(exact_net, currency)
                tax = round_money(net * rate, currency)
        else:
            net = round_money(exact_net, currency) if not prices_include_tax else exact_net
            tax = net * rate if not prices_include_tax else gross - exact_net
        for value in (tax, net + tax):
            check_fits(value, currency, what=str(_("A line")))
        results.append(LineTax(net=net, tax=tax, gross=net + tax, tax_type=line.tax_type))
    groups: dict[int, Group] = {}
    for result in results:
        found = groups.get(result.tax_type.pk)
        groups[result.tax_type.pk] = Group(
            result.tax_type,
            (found.net if found else ZERO) + result.net,
            (found.tax if found else ZERO) + result.tax,
        )
    if rounding == TaxRounding.DOCUMENT:
        settled = {}
        for key, group in groups.items():
            rate = group.tax_type.charged_rate / HUNDRED
            if prices_include_tax:
                gross = group.net + group.tax  # the written prices, exactly
                tax = round_money(gross - gross / (1 + rate), currency)
                settled[key] = Group(group.tax_type, gross - tax, tax)
            else:
                settled[key] = Group(group.tax_type, group.net, round_money(group.net * rate, currency))
        groups = settled
    net = sum((group.net for group in groups.values()), ZERO)
    tax = sum((group.tax for group in groups.values()), ZERO)
    for value, what in ((net, _("The net total")), (tax, _("The tax")), (net + tax, _("The total"))):
        check_fits(value, currency, what=str(what))
    return Breakdown(
        currency=currency,
        prices_include_tax=prices_include_tax,
        rounding=rounding,
        lines=results,
        groups=list(groups.values()),
        net=net,
        tax=tax,
        total=net + tax,
    )

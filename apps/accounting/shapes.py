"""Answers of the Accounting tools. Amounts are decimal strings ("1234.50") in the currency the
answer names, never floats."""

from datetime import date
from decimal import Decimal
from typing import Annotated

from pydantic import Field, PlainSerializer

from apps.catalogue.shapes import Out

# A decimal as a plain JSON string: exact, and one short schema ({"type": "string"}).
Amount = Annotated[Decimal, PlainSerializer(lambda value: format(value, "f"), return_type=str)]


class TaxTypeOut(Out):
    code: str
    name: str
    rate: Amount = Field(description="Percent")
    kind: str
    report_box: str
    exemption_reason: str


class TrialBalanceRowOut(Out):
    code: str
    name: str
    type: str
    debit: Amount
    credit: Amount


class SeriesOut(Out):
    key: str
    next: str = Field(description="The number the next approval gets")


class RateOut(Out):
    rate: Amount = Field(description="Units of the target per unit of the source")
    day: date = Field(description="Day the rate was published")
    provider: str

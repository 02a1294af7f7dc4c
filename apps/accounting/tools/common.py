"""Argument and answer shapes the Accounting tools share."""

from decimal import Decimal
from typing import Annotated

from pydantic import Field, WithJsonSchema

Currency = Annotated[str, Field(min_length=3, max_length=3, description="ISO 4217, e.g. EUR")]
# A decimal as a JSON number or a string of digits ("12.50"): the string is money, not free text.
Decimalish = Annotated[
    Decimal,
    Field(allow_inf_nan=False, max_digits=19, decimal_places=6),
    WithJsonSchema({"type": ["string", "number"], "pattern": r"^-?\d+(\.\d+)?$"}),
]
TaxCode = Annotated[str, Field(min_length=1, max_length=20, description="Code from listTaxTypes")]

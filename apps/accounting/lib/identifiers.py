"""Identifiers checked with maintained libraries: VAT numbers (python-stdnum: the format and
check digits of every EU state's number, and the UK's) and IBANs (schwifty: country, length,
check digits and the national bank code)."""

from django.utils.translation import gettext_lazy as _
from schwifty import IBAN
from schwifty.exceptions import SchwiftyException
from stdnum.eu import vat as eu_vat
from stdnum.exceptions import ValidationError as StdnumError
from stdnum.gb import vat as gb_vat

from apps.core.errors import invalid


def vat_number(value: str, *, field: str = "vatNumber") -> str:
    """`value` in its compact form ("GB 980 7806 84" -> "GB980780684"), or an error naming `field`."""
    compact = "".join((value or "").split()).upper()
    try:
        if compact.startswith(("GB", "XI")):
            return compact[:2] + gb_vat.validate(compact[2:])
        return eu_vat.validate(compact)
    except StdnumError as error:
        raise invalid(
            field, _("{value} is not a valid VAT number ({why})"), value=value, why=str(error)
        ) from None


def iban(value: str, *, field: str = "iban") -> str:
    """`value` as a compact, valid IBAN, or an error naming `field` and what failed."""
    try:
        return IBAN(value).compact
    except SchwiftyException as error:
        raise invalid(field, _("{value} is not a valid IBAN ({why})"), value=value, why=error) from None

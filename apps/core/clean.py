"""Values as people and agents write them, made into what a record keeps, or refused with the one
validation failure of a field (`apps.core.errors.invalid`: "field: problem.", each problem a
translatable template of the kit's; a required value left empty is `FieldRequired`, in the same
words).

Every area's services check their fields with these, so the same kind of value is accepted, and
refused with the same words, whichever area it is given to:

    name = clean.text(fields["name"], field="name", limit=200, required=True)   # one line
    notes = clean.long_text(fields["notes"], field="notes", limit=5000)          # keeps its lines
    currency = clean.currency(fields["currency"])                                # "eur" -> "EUR"
    zone = clean.zone(fields["time_zone"])                                       # an IANA name
    email = clean.email(fields["email"])                                         # "" stays ""
    person = clean.person_by_email(fields["owner_email"], field="ownerEmail")

and a number a record keeps is said as people write it: `clean.plain(Decimal("10.00"))` is 10.
Text from outside, which nobody may be asked to correct (a mail, a PDF, another server's answer),
is made `storable` instead of refused.
"""

import re
import unicodedata
from decimal import Decimal
from typing import Any

import iso4217
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.utils.translation import gettext as _

from apps.core import json_input, times
from apps.core.errors import FieldRequired, NotFound, invalid

# The years a date or date-time may fall in. Far out of them, a time moved to UTC or to a zone
# falls outside what Python's datetime holds (year 1 with an offset east of UTC, 9999 with one
# west), and one stored that way fails every later read of its record, for everyone.
YEARS = (1000, 2999)
# The longest address a mail path carries (RFC 5321), and what every e-mail column keeps: Django's
# validator lets through up to 320, which no column here holds.
EMAIL_LIMIT = 254


NUL = re.compile("\x00")
# The control characters but line breaks and tabs.
CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def storable(value: str, *, controls: bool = False) -> str:
    """`value` as PostgreSQL keeps it: without NUL (with `controls`, without the other control
    characters but line breaks and tabs), UTF-16 surrogates paired into their character and a
    lone one (a byte no charset decoded) replaced by U+FFFD. One value PostgreSQL refuses would
    stop what stores it (a mailbox's sync, a server's discovery) at it for good."""
    value = (CONTROLS if controls else NUL).sub("", value)
    return value if value.isascii() else value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def storable_json(value: Any) -> Any:
    """A JSON value with every text and key `storable` (PostgreSQL refuses NUL in JSON too)."""
    if isinstance(value, str):
        return storable(value)
    if isinstance(value, dict):
        return {storable(str(key)): storable_json(each) for key, each in value.items()}
    if isinstance(value, list):
        return [storable_json(each) for each in value]
    return value


def within_years(year: int) -> bool:
    """Whether a year is among `YEARS`, the years every date of the service is held to."""
    return YEARS[0] <= year <= YEARS[1]


def years_problem() -> str:
    """What is said of a date out of `YEARS`."""
    return _("must be in the years {first} to {last}").format(first=YEARS[0], last=YEARS[1])


def in_years(value: Any, *, field: str) -> Any:
    """A date or date-time within `YEARS` (None stays None), else refused by `field`."""
    if value is not None and not within_years(value.year):
        raise invalid(field, years_problem())
    return value


def text(value: Any, *, field: str, limit: int, required: bool = False) -> str:
    """One line of text with its spaces tidied (a name, a title): at most `limit` characters,
    required when `required`."""
    cleaned = " ".join(str(value or "").split())
    return _within(cleaned, field=field, limit=limit, required=required)


def long_text(value: Any, *, field: str, limit: int, required: bool = False) -> str:
    """Text that keeps its lines (an assessment, a description), trimmed at both ends."""
    cleaned = str(value or "").replace("\x00", "").strip()
    return _within(cleaned, field=field, limit=limit, required=required)


# Characters that show nothing: spaces, controls, and format characters (a zero-width space, a
# word joiner, a byte-order mark).
UNSEEN = frozenset({"Zs", "Zl", "Zp", "Cc", "Cf"})


def shows_something(text: str) -> bool:
    """Whether `text` has a character a person would see: a title of zero-width spaces is empty."""
    return any(unicodedata.category(character) not in UNSEEN for character in text)


def _within(cleaned: str, *, field: str, limit: int, required: bool) -> str:
    # A page's form or a service's caller may bring what a tool's input model refuses: NUL, a
    # lone surrogate (no store keeps them: PostgreSQL refuses the row).
    problem = json_input.text_problem(cleaned)
    if problem is not None:
        raise invalid(field, problem)
    if required and not shows_something(cleaned):
        raise FieldRequired(field=field, details={field: [_("is required and cannot be empty")]})
    if len(cleaned) > limit:
        raise invalid(field, _("at most {limit} characters"), limit=limit)
    return cleaned


def currency(value: Any, *, field: str = "currency") -> str:
    """An ISO 4217 currency code of money, upper case ("eur" -> "EUR"): codes the standard does
    not list (ZZZ) are refused, and so are its codes of no money, without minor units (XAU gold,
    XXX "no currency", XTS for tests): every currency kept here is one of amounts."""
    code = str(value or "").strip().upper()
    try:
        known = iso4217.Currency(code)
    except ValueError:
        raise invalid(
            field, _("{value!r} is not a three-letter ISO 4217 code such as EUR, GBP or USD"), value=value
        ) from None
    if known.exponent is None:
        raise invalid(field, _("{code} is not an ISO 4217 currency of money"), code=code)
    return code


def zone(value: Any, *, field: str = "timeZone") -> str:
    """An IANA time zone name, as the zone database of this machine knows it ("Europe/Berlin")."""
    name = str(value or "").strip()
    if name not in times.known_zones():
        raise invalid(
            field,
            _("{name!r} is not a time zone; use an IANA name such as Europe/London or America/New_York"),
            name=name or value,
        )
    return name


def email(value: Any, *, field: str = "email", required: bool = False) -> str:
    """An e-mail address, trimmed and in lower case; an empty one stays empty (the field cleared)
    unless `required`."""
    address = str(value or "").strip().lower()
    if len(address) > EMAIL_LIMIT:
        raise invalid(field, _("at most {limit} characters"), limit=EMAIL_LIMIT)
    if address or required:
        try:
            validate_email(address)
        except ValidationError:
            raise invalid(field, _("{address!r} is not a valid e-mail address"), address=address) from None
    return address


def person_by_email(email: str, *, field: str | None = None) -> Any:
    """The active person of this workspace with this e-mail address (any role), for naming someone
    to share with, hand over to or notify. Nobody: "not found" (PersonNotFound), or, given the
    argument's `field` (a person named among other fields), that field's validation failure."""
    try:
        return get_user_model()._default_manager.person_by_email(email)
    except NotFound:
        if field is None:
            raise
        raise invalid(field, _("{email!r} is no active person of this workspace"), email=email) from None


def able(someone: Any, permission: Any, *, field: str) -> Any:
    """`someone` given work (an assignee, an owner), when their role grants `permission`: a
    record given to a person who cannot work it waits on them for ever. Refused by `field`."""
    if someone is not None and not someone.has_perm(str(permission)):
        raise invalid(
            field,
            _("{email} cannot be given this: their role does not let them work it ({permission})"),
            email=someone.email,
            permission=str(getattr(permission, "value", permission)),
        )
    return someone


def plain(number: Decimal) -> Decimal:
    """`number` without trailing zeros and never in exponent form: 10.00 is 10, not `normalize()`'s
    1E+1 (which a JSON answer or a sentence would say as "1E+1"); 0.50 is 0.5."""
    reduced = number.normalize()
    exponent = reduced.as_tuple().exponent
    return Decimal(int(reduced)) if isinstance(exponent, int) and exponent > 0 else reduced

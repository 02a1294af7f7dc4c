"""E-mail addresses as people and agents write them: parsed, checked, normalised (lower-case
domain), with a clear error naming the one that does not parse. An item that names several
addresses ("a@x.example, b@y.example") gives every one of them; an item with a line break or
another control character is refused whole (it could smuggle a header in), never cut.

International domains (RFC 5890) are kept as people write them (`joerg@bücher.example`) and
written in their ASCII form (`xn--bcher-kva.example`) wherever they leave the service: headers
and the SMTP envelope (`ascii`). A non-ASCII local part is refused when the draft is saved:
it needs SMTPUTF8 from every server on its way, which a sender cannot know."""

import re
from email.headerregistry import Address
from email.utils import getaddresses, parseaddr

import idna
from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from apps.mail import errors

CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def ascii_domain(domain: str) -> str:
    """The domain's IDNA (xn--) form, lower case (UTS #46 mapping, as browsers and mail do);
    UnicodeError when it has none."""
    if domain.isascii():
        return domain.lower()
    try:
        return idna.encode(domain, uts46=True).decode("ascii").lower()
    except idna.IDNAError as error:
        raise UnicodeError(str(error)) from error


def one(value: str, *, field: str = "to") -> str:
    """The bare address of `value` ("Jo <jo@example.org>" or "jo@example.org"), lower-cased
    domain; BadAddress when it does not parse or names more than one address."""
    if CONTROL.search(value):
        raise errors.AddressWithLineBreak(address=CONTROL.sub(" ", value)[:254], field=field)
    if len(_parts(value)) > 1:
        raise errors.OneAddressOnly(address=value[:254], field=field)
    _name, address = parseaddr(value.strip())
    if not address or "@" not in address:
        raise errors.BadAddress(address=value[:254], field=field)
    local, _, domain = address.rpartition("@")
    try:
        validate_email(f"{local}@{ascii_domain(domain)}")
    except (UnicodeError, ValidationError) as error:
        raise errors.BadAddress(address=value[:254], field=field) from error
    return f"{local}@{domain.lower()}"


def split(value: str, *, field: str = "to") -> list[str]:
    """Every address an item names ("a@x.example, Jo <b@y.example>"), each checked."""
    if CONTROL.search(value):
        raise errors.AddressWithLineBreak(address=CONTROL.sub(" ", value)[:254], field=field)
    parts = _parts(value)
    if len(parts) < 2:
        return [one(value, field=field)]
    return [one(address or value, field=field) for address in parts]


def _parts(value: str) -> list[str]:
    """The addresses an item names, split at commas and semicolons (Outlook's) but those of a
    quoted display name ("Doe, Jo" <jo@x.example>); empty ones (a trailing comma) left out."""
    return [address for name, address in getaddresses([value]) if address or name]


def many(values: list[str], *, field: str = "to") -> list[str]:
    """The addresses of `values` (an item may name several), each once, in order."""
    found: list[str] = []
    for value in values:
        for address in split(value, field=field):
            if address.lower() not in {a.lower() for a in found}:
                found.append(address)
    return found


def ascii(address: str) -> str:
    """`address` as it is written on the wire: its domain in IDNA form."""
    local, _, domain = address.rpartition("@")
    return f"{local}@{ascii_domain(domain)}"


def of_header(value: str) -> list[str]:
    """The addresses a received header names (lenient: what does not parse is left out)."""
    found = []
    for _name, address in getaddresses([value]):
        if "@" in address:
            found.append(address.strip().lower())
    return found


def header(address: str, name: str = "") -> str:
    """A header value for `address` with a display name (RFC 2047 as needed), its domain in
    IDNA form."""
    local, _, domain = ascii(address).rpartition("@")
    return str(Address(display_name=name, username=local, domain=domain))

"""E-mail addresses as people and agents write them: parsed, checked, normalised (IDNA domains,
lower case), with a clear error naming the one that does not parse."""

from email.headerregistry import Address
from email.utils import getaddresses, parseaddr

from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from apps.mail import errors


def one(value: str, *, field: str = "to") -> str:
    """The bare address of `value` ("Jo <jo@example.org>" or "jo@example.org"), lower-cased
    domain; BadAddress when it does not parse."""
    _name, address = parseaddr(value.strip())
    if not address or "@" not in address:
        raise errors.BadAddress(address=value[:254], field=field)
    local, _, domain = address.rpartition("@")
    try:
        ascii_domain = domain.encode("idna").decode("ascii").lower()
        validate_email(f"{local}@{ascii_domain}")
    except (UnicodeError, ValidationError) as error:
        raise errors.BadAddress(address=value[:254], field=field) from error
    return f"{local}@{domain.lower()}"


def many(values: list[str], *, field: str = "to") -> list[str]:
    """The addresses of `values`, each once, in order."""
    found: list[str] = []
    for value in values:
        address = one(value, field=field)
        if address.lower() not in {a.lower() for a in found}:
            found.append(address)
    return found


def of_header(value: str) -> list[str]:
    """The addresses a received header names (lenient: what does not parse is left out)."""
    found = []
    for _name, address in getaddresses([value]):
        if "@" in address:
            found.append(address.strip().lower())
    return found


def header(address: str, name: str = "") -> str:
    """A header value for `address` with a display name, RFC 6532 UTF-8 as needed."""
    local, _, domain = address.rpartition("@")
    return str(Address(display_name=name, username=local, domain=domain))

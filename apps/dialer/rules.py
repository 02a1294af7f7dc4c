"""The rules every call and text message passes before anything leaves the service: E.164
numbers, emergency and premium numbers refused, calling hours at the callee's location, STOP
and START words, text-message segments."""

from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import phonenumbers
from babel.core import get_global
from django.conf import settings
from django.utils.translation import gettext as _
from phonenumbers import PhoneNumberType, shortnumberinfo

from apps.core.errors import invalid
from apps.dialer import errors

# What a person texts to stop every message and call (CTIA, FCC 2024 revocation rule).
STOP_WORDS = frozenset(
    {"STOP", "STOPALL", "QUIT", "END", "REVOKE", "OPT OUT", "OPTOUT", "CANCEL", "UNSUBSCRIBE"}
)
# What a person texts to receive messages again after a STOP (the provider's opt-in words; not a
# bare YES, which answers any question).
START_WORDS = frozenset({"START", "UNSTOP"})
GSM7 = frozenset(
    "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\x1bÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§"
    "¿abcdefghijklmnopqrstuvwxyzäöñüà^{}\\[~]|€"
)
GSM7_DOUBLE = frozenset("^{}\\[~]|€")


def e164(value: str, *, field: str) -> str:
    """`value` as an E.164 number (+ and digits), read in ATRIUM_DIALER_DEFAULT_REGION when it has
    no country code; emergency and short numbers refused (EmergencyNumber), premium ones too."""
    raw = (value or "").strip()
    region = settings.ATRIUM_DIALER_DEFAULT_REGION
    digits = "".join(ch for ch in raw if ch.isdigit())
    if digits and len(digits) <= 6 and shortnumberinfo.connects_to_emergency_number(digits, region):
        raise errors.EmergencyNumber(number=raw)
    try:
        number = phonenumbers.parse(raw, region)
    except phonenumbers.NumberParseException:
        raise invalid(field, _("not a phone number; give it as +<country code><number>")) from None
    if not phonenumbers.is_valid_number(number):
        raise invalid(field, _("not a valid phone number; give it as +<country code><number>"))
    if number.extension:
        # E.164 has no extension: the number would be called without it, reaching someone else.
        raise invalid(
            field,
            _("has an extension ({extension}), which is not dialled; give the number without it"),
            extension=number.extension,
        )
    formatted = phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)
    where = phonenumbers.region_code_for_number(number) or region
    national = phonenumbers.national_significant_number(number)
    if shortnumberinfo.is_emergency_number(national, where):
        raise errors.EmergencyNumber(number=formatted)
    if phonenumbers.number_type(number) in (PhoneNumberType.PREMIUM_RATE, PhoneNumberType.SHARED_COST):
        raise errors.PremiumNumber(number=formatted)
    return formatted


def searched_number(text: str) -> str:
    """`text` as an E.164 number when it reads as a whole valid one (read in the default region
    when it has no country code, as calls are), else "": a number searched as people write it
    ("020 7183 8750") finds the calls kept as +442071838750."""
    try:
        number = phonenumbers.parse((text or "").strip(), settings.ATRIUM_DIALER_DEFAULT_REGION)
    except phonenumbers.NumberParseException:
        return ""
    if not phonenumbers.is_valid_number(number):
        return ""
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)


def zones_of(number: str, given: str = "") -> list[str]:
    """The callee's possible time zones: the one given (their address's), or every zone of the
    number's country (the calling hours must then hold in all of them)."""
    if given:
        try:
            ZoneInfo(given)
        except (ZoneInfoNotFoundError, ValueError):
            raise invalid("calleeTimeZone", _("not a time zone; give one like Europe/Berlin")) from None
        return [given]
    region = phonenumbers.region_code_for_number(phonenumbers.parse(number))
    zones = list(get_global("territory_zones").get(region or "", ()))
    return zones or ["UTC"]


@dataclass(frozen=True)
class Hours:
    zone: str
    local: datetime


def outside_hours(zones: list[str], now: datetime) -> Hours | None:
    """The first of `zones` where `now` is outside the calling hours, or None when all are within."""
    start, end = settings.ATRIUM_DIALER_CALLING_START, settings.ATRIUM_DIALER_CALLING_END
    for zone in zones:
        local = now.astimezone(ZoneInfo(zone))
        if not start <= local.hour < end:
            return Hours(zone=zone, local=local)
    return None


def check_hours(number: str, zones: list[str], now: datetime) -> None:
    late = outside_hours(zones, now)
    if late is not None:
        start, end = settings.ATRIUM_DIALER_CALLING_START, settings.ATRIUM_DIALER_CALLING_END
        raise errors.OutsideCallingHours(
            number=number, local=late.local.strftime("%H:%M"), zone=late.zone, start=start, end=end
        )


def _word(text: str) -> str:
    return " ".join(text.strip().upper().replace("-", " ").split()).rstrip(".!")


def is_stop(text: str) -> bool:
    return _word(text) in STOP_WORDS


def is_start(text: str) -> bool:
    return _word(text) in START_WORDS


def segments(text: str) -> int:
    """How many parts a text message is sent in: GSM-7 160 (153 when split), else UCS-2 70 (67)."""
    if all(ch in GSM7 for ch in text):
        size = len(text) + sum(1 for ch in text if ch in GSM7_DOUBLE)
        return 1 if size <= 160 else -(-size // 153)
    units = len(text.encode("utf-16-le")) // 2
    return 1 if units <= 70 else -(-units // 67)

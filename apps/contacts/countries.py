"""Countries (ISO 3166-1, from pycountry) and phone numbers (E.164, from phonenumbers)."""

import functools
import re
import unicodedata
from dataclasses import dataclass

import phonenumbers
import pycountry
from django.utils.translation import gettext as _


@dataclass(frozen=True)
class Country:
    alpha2: str
    alpha3: str
    numeric: str
    name: str
    official_name: str
    calling_code: int | None
    flag: str


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


@functools.cache
def all_countries() -> tuple[Country, ...]:
    countries = []
    for entry in pycountry.countries:
        code = phonenumbers.country_code_for_region(entry.alpha_2)
        countries.append(
            Country(
                alpha2=entry.alpha_2,
                alpha3=entry.alpha_3,
                numeric=entry.numeric,
                name=entry.name,
                official_name=getattr(entry, "official_name", entry.name),
                calling_code=code or None,
                flag=getattr(entry, "flag", ""),
            )
        )
    return tuple(sorted(countries, key=lambda country: country.name))


@functools.cache
def _index() -> dict[str, Country]:
    index: dict[str, Country] = {}
    for country in all_countries():
        entry = pycountry.countries.get(alpha_2=country.alpha2)
        names = {country.name, country.official_name, getattr(entry, "common_name", "")}
        for name in filter(None, names):
            index.setdefault(_fold(name), country)
    return index


def get(code: str) -> Country | None:
    code = code.strip().upper()
    for country in all_countries():
        if code in (country.alpha2, country.alpha3, country.numeric):
            return country
    return None


def search(query: str, limit: int = 10) -> list[Country]:
    """Countries matching a code (DE, DEU, 276), a calling code (+49) or a name, best first."""
    query = query.strip()
    if not query:
        return []
    digits = query.removeprefix("+").replace(" ", "")
    if query.startswith("+") and digits.isdigit():
        code = int(digits)
        # The code's main country first (+44: the United Kingdom, then Guernsey, Jersey...).
        main = phonenumbers.region_code_for_country_code(code)
        sharing = [country for country in all_countries() if country.calling_code == code]
        return sorted(sharing, key=lambda country: country.alpha2 != main)[:limit]
    exact = get(query) if len(query) <= 3 else None
    if exact is not None:
        return [exact]
    folded = _fold(query)
    if not folded:
        return []
    if folded in _index():
        return [_index()[folded]]
    starts, contains = [], []
    for name, country in _index().items():
        if name.startswith(folded):
            starts.append(country)
        elif folded in name:
            contains.append(country)
    found: list[Country] = []
    for country in [*starts, *contains]:
        if country not in found:
            found.append(country)
    if not found:
        # A region of a country by its name (Scotland, Texas): what pycountry's search_fuzzy adds,
        # from an index made once (that search reads every name again, ~30 ms a call: an import's
        # column of unknown places took a minute for 800 rows).
        found = [match for code in _regions().get(folded, ()) if (match := get(code)) is not None]
    return found[:limit]


@functools.cache
def _regions() -> dict[str, tuple[str, ...]]:
    """The folded name of each ISO 3166-2 subdivision: the countries it lies in."""
    index: dict[str, list[str]] = {}
    for subdivision in pycountry.subdivisions:
        codes = index.setdefault(_fold(subdivision.name), [])
        if subdivision.country_code not in codes:
            codes.append(subdivision.country_code)
    return {name: tuple(codes) for name, codes in index.items()}


def resolve(value: str) -> Country | None:
    """One country for a code or an unambiguous name, or None."""
    matches = search(value, limit=2)
    if len(matches) == 1:
        return matches[0]
    folded = _fold(value)
    for country in matches:
        if _fold(country.name) == folded:
            return country
    return None


def normalise_phone(value: str, country: str = "") -> str:
    """E.164 for a number given internationally (+44 20 …), or nationally with a known country.

    Raises ValueError with a message saying what to send instead."""
    value = value.strip()
    try:
        number = phonenumbers.parse(value, country or None)
    except phonenumbers.NumberParseException as error:
        if error.error_type == phonenumbers.NumberParseException.INVALID_COUNTRY_CODE:
            raise ValueError(
                _(
                    "give the number in international form, starting with + and the country code "
                    "(or set the contact's country)"
                )
            ) from error
        raise ValueError(_("is not a phone number")) from error
    if not phonenumbers.is_possible_number(number):
        raise ValueError(_("is not a possible phone number (check the digits and the country code)"))
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)

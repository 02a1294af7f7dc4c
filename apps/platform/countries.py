"""Countries as the Platform area's tools name them (ISO 3166-1, from pycountry), and their
regions: the United Nations' M49 regions, sub-regions and intermediate regions (as the
countryinfo package keeps them) and the European Union (python-stdnum's list of member states)."""

import functools
import re
import unicodedata
from dataclasses import dataclass

import pycountry
from countryinfo import all_countries
from stdnum.eu import vat as eu_vat

from apps.platform.errors import UnknownCountry, UnknownRegion

EUROPEAN_UNION = "European Union"
# What people call a region that the M49 names otherwise.
ALIASES = {
    "eu": EUROPEAN_UNION,
    "latin america": "Latin America and the Caribbean",
    "latam": "Latin America and the Caribbean",
}


@dataclass(frozen=True)
class Country:
    code: str  # ISO 3166-1 alpha-2
    alpha3: str
    name: str
    region: str
    subregion: str
    intermediate_region: str
    eu: bool


@dataclass(frozen=True)
class Region:
    name: str
    kind: str  # "region", "subregion", "intermediate region" or "union"
    part_of: str
    codes: tuple[str, ...]


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def country(value: str) -> pycountry.db.Country:
    """The country a code (DE, DEU, 276) or an English name (Germany) names, or UNKNOWN_COUNTRY."""
    text = (value or "").strip()
    try:
        found = pycountry.countries.lookup(text) if text else None
    except LookupError:
        found = None
    if found is None:
        raise UnknownCountry(country=value)
    return found


def code_of(value: str) -> str:
    """The alpha-2 code of the country `value` names."""
    return str(country(value).alpha_2)


@functools.cache
def countries() -> tuple[Country, ...]:
    """Every country the M49 places in a region, by name."""
    # Its VAT numbers' states, less Northern Ireland's (XI), which is the United Kingdom.
    members = {code.upper() for code in eu_vat.MEMBER_STATES} - {"XI"}
    found: dict[str, Country] = {}
    for info in all_countries():
        iso = info.iso() or {}
        entry = pycountry.countries.get(alpha_2=iso.get("alpha2", ""))
        data = info.info()
        if entry is None or not data.get("region"):
            continue
        # The United Kingdom is listed again as its nations, under its code: the entry of its
        # own numeric code is the country.
        if entry.alpha_2 in found and iso.get("numeric") != entry.numeric:
            continue
        found[entry.alpha_2] = Country(
            code=entry.alpha_2,
            alpha3=entry.alpha_3,
            name=getattr(entry, "common_name", entry.name),
            region=str(data["region"]),
            subregion=str(data.get("subregion") or ""),
            intermediate_region=str(data.get("intermediateregion") or ""),
            eu=entry.alpha_2 in members,
        )
    return tuple(sorted(found.values(), key=lambda place: place.name))


@functools.cache
def regions() -> tuple[Region, ...]:
    """Every region with its countries: the M49's regions, then their parts, then the EU."""
    levels = (
        ("region", lambda place: place.region, lambda place: ""),
        ("subregion", lambda place: place.subregion, lambda place: place.region),
        ("intermediate region", lambda place: place.intermediate_region, lambda place: place.subregion),
    )
    found: list[Region] = []
    for kind, name_of, parent_of in levels:
        names: dict[str, tuple[str, list[str]]] = {}
        for place in countries():
            name = name_of(place)
            if name:
                names.setdefault(name, (parent_of(place), []))[1].append(place.code)
        found += [Region(name, kind, parent, tuple(codes)) for name, (parent, codes) in sorted(names.items())]
    found.append(Region(EUROPEAN_UNION, "union", "", tuple(place.code for place in countries() if place.eu)))
    return tuple(found)


def region(name: str) -> Region:
    """The region called `name` (case and accents aside; "EU" and "LatAm" too), or UNKNOWN_REGION."""
    wanted = _fold(ALIASES.get(_fold(name), name))
    for each in regions():
        if _fold(each.name) == wanted:
            return each
    raise UnknownRegion(region=name, known=", ".join(each.name for each in regions()))


def in_region(found: Region) -> list[Country]:
    codes = set(found.codes)
    return [place for place in countries() if place.code in codes]


def parts_of(found: Region) -> list[Region]:
    return [each for each in regions() if each.part_of == found.name and each.kind != "union"]

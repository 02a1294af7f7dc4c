"""Reference data, offline, from maintained packages: countries by region, a country's bank
account formats, the check of bank details and of tax ids, public holidays."""

import datetime
from typing import Annotated

from django.utils import timezone
from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.catalogue.shapes import Out
from apps.core import clean
from apps.platform import banking, countries, public_holidays, taxids
from apps.platform.errors import NothingToValidate
from apps.platform.permissions import PlatformPerm

CountryArg = Annotated[
    str, Field(min_length=2, max_length=60, description="ISO code (DE, DEU, 276) or English name")
]
FIRST_YEAR, LAST_YEAR = 1900, 2200


class CountryOut(Out):
    code: str
    alpha3: str
    name: str
    region: str
    subregion: str
    intermediate_region: str
    eu: bool


class RegionOut(Out):
    name: str
    kind: str
    part_of: str
    countries: int


class CountriesByRegionOut(Out):
    region: RegionOut | None
    countries: list[CountryOut]
    regions: list[RegionOut]


def _region_out(found: countries.Region) -> RegionOut:
    return RegionOut(name=found.name, kind=found.kind, part_of=found.part_of, countries=len(found.codes))


@tool("getCountriesByRegion", permission=PlatformPerm.VIEW, title="Countries by region", read_only=True)
def get_countries_by_region(
    ctx: ToolContext,
    *,
    region: Annotated[
        str | None,
        Field(
            max_length=60,
            description="A UN M49 region (Europe, Western Africa, Caribbean) or EU; null: list them",
        ),
    ] = None,
) -> CountriesByRegionOut:
    """List the countries of a world region or of the EU, with their ISO codes.

    Regions are the UN's (M49): continents, their parts, and those parts' parts."""
    if region is None or not region.strip():
        return CountriesByRegionOut(
            region=None, countries=[], regions=[_region_out(each) for each in countries.regions()]
        )
    found = countries.region(region)
    return CountriesByRegionOut(
        region=_region_out(found),
        countries=[CountryOut.model_validate(place) for place in countries.in_region(found)],
        regions=[_region_out(part) for part in countries.parts_of(found)],
    )


class AccountPartOut(Out):
    name: str
    start: int
    length: int


class BankConfigOut(Out):
    country: str
    name: str
    uses_iban: bool
    iban_length: int | None
    iban_format: str = Field(description="SWIFT notation: 2!n two digits, 4!a four capitals, 8!c either")
    account_format: str
    account_length: int | None
    account_pattern: str
    parts: list[AccountPartOut]
    sepa: bool
    aspirational: bool
    bic_pattern: str
    banks_known: int


@tool(
    "getCountryBankConfig",
    permission=PlatformPerm.VIEW,
    title="A country's bank account format",
    read_only=True,
)
def get_country_bank_config(ctx: ToolContext, *, country: CountryArg) -> BankConfigOut:
    """Say what a country's bank details look like: IBAN length and format, national account parts, BIC.

    To check given details: validateBankDetails."""
    found = countries.country(country)
    config = banking.config(found.alpha_2)
    return BankConfigOut.model_validate(
        {**config.__dict__, "country": found.alpha_2, "name": getattr(found, "common_name", found.name)}
    )


class IbanCheckOut(Out):
    given: str
    valid: bool
    problem: str
    iban: str
    formatted: str
    country: str
    bank_code: str
    branch_code: str
    account_number: str
    bic: str
    bank_name: str
    sepa: bool


class BicCheckOut(Out):
    given: str
    valid: bool
    problem: str
    bic: str
    country: str
    location_code: str
    branch_code: str
    known: bool
    bank_names: list[str]


class BankDetailsOut(Out):
    iban: IbanCheckOut | None
    bic: BicCheckOut | None
    bic_matches_iban: bool | None


@tool("validateBankDetails", permission=PlatformPerm.VIEW, title="Validate bank details", read_only=True)
def validate_bank_details(
    ctx: ToolContext,
    *,
    iban: Annotated[str | None, Field(max_length=50, description="As written, spaces allowed")] = None,
    bic: Annotated[
        str | None, Field(max_length=20, description="Also called SWIFT code; 8 or 11 characters")
    ] = None,
    country: Annotated[
        str | None, Field(max_length=60, description="With bankCode and accountNumber")
    ] = None,
    bank_code: Annotated[str | None, Field(max_length=20, description="A national bank or sort code")] = None,
    account_number: Annotated[
        str | None, Field(max_length=40, description="A national account number")
    ] = None,
) -> BankDetailsOut:
    """Check an IBAN or BIC (format, check digits, bank name), or make the IBAN of a national account.

    Offline: whether the account exists is not known. A country's formats: getCountryBankConfig."""
    national = country is not None or bank_code is not None or account_number is not None
    if national and not (country and bank_code and account_number):
        raise NothingToValidate()
    if not (iban or bic or national):
        raise NothingToValidate()
    iban_check = None
    if iban:
        iban_check = banking.check_iban(iban)
    elif country and bank_code and account_number:
        iban_check = banking.iban_of(countries.code_of(country), bank_code.strip(), account_number.strip())
    bic_check = banking.check_bic(bic) if bic else None
    matches = None
    if iban_check and iban_check.bic and bic_check and bic_check.valid:
        matches = iban_check.bic[:8] == bic_check.bic[:8]
    return BankDetailsOut(
        iban=IbanCheckOut.model_validate(iban_check) if iban_check else None,
        bic=BicCheckOut.model_validate(bic_check) if bic_check else None,
        bic_matches_iban=matches,
    )


class TaxIdKindOut(Out):
    kind: str
    name: str


class TaxIdCheckOut(Out):
    given: str
    country: str
    valid: bool
    kind: TaxIdKindOut | None
    number: str
    formatted: str
    problem: str
    tried: list[TaxIdKindOut]
    registration_checked: bool = Field(description="Always false: no VIES check")


def _kind_out(kind: taxids.Kind) -> TaxIdKindOut:
    return TaxIdKindOut(kind=kind.key, name=kind.name)


@tool(
    "validateTaxId", permission=PlatformPerm.VIEW, title="Validate a tax or identity number", read_only=True
)
def validate_tax_id(
    ctx: ToolContext,
    *,
    number: Annotated[
        str, Field(min_length=1, max_length=60, description="As written: spaces, dots, prefix")
    ],
    country: CountryArg,
    kind: Annotated[
        str | None,
        Field(max_length=40, description="e.g. vat, tin, idnr; null: its VAT number first, then the rest"),
    ] = None,
) -> TaxIdCheckOut:
    """Check a VAT, tax, company or personal id number's format and check digits for its country.

    Offline: it does not ask VIES whether a VAT number is registered."""
    code = countries.code_of(country)
    text = clean.text(number, field="number", limit=60, required=True)
    result = taxids.check(text, code, kind)
    compact = result.number
    if result.kind is not None and result.kind.key == "vat":
        prefix = "EL" if code == "GR" else code
        compact = compact if compact.upper().startswith(prefix) else prefix + compact
    return TaxIdCheckOut(
        given=number,
        country=code,
        valid=result.valid,
        kind=_kind_out(result.kind) if result.kind else None,
        number=compact,
        formatted=result.formatted,
        problem=result.problem,
        tried=[_kind_out(each) for each in result.tried],
        registration_checked=False,
    )


class HolidayOut(Out):
    date: datetime.date
    name: str


class PublicHolidaysOut(Out):
    country: str
    subdivision: str
    year: int
    holidays: list[HolidayOut]
    subdivisions: list[str]


@tool("getPublicHolidays", permission=PlatformPerm.VIEW, title="Public holidays", read_only=True)
def get_public_holidays(
    ctx: ToolContext,
    *,
    country: CountryArg,
    subdivision: Annotated[
        str | None,
        Field(max_length=60, description="A state or region: its code (BY, CA) or name; null: nationwide"),
    ] = None,
    year: Annotated[int | None, Field(ge=FIRST_YEAR, le=LAST_YEAR, description="null: this year")] = None,
) -> PublicHolidaysOut:
    """List a country's public holidays in a year, with dates and names; a state's own with subdivision."""
    code = countries.code_of(country)
    when = year if year is not None else timezone.localdate().year
    found = public_holidays.of(code, year=when, subdivision=subdivision)
    return PublicHolidaysOut(
        country=code,
        subdivision=found.subdivision,
        year=when,
        holidays=[HolidayOut(date=day, name=name) for day, name in found.days],
        subdivisions=found.subdivisions,
    )

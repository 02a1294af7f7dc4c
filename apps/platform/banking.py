"""Bank account formats and checks, offline, from schwifty: each country's IBAN and its national
account number (BBAN) as the IBAN registry gives them, the banks schwifty's registry knows (with
their BIC), and the check of an IBAN (length, format, check digits, the national check digits
where schwifty knows them) or a BIC (its format, and whether the bank registry knows it)."""

from dataclasses import dataclass, field

from schwifty import BIC, IBAN, registry
from schwifty.domain import Component
from schwifty.exceptions import InvalidCountryCode, SchwiftyException

# The parts of a national account number, as the answers name them.
PARTS = {
    Component.BANK_CODE: "bankCode",
    Component.BRANCH_CODE: "branchCode",
    Component.ACCOUNT_CODE: "accountNumber",
    Component.NATIONAL_CHECKSUM_DIGITS: "nationalCheckDigits",
    Component.ACCOUNT_TYPE: "accountType",
    Component.ACCOUNT_HOLDER_ID: "accountHolderId",
    Component.CURRENCY_CODE: "currencyCode",
}


@dataclass(frozen=True)
class Part:
    name: str
    start: int  # in the national account number, from 0
    length: int


@dataclass(frozen=True)
class BankConfig:
    uses_iban: bool
    iban_length: int | None = None
    iban_format: str = ""  # SWIFT's notation: "DE2!n8!n10!n" (2!n: two digits)
    account_format: str = ""  # the national account number (BBAN), in the same notation
    account_length: int | None = None
    account_pattern: str = ""  # the same as a regular expression
    parts: list[Part] = field(default_factory=list)
    sepa: bool = False
    aspirational: bool = False  # reserved, not yet in the official IBAN registry
    bic_pattern: str = ""
    banks_known: int = 0


def config(code: str) -> BankConfig:
    """What a bank account of country `code` (alpha-2) looks like, as far as schwifty knows."""
    banks = len(registry.get_banks_by_country(code)) if code in registry.get_countries() else 0
    bic_pattern = f"^[A-Z]{{4}}{code}[A-Z0-9]{{2}}([A-Z0-9]{{3}})?$"
    try:
        spec = registry.get_iban_spec(code)
    except InvalidCountryCode:
        return BankConfig(uses_iban=False, bic_pattern=bic_pattern, banks_known=banks)
    parts = [
        Part(PARTS[component], place.start, place.length)
        for component, place in spec.positions.items()
        if component in PARTS and not place.is_empty
    ]
    return BankConfig(
        uses_iban=True,
        iban_length=spec.iban_length,
        iban_format=spec.iban_spec,
        account_format=spec.bban_spec,
        account_length=spec.bban_length,
        account_pattern=spec.regex.pattern,
        parts=sorted(parts, key=lambda part: part.start),
        sepa=spec.in_sepa_zone,
        aspirational=spec.aspirational,
        bic_pattern=bic_pattern,
        banks_known=banks,
    )


@dataclass(frozen=True)
class IbanCheck:
    given: str
    valid: bool
    problem: str = ""
    iban: str = ""
    formatted: str = ""
    country: str = ""
    bank_code: str = ""
    branch_code: str = ""
    account_number: str = ""
    bic: str = ""
    bank_name: str = ""
    sepa: bool = False


def check_iban(value: str) -> IbanCheck:
    try:
        iban = IBAN(value, validate_bban=True)
    except SchwiftyException as error:
        return IbanCheck(given=value, valid=False, problem=str(error))
    return IbanCheck(
        given=value,
        valid=True,
        iban=iban.compact,
        formatted=iban.formatted,
        country=iban.country_code,
        bank_code=iban.bank_code,
        branch_code=iban.branch_code,
        account_number=iban.account_code,
        bic=str(iban.bic or ""),
        bank_name=iban.bank_name or "",
        sepa=iban.in_sepa_zone,
    )


def iban_of(country: str, bank_code: str, account_number: str) -> IbanCheck:
    """The IBAN of a national account (its bank code and account number), checked."""
    given = f"{country} {bank_code} {account_number}"
    try:
        iban = IBAN.generate(country, bank_code=bank_code, account_code=account_number)
    except SchwiftyException as error:
        return IbanCheck(given=given, valid=False, problem=str(error))
    return check_iban(iban.compact)


@dataclass(frozen=True)
class BicCheck:
    given: str
    valid: bool
    problem: str = ""
    bic: str = ""
    country: str = ""
    location_code: str = ""
    branch_code: str = ""
    known: bool = False  # in schwifty's bank registry
    bank_names: list[str] = field(default_factory=list)


def check_bic(value: str) -> BicCheck:
    try:
        bic = BIC(value)
    except SchwiftyException as error:
        return BicCheck(given=value, valid=False, problem=str(error))
    names = sorted(set(bic.bank_names))
    return BicCheck(
        given=value,
        valid=True,
        bic=bic.compact,
        country=bic.country_code,
        location_code=bic.location_code,
        branch_code=bic.branch_code,
        known=bool(bic.exists or names),
        bank_names=names[:5],
    )

"""Tax and identity numbers, offline, from python-stdnum: each country's numbers it knows (its VAT
number, tax and company numbers, personal ids), their format and check digits. Whether a valid VAT
number is registered (the EU's VIES service) is not asked: that is a call outside, not made here."""

import functools
import importlib
import pkgutil
from dataclasses import dataclass
from types import ModuleType

import stdnum
from stdnum.exceptions import ValidationError

from apps.platform.errors import NoTaxIds, UnknownTaxIdKind


@dataclass(frozen=True)
class Kind:
    key: str  # stdnum's module name in the country's package: "vat", "idnr", "stnr"
    name: str  # the first line of its description: "USt-IdNr. (Umsatzsteuer ..., German VAT number)."
    module: ModuleType


@functools.cache
def _packages() -> frozenset[str]:
    return frozenset(
        info.name for info in pkgutil.iter_modules(stdnum.__path__) if info.ispkg and len(info.name) == 2
    )


@functools.cache
def kinds_of(code: str) -> tuple[Kind, ...]:
    """The numbers of country `code` (alpha-2) that python-stdnum checks, its VAT number first."""
    package = code.lower()
    if package not in _packages():
        return ()
    found = []
    for info in pkgutil.iter_modules(importlib.import_module(f"stdnum.{package}").__path__):
        module = importlib.import_module(f"stdnum.{package}.{info.name}")
        if callable(getattr(module, "validate", None)):
            name = (module.__doc__ or info.name).strip().splitlines()[0].strip()
            found.append(Kind(info.name, name, module))
    return tuple(sorted(found, key=lambda kind: (kind.key != "vat", kind.key)))


def countries_known() -> list[str]:
    return sorted(code.upper() for code in _packages())


@dataclass(frozen=True)
class TaxIdCheck:
    valid: bool
    kind: Kind | None
    tried: list[Kind]
    number: str = ""  # its compact form
    formatted: str = ""
    problem: str = ""


def check(number: str, code: str, kind: str | None = None) -> TaxIdCheck:
    """Whether `number` is a valid number of country `code`: of `kind`, or of the first of its kinds
    it is valid as (the VAT number first)."""
    kinds = kinds_of(code)
    if not kinds:
        raise NoTaxIds(country=code, known=", ".join(countries_known()))
    if kind is not None:
        chosen = [each for each in kinds if each.key == kind.strip().lower()]
        if not chosen:
            raise UnknownTaxIdKind(kind=kind, country=code, known=", ".join(each.key for each in kinds))
        kinds = tuple(chosen)
    problems = []
    for each in kinds:
        try:
            compact = each.module.validate(number)
        except ValidationError as error:
            problems.append(f"{each.key}: {error}")
            continue
        formatted = each.module.format(compact) if callable(getattr(each.module, "format", None)) else compact
        return TaxIdCheck(valid=True, kind=each, tried=list(kinds), number=compact, formatted=formatted)
    return TaxIdCheck(valid=False, kind=None, tried=list(kinds), problem="; ".join(problems))

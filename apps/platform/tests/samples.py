"""A normal call of every Platform tool, for the catalogue's contract test."""

from typing import Any

from apps.catalogue.testing import Sample, sample


@sample("getCountriesByRegion")
def get_countries_by_region(actor: Any) -> Sample:
    return Sample({"region": "Western Europe"})


@sample("getCountryBankConfig")
def get_country_bank_config(actor: Any) -> Sample:
    return Sample({"country": "DE"})


@sample("validateBankDetails")
def validate_bank_details(actor: Any) -> Sample:
    return Sample({"iban": "DE89 3704 0044 0532 0130 00", "bic": "COBADEFFXXX"})


@sample("validateTaxId")
def validate_tax_id(actor: Any) -> Sample:
    return Sample({"number": "DE 136 695 976", "country": "DE"})


@sample("getPublicHolidays")
def get_public_holidays(actor: Any) -> Sample:
    return Sample({"country": "DE", "subdivision": "BY", "year": 2026})

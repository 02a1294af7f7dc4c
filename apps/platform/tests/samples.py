"""A normal call of every Platform tool, for the catalogue's contract test."""

import uuid
from typing import Any

from apps.apikeys.services import api_key_create
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


@sample("getMyProfile")
def get_my_profile(actor: Any) -> Sample:
    return Sample({})


@sample("getWorkspaceSummary")
def get_workspace_summary(actor: Any) -> Sample:
    return Sample({})


@sample("listWorkspaceUsers")
def list_workspace_users(actor: Any) -> Sample:
    return Sample({"limit": 100})


@sample("listRoles")
def list_roles(actor: Any) -> Sample:
    return Sample({})


@sample("listApiKeys")
def list_api_keys(actor: Any) -> Sample:
    created = api_key_create(user=actor, label=f"Sample key {uuid.uuid4().hex[:8]}")
    return Sample({}, private=[created.key.label])


@sample("revokeApiKey")
def revoke_api_key(actor: Any) -> Sample:
    created = api_key_create(user=actor, label=f"Key to revoke {uuid.uuid4().hex[:8]}")
    return Sample({"keyId": created.key.pk}, private=[created.key.label])

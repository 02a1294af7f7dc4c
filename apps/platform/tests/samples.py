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


def _contacts_csv(marker: str) -> str:
    return f"First name,Last name,Email\nAda,{marker},ada-{marker}@import.example\n"


@sample("validateDataImport")
def validate_data_import(actor: Any) -> Sample:
    marker = f"Imported{uuid.uuid4().hex[:8]}"
    return Sample({"entityType": "contact", "csvText": _contacts_csv(marker)}, private=[marker])


@sample("commitDataImport")
def commit_data_import(actor: Any) -> Sample:
    from apps.platform import imports

    marker = f"Imported{uuid.uuid4().hex[:8]}"
    source = imports.Source(_contacts_csv(marker).encode(), imports.INLINE_SOURCE)
    plan = imports.validate(actor, kind="contact", source=source)
    return Sample({"token": plan.token}, private=[marker])


@sample("bulkImportContacts")
def bulk_import_contacts(actor: Any) -> Sample:
    marker = f"Imported{uuid.uuid4().hex[:8]}"
    return Sample({"csvText": _contacts_csv(marker)}, private=[marker])


@sample("exportDataCsv")
def export_data_csv(actor: Any) -> Sample:
    return Sample({"entityType": "contact", "format": "csv"})


@sample("requestDataExport")
def request_data_export(actor: Any) -> Sample:
    return Sample({"entityType": "contact", "format": "xlsx"})


@sample("getDataExportStatus")
def get_data_export_status(actor: Any) -> Sample:
    from apps.platform.models import DataExport

    export = DataExport.objects.create(kind="contact", format="csv", created_by=actor)
    return Sample({"exportId": export.pk})


def _colleague(label: str) -> Any:
    from apps.accounts.models import Role, User

    return User.objects.create_user(
        email=f"{label}-{uuid.uuid4().hex[:8]}@acme.example", role=Role.objects.get(key="member")
    )


@sample("inviteWorkspaceUser")
def invite_workspace_user(actor: Any) -> Sample:
    email = f"invited-{uuid.uuid4().hex[:8]}@example.com"
    return Sample({"email": email, "role": "member", "fullName": "Sam Sample"})


@sample("updateUserRole")
def update_user_role(actor: Any) -> Sample:
    person = _colleague("role")
    return Sample({"userId": person.pk, "role": "viewer"}, private=[person.email])


@sample("deactivateWorkspaceUser")
def deactivate_workspace_user(actor: Any) -> Sample:
    person = _colleague("leaving")
    return Sample({"userId": person.pk}, private=[person.email])


@sample("manageRole")
def manage_role(actor: Any) -> Sample:
    # The name is the call's own argument, so the other workspace's call answers it too.
    return Sample(
        {"action": "create", "name": f"Contractors {uuid.uuid4().hex[:8]}", "permissions": ["contacts.view"]}
    )


@sample("listInstalledApps")
def list_installed_apps(actor: Any) -> Sample:
    return Sample({})


@sample("manageInstalledApps")
def manage_installed_apps(actor: Any) -> Sample:
    # Installing what is installed changes nothing: the answer is the list as it is.
    return Sample({"install": ["contacts"]})


def _custom_field(kind: str, type: str = "text") -> Any:
    from apps.platform.models import CustomField

    return CustomField.objects.create(
        kind=kind, key=f"f-{uuid.uuid4().hex[:8]}", label="Sample field", type=type
    )


@sample("listCustomFields")
def list_custom_fields(actor: Any) -> Sample:
    field = _custom_field("contacts")
    return Sample({"kind": "contacts"}, private=[field.key])


@sample("manageCustomFields")
def manage_custom_fields(actor: Any) -> Sample:
    # A new key of the call's own, so the other workspace's call creates it too.
    return Sample(
        {
            "action": "create",
            "kind": "deals",
            "key": f"f-{uuid.uuid4().hex[:8]}",
            "label": "Region",
            "type": "text",
        }
    )


@sample("setCustomFieldValues")
def set_custom_field_values(actor: Any) -> Sample:
    from apps.contacts import services

    field = _custom_field("contacts")
    contact, _conflicts = services.contact_create(
        actor=actor, fields={"first_name": f"Ada {uuid.uuid4().hex[:6]}"}
    )
    return Sample(
        {"kind": "contacts", "recordId": contact.pk, "values": {field.key: "retail"}}, private=[field.key]
    )

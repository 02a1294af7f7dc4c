"""A normal call of every Platform tool, for the catalogue's contract test."""

import uuid
from typing import Any

from apps.apikeys.services import api_key_create
from apps.catalogue.testing import Sample, sample
from apps.platform.models import SupportTicket


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


def _stored(actor: Any, name: str, content: bytes) -> Any:
    from apps.files import services as files

    return files.file_create(actor=actor, name=name, content=content, visibility="private")


@sample("extractDocumentText")
def extract_document_text(actor: Any) -> Sample:
    marker = f"Minutes{uuid.uuid4().hex[:8]}"
    made = _stored(actor, f"{marker}.txt", f"{marker}: the board met on Monday.".encode())
    return Sample({"fileId": made.pk}, private=[marker])


@sample("transcribeAudio")
def transcribe_audio(actor: Any) -> Sample:
    from apps.platform.tests.media_models import SAID, metered, wav

    marker = f"Memo{uuid.uuid4().hex[:8]}"
    made = _stored(actor, f"{marker}.wav", wav())
    return Sample({"fileId": made.pk}, private=[marker, SAID], around=metered)


@sample("analyzeImage")
def analyze_image(actor: Any) -> Sample:
    from apps.platform.tests.media_models import SEEN, metered, png

    marker = f"Photo{uuid.uuid4().hex[:8]}"
    made = _stored(actor, f"{marker}.png", png())
    return Sample({"fileId": made.pk}, private=[marker, SEEN], around=metered)


# --- the client portal ------------------------------------------------------------------------------


def _portal_user(actor: Any, *, approved: bool) -> Any:
    from apps.contacts.tests.factories import ContactFactory
    from apps.platform import portal

    tag = uuid.uuid4().hex[:8]
    contact = ContactFactory(actor=actor, first_name=f"Client {tag}", email=f"client-{tag}@example.com")
    row = portal.invite(
        actor=actor, contact_id=contact.pk, email=None, full_name="", origin="https://acme.example"
    )
    if approved and row.approved_at is None:
        portal.approve(actor=actor, portal_user_id=row.pk, origin="https://acme.example")
    return row


@sample("listPortalUsers")
def list_portal_users(actor: Any) -> Sample:
    row = _portal_user(actor, approved=True)
    return Sample({}, private=[row.user.email])


@sample("invitePortalUser")
def invite_portal_user(actor: Any) -> Sample:
    from apps.contacts.tests.factories import ContactFactory

    tag = uuid.uuid4().hex[:8]
    contact = ContactFactory(actor=actor, first_name=f"Client {tag}", email=f"client-{tag}@example.com")
    return Sample({"contactId": contact.pk}, private=[contact.email])


@sample("approvePortalUser")
def approve_portal_user(actor: Any) -> Sample:
    from apps.accounts.models import Role, User
    from apps.platform import portal

    # A member's request, which an admin approves.
    member = User.objects.create_user(
        email=f"asker-{uuid.uuid4().hex[:8]}@acme.example", role=Role.objects.get(key="member")
    )
    row = _portal_user(member, approved=False)
    assert row.approved_at is None and row.state == portal.State.REQUESTED
    return Sample({"portalUserId": row.pk}, private=[row.user.email])


@sample("revokePortalUser")
def revoke_portal_user(actor: Any) -> Sample:
    row = _portal_user(actor, approved=True)
    return Sample({"portalUserId": row.pk}, private=[row.user.email])


@sample("getPortalSummary")
def get_portal_summary(actor: Any) -> Sample:
    _portal_user(actor, approved=True)
    return Sample({})


@sample("getBillingSummary")
def get_billing_summary(actor: Any) -> Sample:
    created = api_key_create(user=actor, label=f"Billing sample {uuid.uuid4().hex[:8]}")
    return Sample({}, private=[created.key.label])


@sample("checkRates")
def check_rates(actor: Any) -> Sample:
    return Sample({"inputTokens": 1000, "outputTokens": 100})


@sample("searchHelpArticles")
def search_help_articles(actor: Any) -> Sample:
    return Sample({"query": "API key budgets"})


@sample("createSupportTicket")
def create_support_ticket(actor: Any) -> Sample:
    # An earlier ticket of Acme's, which the answer lists in Acme alone.
    earlier = f"Sample ticket {uuid.uuid4().hex[:8]}"
    SupportTicket.objects.create(requested_by=actor, category="question", subject=earlier, body="How?")
    arguments = {"subject": "Exports are slow", "body": "The export page is slow.", "category": "problem"}
    return Sample(arguments, private=[earlier])


@sample("assessFeasibility")
def assess_feasibility(actor: Any) -> Sample:
    return Sample({"task": "send an invoice to a customer"})


@sample("gatherMobileBuildConfig")
def gather_mobile_build_config(actor: Any) -> Sample:
    return Sample({"appId": "com.example.atrium"})


@sample("getMobileAppInfra")
def get_mobile_app_infra(actor: Any) -> Sample:
    return Sample({})


@sample("getMobileBrandingToolkit")
def get_mobile_branding_toolkit(actor: Any) -> Sample:
    return Sample({"platform": "android"})


@sample("searchActivityLog")
def search_activity_log(actor: Any) -> Sample:
    return Sample({"source": "calls", "limit": 5})


@sample("getActivityDetail")
def get_activity_detail(actor: Any) -> Sample:
    from django.utils import timezone

    from apps.catalogue.models import ToolCall

    call = ToolCall.objects.create(
        at=timezone.now(),
        user=actor,
        tool="getMyProfile",
        outcome="ok",
        client="sample client",
        duration_ms=3.5,
    )
    return Sample({"entryId": f"call:{call.pk}"})


@sample("listRecentlyDeleted")
def list_recently_deleted(actor: Any) -> Sample:
    return Sample({"limit": 10})


# --- stored APIs and integrations ------------------------------------------------------------------


def _stored_api(base_url: str = "https://api.example.com/v1") -> Any:
    from apps.platform.models import StoredApi

    return StoredApi.objects.create(
        name=f"Sample API {uuid.uuid4().hex[:8]}",
        base_url=base_url,
        allowed_hosts=["api.example.com"],
        allowed_methods=["GET"],
    )


@sample("listStoredApis")
def list_stored_apis(actor: Any) -> Sample:
    return Sample({}, private=[_stored_api().name])


@sample("saveStoredApi")
def save_stored_api(actor: Any) -> Sample:
    # The name is the call's own argument, so the other workspace's call answers it too.
    return Sample({"name": f"Sample API {uuid.uuid4().hex[:8]}", "baseUrl": "https://api.example.com/v1"})


@sample("deleteStoredApi")
def delete_stored_api(actor: Any) -> Sample:
    return Sample({"name": _stored_api().name})


@sample("executeApiCall")
def execute_api_call(actor: Any) -> Sample:
    from apps.platform.apicalls import host_key
    from apps.platform.tests.servers import Api, as_json

    marker = f"Answer{uuid.uuid4().hex[:8]}"
    server = Api({"/v1/status": as_json({"status": marker})})
    api = _stored_api(f"{server.url}/v1")
    api.allowed_hosts = [host_key("http", "127.0.0.1", server.port)]
    api.save()
    return Sample({"api": api.name, "path": "/status"}, private=[marker], around=lambda: server)


@sample("findIntegrationsByTag")
def find_integrations_by_tag(actor: Any) -> Sample:
    return Sample({"tag": "calendar"})


def _connection(actor: Any, provider: str) -> Any:
    from apps.core import encryption
    from apps.platform.models import IntegrationConnection

    return IntegrationConnection.objects.create(
        user=actor, provider=provider, access_token_encrypted=encryption.encrypt("sample-token")
    )


@sample("listConnectedIntegrations")
def list_connected_integrations(actor: Any) -> Sample:
    _connection(actor, "slack")
    return Sample({})


@sample("connectIntegration")
def connect_integration(actor: Any) -> Sample:
    from django.test import override_settings

    configured = {"hubspot": {"client_id": "sample-client", "client_secret": "sample-secret"}}
    return Sample({"provider": "hubspot"}, around=lambda: override_settings(ATRIUM_INTEGRATIONS=configured))


@sample("disconnectIntegration")
def disconnect_integration(actor: Any) -> Sample:
    # GitHub has no revocation endpoint: nothing leaves the machine.
    _connection(actor, "github")
    return Sample({"provider": "github"})


@sample("sendOtpCode")
def send_otp_code(actor: Any) -> Sample:
    return Sample({"byEmail": True})


@sample("checkOtpCode")
def check_otp_code(actor: Any) -> Sample:
    # A code as sendOtpCode would have e-mailed it (the e-mail's code is random; this one is known).
    from datetime import timedelta

    from django.utils import timezone

    from apps.accounts import otp
    from apps.accounts.models import OtpEmailCode

    code = "482913"
    OtpEmailCode.objects.create(
        user=actor, digest=otp._digest(actor.pk, code), expires_at=timezone.now() + timedelta(minutes=10)
    )
    return Sample({"code": code})


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


# --- a person's data across the workspace -----------------------------------------------------------


def _person_held(actor: Any) -> tuple[str, str]:
    """A contact about someone, by their address: what examine finds and erase removes."""
    from apps.contacts.tests.factories import ContactFactory

    tag = uuid.uuid4().hex[:8]
    email = f"subject-{tag}@example.com"
    ContactFactory(actor=actor, first_name=f"Subject{tag}", last_name="Held", email=email)
    return email, f"Subject{tag}"


@sample("examinePersonalData")
def examine_personal_data(actor: Any) -> Sample:
    email, name = _person_held(actor)
    # The address is the call's own argument (echoed back anywhere); the name is what Acme holds.
    return Sample({"email": email}, private=[name])


@sample("erasePersonalData")
def erase_personal_data(actor: Any) -> Sample:
    email, name = _person_held(actor)
    # The address is the call's own argument (echoed back anywhere); the name is what Acme holds.
    return Sample({"email": email}, private=[name])

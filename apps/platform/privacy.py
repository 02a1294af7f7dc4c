"""Personal data in the Platform area (docs/privacy.md).

The plans of data imports hold the rows of the files people imported (names, addresses of the
people in them), the problems and duplicates found in them, and who imported them. A person is
found as the importer, or by their address anywhere in a plan: its rows, its problems, its
duplicates (whose keys are addresses) or the rows a commit skipped; an erasure deletes those plans
(what a committed plan made stays: the records are their areas', erased by theirs). Old plans go
anyway, nightly (`imports.plans_purge`).

The background exports someone asked for are theirs, with the file each made: an erasure deletes
the rows and erases their files, whoever may see them now (an export holds what its maker could
read, and is theirs alone even once shared).
"""

from django.apps import apps
from django.db.models import Q, QuerySet

from apps.core import privacy
from apps.files import api as files
from apps.platform.models import (
    CustomField,
    CustomFieldValue,
    DataExport,
    DataImport,
    IntegrationConnection,
    IntegrationGrant,
    PortalUser,
    StoredApi,
    StoredApiCall,
    SupportTicket,
)

# The fields of a plan that may quote a person's address.
PLAN_FIELDS = ("rows", "problems", "duplicates", "skipped")


def imports_of(subject: privacy.Subject) -> QuerySet:
    about = Q(pk__in=[])
    if subject.email:
        for name in PLAN_FIELDS:
            about |= Q(**{f"{name}__icontains": subject.email})
    if subject.user is not None:
        about |= Q(created_by=subject.user)
    return DataImport.objects.filter(about)


def exports_erase(rows: QuerySet) -> int:
    file_ids = [file_id for file_id in rows.values_list("file_id", flat=True) if file_id is not None]
    deleted, _kinds = rows.delete()
    files.erase(file_ids)
    return deleted


privacy.register(DataImport, find=imports_of)
# Who asked for an export, how far it got and the file it made (erased with it).
privacy.register(DataExport, user="created_by", erase=exports_erase)


# --- the client portal (apps.platform.portal) ----------------------------------------------------


def portal_users_of(subject: privacy.Subject) -> QuerySet:
    """A portal user is the person's when it is their sign-in, or when it is for their contact
    (found by the contact's address)."""
    about = Q(contact__email__iexact=subject.email) if subject.email else Q(pk__in=[])
    if subject.user is not None:
        about |= Q(user=subject.user)
    return PortalUser.objects.filter(about)


def portal_users_end(rows: QuerySet) -> int:
    """The soft delete: their access ends at once (sign-in deactivated, sessions ended), whether
    the person asking is the sign-in's or only the contact's."""
    from apps.platform import portal

    return portal.end_for_erasure(rows)


privacy.register(
    PortalUser,
    find=portal_users_of,
    exclude=["requested_by", "approved_by", "revoked_by"],
    soft_delete=portal_users_end,
)


# The tickets a person sent the service's operators (subject, message, the operators' reply).
privacy.register(SupportTicket, user="requested_by")


privacy.register(StoredApi, user="created_by", exclude=("secret_encrypted",), erase={"created_by": None})
privacy.register(StoredApiCall, user="user")


def connections_end(rows: QuerySet) -> int:
    """Deactivating or erasing a person ends their connections to outside services at once
    (deleted, their tokens revoked at the providers once committed), as it ends their sessions."""
    from apps.platform import connections

    return connections.end_all(rows)


privacy.register(
    IntegrationConnection,
    user="user",
    exclude=("access_token_encrypted", "refresh_token_encrypted"),
    soft_delete=connections_end,
    credential=True,
)
privacy.register(IntegrationGrant, user="user", exclude=("verifier_encrypted",))


def field_values_of(subject: privacy.Subject) -> QuerySet:
    """The custom field values of the contacts about the person (their address): exported with
    them and erased before them (the contacts' own registration erases at order 50). Deals' and
    tasks' values stay with those records, which their areas keep or erase as records."""
    if not subject.email:
        return CustomFieldValue.objects.none()
    contacts = apps.get_model("contacts", "Contact")._base_manager.filter(email__iexact=subject.email)
    return CustomFieldValue.objects.filter(field__kind="contacts", record_id__in=contacts.values("pk"))


privacy.register(CustomFieldValue, find=field_values_of, order=45)
privacy.not_personal(
    CustomField, reason="the definitions of a workspace's custom fields: keys, labels, types"
)

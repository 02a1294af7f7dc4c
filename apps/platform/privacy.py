"""Personal data in the Platform area (docs/privacy.md): the plans of data imports, which hold the
rows of the files people imported (names, addresses of the people in them) and who imported them.
A person is found as the importer, or by their address in a plan's rows; an erasure deletes those
plans (what a committed plan made stays: the records are their areas', erased by theirs)."""

from django.apps import apps
from django.db.models import Q, QuerySet

from apps.core import privacy
from apps.platform.models import CustomField, CustomFieldValue, DataExport, DataImport


def imports_of(subject: privacy.Subject) -> QuerySet:
    about = Q(rows__icontains=subject.email) if subject.email else Q(pk__in=[])
    if subject.user is not None:
        about |= Q(created_by=subject.user)
    return DataImport.objects.filter(about)


privacy.register(DataImport, find=imports_of)
# Who asked for an export, how far it got and the file it made (the file is the Files area's).
privacy.register(DataExport, user="created_by")


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

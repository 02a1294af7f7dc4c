"""Personal data in the Platform area (docs/privacy.md): the plans of data imports, which hold the
rows of the files people imported (names, addresses of the people in them) and who imported them.
A person is found as the importer, or by their address in a plan's rows; an erasure deletes those
plans (what a committed plan made stays: the records are their areas', erased by theirs)."""

from django.db.models import Q, QuerySet

from apps.core import privacy
from apps.platform.models import DataExport, DataImport, SupportTicket


def imports_of(subject: privacy.Subject) -> QuerySet:
    about = Q(rows__icontains=subject.email) if subject.email else Q(pk__in=[])
    if subject.user is not None:
        about |= Q(created_by=subject.user)
    return DataImport.objects.filter(about)


privacy.register(DataImport, find=imports_of)
# Who asked for an export, how far it got and the file it made (the file is the Files area's).
privacy.register(DataExport, user="created_by")
# The tickets a person sent the service's operators (subject, message, the operators' reply).
privacy.register(SupportTicket, user="requested_by")

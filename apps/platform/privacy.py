"""Personal data in the Platform area (docs/privacy.md): the plans of data imports, which hold the
rows of the files people imported (names, addresses of the people in them) and who imported them.
A person is found as the importer, or by their address in a plan's rows; an erasure deletes those
plans (what a committed plan made stays: the records are their areas', erased by theirs).

Stored APIs are the workspace's: an erasure forgets who made one, and deletes the person's calls
to them. A person's integrations (their connected accounts, and the connections they started) are
theirs: exported without their tokens, deleted on erasure."""

from django.db.models import Q, QuerySet

from apps.core import privacy
from apps.platform.models import (
    DataExport,
    DataImport,
    IntegrationConnection,
    IntegrationGrant,
    StoredApi,
    StoredApiCall,
)


def imports_of(subject: privacy.Subject) -> QuerySet:
    about = Q(rows__icontains=subject.email) if subject.email else Q(pk__in=[])
    if subject.user is not None:
        about |= Q(created_by=subject.user)
    return DataImport.objects.filter(about)


privacy.register(DataImport, find=imports_of)
# Who asked for an export, how far it got and the file it made (the file is the Files area's).
privacy.register(DataExport, user="created_by")
privacy.register(StoredApi, user="created_by", exclude=("secret_encrypted",), erase={"created_by": None})
privacy.register(StoredApiCall, user="user")
privacy.register(
    IntegrationConnection, user="user", exclude=("access_token_encrypted", "refresh_token_encrypted")
)
privacy.register(IntegrationGrant, user="user", exclude=("verifier_encrypted",))

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

from django.db.models import Q, QuerySet

from apps.core import privacy
from apps.files import api as files
from apps.platform.models import DataExport, DataImport

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

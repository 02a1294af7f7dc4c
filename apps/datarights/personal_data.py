"""Export and erasure of one person's data in a workspace, across every app (SPEC 10.3).

The apps say what they hold through `apps.core.privacy` (docs/privacy.md); this module runs
them: the management commands `export_personal_data` / `erase_personal_data` and the admin's
personal-data page are thin doors onto `personal_data_export` and `personal_data_erase`.
Each run is recorded as a PersonalDataOperation (counts, never whose data).
"""

import io
import json
import logging
import shutil
import zipfile
from dataclasses import dataclass, field
from typing import IO, Any

from django.core.exceptions import ValidationError
from django.core.serializers.json import DjangoJSONEncoder
from django.core.validators import validate_email
from django.db import transaction
from django.utils import timezone
from django_tenants.utils import schema_context

from apps.core import privacy
from apps.core.personaldata import PersonalExport
from apps.datarights.errors import EmailInvalid, ErasureRefused, NoSuchWorkspace
from apps.datarights.models import DataRequest, PersonalDataOperation
from apps.tenancy.models import Domain, Workspace

logger = logging.getLogger(__name__)

FORMAT = "atrium-personal-data/1"
DOCUMENT_NAME = "personal-data.json"


@dataclass
class ExportSummary:
    # "json" (one document) or "zip" (the document and the person's files).
    format: str
    filename: str
    content_type: str
    counts: dict[str, int] = field(default_factory=dict)
    files: int = 0
    operation_id: int | None = None


def workspace_get(identifier: str) -> Workspace:
    """A workspace by schema name or by one of its host names."""
    identifier = identifier.strip().lower()
    workspace = Workspace.objects.exclude(schema_name="public").filter(schema_name=identifier).first()
    if workspace is None:
        domain = Domain.objects.select_related("tenant").filter(domain=identifier).first()
        workspace = domain.tenant if domain and domain.tenant.schema_name != "public" else None
    if workspace is None:
        raise NoSuchWorkspace()
    return workspace


def clean_email(email: str) -> str:
    email = (email or "").strip().lower()
    try:
        validate_email(email)
    except ValidationError as error:
        raise EmailInvalid(details={"email": error.messages}) from error
    return email


def subject_for(*, workspace: Workspace, email: str) -> privacy.Subject:
    """The person, looked up in the active schema (call inside the workspace's schema)."""
    from django.contrib.auth import get_user_model

    user = get_user_model()._base_manager.filter(email__iexact=email).first()
    return privacy.Subject(email=email, user=user, workspace=workspace)


def _record(
    *,
    kind: str,
    outcome: str,
    workspace: Workspace,
    performed_by: str,
    data_request: DataRequest | None,
    counts: dict[str, int] | None = None,
    files: int = 0,
    problem: str = "",
) -> PersonalDataOperation:
    return PersonalDataOperation.objects.create(
        kind=kind,
        outcome=outcome,
        workspace=workspace,
        schema_name=workspace.schema_name,
        data_request=data_request,
        performed_by=performed_by[:50],
        counts=counts or {},
        files=files,
        problem=problem[:300],
    )


# --- export -------------------------------------------------------------------------------------


def _held(subject: privacy.Subject) -> tuple[dict[str, list[dict[str, Any]]], list[privacy.ExportFile]]:
    """Every registered kind's records of the person (in the active schema), and their files."""
    records: dict[str, list[dict[str, Any]]] = {}
    files: list[privacy.ExportFile] = []
    for handler in sorted(privacy.handlers(), key=lambda handler: handler.label):
        records[handler.label] = handler.export(subject)
        files += handler.files(subject)
    return records, files


def personal_data_records(*, workspace: Workspace, email: str) -> dict[str, list[dict[str, Any]]]:
    """What the workspace holds about the person, per kind, as the export would write it; kinds
    holding nothing are left out. Nothing is recorded: this is a look, not a data-rights export."""
    email = clean_email(email)
    with schema_context(workspace.schema_name):
        records, _files = _held(subject_for(workspace=workspace, email=email))
    return {label: rows for label, rows in records.items() if rows}


def personal_data_vetoes(*, workspace: Workspace, email: str) -> list[str]:
    """Why the person may not be erased, in the words of the areas that refuse; empty: they may."""
    email = clean_email(email)
    with schema_context(workspace.schema_name):
        subject = subject_for(workspace=workspace, email=email)
        return [str(reason) for handler in privacy.handlers() if (reason := handler.veto(subject))]


def personal_data_export(
    *,
    workspace: Workspace,
    email: str,
    out: IO[bytes],
    performed_by: str,
    data_request: DataRequest | None = None,
) -> ExportSummary:
    """Writes everything the workspace holds about the person to `out`: a JSON document, or a zip
    holding that document and the person's files when there are any."""
    email = clean_email(email)
    generated_at = timezone.now()
    with schema_context(workspace.schema_name):
        subject = subject_for(workspace=workspace, email=email)
        records, files = _held(subject)
        document = {
            "format": FORMAT,
            "generated_at": generated_at,
            "workspace": {"schema": workspace.schema_name, "name": workspace.name},
            "person": {"email": email, "user_id": subject.user.pk if subject.user else None},
            "records": records,
            "files": [f"files/{item.archive_name}" for item in files],
        }
        content = json.dumps(document, cls=DjangoJSONEncoder, indent=2, ensure_ascii=False).encode()
        stamp = generated_at.strftime("%Y%m%d-%H%M%S")
        if files:
            with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
                archive.writestr(DOCUMENT_NAME, content)
                for item in files:
                    with item.open() as source, archive.open(f"files/{item.archive_name}", "w") as target:
                        shutil.copyfileobj(source, target)
            summary = ExportSummary(
                "zip", f"personal-data-{workspace.schema_name}-{stamp}.zip", "application/zip"
            )
        else:
            out.write(content)
            summary = ExportSummary(
                "json", f"personal-data-{workspace.schema_name}-{stamp}.json", "application/json"
            )
    summary.counts = {label: len(rows) for label, rows in records.items() if rows}
    summary.files = len(files)
    operation = _record(
        kind=PersonalDataOperation.Kind.EXPORT,
        outcome=PersonalDataOperation.Outcome.DONE,
        workspace=workspace,
        performed_by=performed_by,
        data_request=data_request,
        counts=summary.counts,
        files=summary.files,
    )
    summary.operation_id = operation.pk
    logger.info(
        "personal data exported from workspace %s: %s records, %s files (operation %s)",
        workspace.schema_name,
        sum(summary.counts.values()),
        summary.files,
        operation.pk,
    )
    return summary


# --- erasure ------------------------------------------------------------------------------------


def personal_data_erase(
    *,
    workspace: Workspace,
    email: str,
    performed_by: str,
    data_request: DataRequest | None = None,
) -> dict[str, int]:
    """Erases the person's data in the workspace, in every registered app. Returns the number of
    records erased per kind.

    Two transactions: first every user-facing record is soft-deleted and the person disabled
    (signed out, tokens and keys revoked); then everything is erased, the user's own row last.
    If the second fails, the first still stands: nothing of the person's is usable or visible,
    and running the erasure again finishes the job.
    """
    email = clean_email(email)
    record: dict[str, Any] = {
        "kind": PersonalDataOperation.Kind.ERASE,
        "workspace": workspace,
        "performed_by": performed_by,
        "data_request": data_request,
    }
    with schema_context(workspace.schema_name):
        subject = subject_for(workspace=workspace, email=email)
        handlers = privacy.handlers()
        reasons = [str(reason) for handler in handlers if (reason := handler.veto(subject))]
        if reasons:
            _record(outcome=PersonalDataOperation.Outcome.REFUSED, problem=" ".join(reasons), **record)
            logger.info("personal-data erasure refused in workspace %s", workspace.schema_name)
            raise ErasureRefused(reasons=" ".join(reasons))
        try:
            with transaction.atomic():
                disabled = {handler.label: handler.soft_delete(subject) for handler in handlers}
            with transaction.atomic():
                erased = {handler.label: handler.erase(subject) for handler in handlers}
        except Exception as error:
            _record(outcome=PersonalDataOperation.Outcome.FAILED, problem=type(error).__name__, **record)
            # The class name only: an error's text (a database key, say) can quote personal data.
            logger.error(
                "personal-data erasure failed in workspace %s (%s); the person stays disabled, run it again",
                workspace.schema_name,
                type(error).__name__,
            )
            raise
    # Rows a soft delete already removed (signed-out sessions) count where the erasure finds none.
    counts = {
        label: max(erased[label], disabled[label]) for label in erased if erased[label] or disabled[label]
    }
    operation = _record(outcome=PersonalDataOperation.Outcome.DONE, counts=counts, **record)
    logger.info(
        "personal data erased in workspace %s: %s records (operation %s)",
        workspace.schema_name,
        sum(counts.values()),
        operation.pk,
    )
    return counts


# --- for the areas (apps.core.personaldata) -----------------------------------------------------


class InWorkspace:
    """`apps.core.personaldata.PersonalData` for the active workspace: the functions above."""

    @staticmethod
    def _workspace() -> Workspace:
        from apps.core.workspaces import current_workspace

        workspace = current_workspace()
        if not isinstance(workspace, Workspace):
            raise NoSuchWorkspace()
        return workspace

    def records(self, *, email: str) -> dict[str, list[dict[str, Any]]]:
        return personal_data_records(workspace=self._workspace(), email=email)

    def vetoes(self, *, email: str) -> list[str]:
        return personal_data_vetoes(workspace=self._workspace(), email=email)

    def export(self, *, email: str, performed_by: str) -> PersonalExport:
        out = io.BytesIO()
        summary = personal_data_export(
            workspace=self._workspace(), email=email, out=out, performed_by=performed_by
        )
        content = out.getvalue()
        if summary.format == "zip":
            with zipfile.ZipFile(io.BytesIO(content)) as archive:
                document = json.loads(archive.read(DOCUMENT_NAME))
        else:
            document = json.loads(content)
        records = {label: rows for label, rows in document["records"].items() if rows}
        return PersonalExport(
            filename=summary.filename,
            content_type=summary.content_type,
            content=content,
            records=records,
            files=summary.files,
        )

    def erase(self, *, email: str, performed_by: str) -> dict[str, int]:
        return personal_data_erase(workspace=self._workspace(), email=email, performed_by=performed_by)

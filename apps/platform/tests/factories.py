"""Test data of the Platform area: the import plans and background exports people made, for the
access test (tests/test_access_per_model.py) and the privacy sweep (tests/test_privacy_sweep.py).
Each is its maker's alone, admins' too."""

import secrets
from datetime import timedelta
from typing import Any

from django.utils import timezone

from apps.core import factories
from apps.core.factories import AccessRows, access_rows
from apps.platform.models import DataExport, DataImport


def import_plan(actor: Any, *, text: str = "Ada") -> DataImport:
    """A validated plan of one contact row, as validateDataImport keeps it."""
    return DataImport.objects.create(
        token=secrets.token_urlsafe(24),
        kind="contact",
        created_by=actor,
        expires_at=timezone.now() + timedelta(hours=24),
        digest=secrets.token_hex(32),
        source=f"{text}.csv",
        total_rows=2,
        rows=[{"row": 2, "cells": {"firstName": text, "email": f"{text.lower()}@plan.example"}}],
        problems=[{"row": 3, "column": "email", "problem": f"{text} is not an e-mail address"}],
        duplicates=[{"row": 4, "key": f"email:{text.lower()}@plan.example", "ofRow": 2, "existingId": None}],
        invalid_rows=1,
    )


def export(actor: Any, *, query: str = "") -> DataExport:
    return DataExport.objects.create(kind="contact", format="csv", query=query, created_by=actor)


@access_rows("platform.DataImport")
def _imports(people: dict[str, Any]) -> AccessRows:
    """The member's plan and the owner's: each its maker's alone (only they commit it)."""
    return AccessRows(
        own={"member": [import_plan(people["member"])], "owner": [import_plan(people["owner"])]}
    )


@access_rows("platform.DataExport")
def _exports(people: dict[str, Any]) -> AccessRows:
    """The member's export and the owner's: each its requester's alone (getDataExportStatus)."""
    return AccessRows(own={"member": [export(people["member"])], "owner": [export(people["owner"])]})


@factories.privacy_rows("platform")
def _private(people: dict[str, Any], marker: str, rows: factories.PrivateRows) -> None:
    """The owner's import plan (its rows, problems and duplicates quote the file) and export."""
    import_plan(people["owner"], text=marker)
    rows.add("exportId", record=export(people["owner"], query=marker))

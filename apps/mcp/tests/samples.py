"""Normal calls of the task tools (apps.mcp.tools), for the catalogue's contract test."""

from typing import Any

from apps.catalogue import registry
from apps.catalogue.testing import Sample, sample
from apps.core.credentials import Principal
from apps.documents.tests.factories import DocumentFactory
from apps.mcp import jobs


@sample("startToolTask")
def start_tool_task(actor: Any) -> Sample:
    document = DocumentFactory(actor=actor)
    return Sample({"name": "exportDocumentToPdf", "arguments": {"documentId": document.pk}})


@sample("getToolTaskStatus")
def get_tool_task_status(actor: Any) -> Sample:
    # The contract test's principal (apps.catalogue.testing.principal_for): the same credential.
    from apps.catalogue.testing import principal_for

    principal: Principal = principal_for(actor)
    spec = registry.get("exportDocumentToPdf")
    assert spec is not None
    row = jobs.task_start(
        principal=principal,
        digest="",
        origin="http://127.0.0.1",
        spec=spec,
        arguments={"documentId": 1},
        ttl_ms=None,
    )
    # Another workspace's answer names the id it was given, and nothing of the task.
    return Sample({"taskId": row.task_id}, private=["exportDocumentToPdf", "Queued"])

"""Normal calls of the catalogue's own tools, for the contract test."""

import uuid
from typing import Any

from apps.catalogue.testing import Sample, sample
from apps.contacts.tests.factories import ContactFactory


@sample("searchTools")
def search_tools(actor: Any) -> Sample:
    return Sample({"query": "contact"})


@sample("describeTool")
def describe_tool(actor: Any) -> Sample:
    return Sample({"name": "getContact"})


@sample("callTool")
def call_tool(actor: Any) -> Sample:
    # A contact of this workspace, through another area's tool: another workspace never sees it.
    contact = ContactFactory(actor=actor, first_name=f"Zed{uuid.uuid4().hex[:10]}")
    arguments = {"contactId": contact.pk}
    return Sample({"name": "getContact", "arguments": arguments}, private=[contact.first_name])


@sample("searchWorkspace")
def search_workspace(actor: Any) -> Sample:
    # Found here by its first name, and named; another workspace asked the same names nothing.
    word = f"Zed{uuid.uuid4().hex[:10]}"
    contact = ContactFactory(actor=actor, first_name=word, last_name=f"Yew{uuid.uuid4().hex[:10]}")
    return Sample({"query": word}, private=[contact.last_name])

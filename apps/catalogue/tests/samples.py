"""Normal calls of the catalogue's own tools, for the contract test."""

from typing import Any

from apps.catalogue.testing import Sample, sample


@sample("searchTools")
def search_tools(actor: Any) -> Sample:
    return Sample({"query": "contact"})


@sample("describeTool")
def describe_tool(actor: Any) -> Sample:
    return Sample({"name": "getContact"})

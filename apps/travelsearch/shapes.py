"""The answers Provider Travel Search's tools share."""

from datetime import date, datetime
from decimal import Decimal
from typing import Any

from pydantic import Field

from apps.catalogue.shapes import Out


class ResultOut(Out):
    id: int = Field(description="The result's id here: what the details, offers and save tools take")
    kind: str
    provider: str
    title: str
    total: Decimal = Field(description="What is paid in all: taxes and mandatory fees included")
    currency: str
    starts_on: date
    ends_on: date | None
    expires_at: datetime = Field(description="The price is held until then; past it, search again")
    provider_page: str = Field(description="The provider's page for it (where a person books)")
    details: dict[str, Any]


class SavedOut(Out):
    id: int
    kind: str
    result_id: int | None
    provider: str
    title: str
    total: Decimal = Field(description="The provider's total when saved, fees included")
    currency: str
    starts_on: date
    ends_on: date | None
    expires_at: datetime
    provider_page: str
    note: str
    shared: bool = Field(description="Seen by the workspace's people, else only its owner")
    saved_by: str
    saved_at: datetime


class ResultsOut(Out):
    results: list[ResultOut]
    next_page_token: str = Field(description="Give it as pageToken for more; empty: no more")

"""Stored APIs and calls to them (apps.platform.apicalls): the workspace's admins declare an outside
HTTP API once, with its hosts, methods and credential; its people call it by name."""

import hashlib
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import Out
from apps.platform import apicalls
from apps.platform.models import StoredApi
from apps.platform.permissions import PlatformPerm

ApiName = Annotated[
    str, Field(min_length=1, max_length=80, description="The stored API's name, from listStoredApis")
]
Method = Literal["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]
AuthKind = Literal["none", "bearer", "basic", "header", "query"]
QueryValue = str | int | float | bool | list[str | int | float | bool]


class StoredApiOut(Out):
    name: str
    description: str
    base_url: str
    allowed_hosts: list[str]
    allowed_methods: list[str]
    auth_kind: str
    auth_name: str = Field(description="The credential's header or query parameter, or the basic user name")
    has_secret: bool = Field(description="A credential is kept (never shown)")
    created_at: datetime
    last_called_at: datetime | None

    @classmethod
    def of(cls, api: StoredApi) -> "StoredApiOut":
        return cls.of_record(api, has_secret=bool(api.secret_encrypted))


class StoredApisOut(Out):
    apis: list[StoredApiOut]


class DeletedApiOut(Out):
    name: str
    deleted: bool


class ApiAnswerOut(Out):
    api: str
    method: str
    url: str = Field(description="The address answered, after redirects (no credential in it)")
    status: int
    ok: bool = Field(description="The status is 2xx")
    headers: dict[str, str] = Field(description="Content-Type, Location, Retry-After, ETag, Link...")
    content_type: str
    bytes: int = Field(description="Bytes of the answer read")
    truncated: bool = Field(description="The answer was longer: text cut at the byte cap")
    binary: bool = Field(description="Not text: only its size is given")
    data: Any = Field(description="The answer parsed, when it is JSON and whole")
    text: str | None = Field(description="The answer as text, when not parsed JSON")
    redirects: int
    duration_ms: float


@tool("listStoredApis", permission=PlatformPerm.INTEGRATE, title="List stored APIs", read_only=True)
def list_stored_apis(ctx: ToolContext) -> StoredApisOut:
    """List the stored outside APIs executeApiCall calls: hosts, methods, credential kind, never secrets."""
    return StoredApisOut(apis=[StoredApiOut.of(api) for api in apicalls.apis()])


@tool(
    "saveStoredApi",
    permission=PlatformPerm.ADMIN,
    title="Save a stored API",
    markers=Marker.HIGH_RISK,
    idempotent=True,
)
def save_stored_api(
    ctx: ToolContext,
    *,
    name: ApiName,
    base_url: Annotated[str, Field(min_length=1, max_length=2000, description="https://api.example.com/v1")],
    allowed_methods: Annotated[
        list[Method], Field(max_length=6, description="Default: GET only; others need confirming per call")
    ] = [],  # noqa: B006 (pydantic copies defaults)
    allowed_hosts: Annotated[
        list[Annotated[str, Field(max_length=260)]],
        Field(max_length=20, description="Other hosts calls may reach; the base URL's always"),
    ] = [],  # noqa: B006
    auth_kind: Annotated[
        AuthKind, Field(description="How calls sign in; the secret is asked on a page")
    ] = "none",
    auth_name: Annotated[str, Field(max_length=200, description="header/query: its name; basic: user")] = "",
    description: Annotated[str, Field(max_length=500, description="What it is for")] = "",
    replace_secret: Annotated[bool, Field(description="Ask for a new secret for an existing one")] = False,
) -> StoredApiOut:
    """Create or update (by name) an outside API people may call with executeApiCall.

    The secret is entered by the person on a secure page, never in the chat; it is kept encrypted."""
    fields = apicalls.declared(
        name=name,
        description=description,
        base_url=base_url,
        allowed_hosts=allowed_hosts,
        allowed_methods=list(allowed_methods),
        auth_kind=auth_kind,
        auth_name=auth_name,
    )
    found = StoredApi.objects.filter(name__iexact=fields.name).first()
    secret = None
    if apicalls.needs_secret(found, fields, replace=replace_secret):
        key = hashlib.sha256(fields.name.lower().encode()).hexdigest()[:24]
        secret = ctx.secure_input(
            purpose=f"platform.storedApi:{key}:{fields.auth_kind}",
            message=f"Enter the {fields.auth_kind} secret of the stored API “{fields.name}” "
            f"({fields.base_url}).",
            label="Password" if fields.auth_kind == StoredApi.Auth.BASIC else "Secret",
        )
    return StoredApiOut.of(apicalls.api_save(actor=ctx.actor, found=found, fields=fields, secret=secret))


@tool(
    "deleteStoredApi",
    permission=PlatformPerm.ADMIN,
    title="Delete a stored API",
    markers=Marker.DESTRUCTIVE,
)
def delete_stored_api(ctx: ToolContext, *, name: ApiName) -> DeletedApiOut:
    """Delete a stored API and its encrypted secret for good; calls to it stop at once."""
    api = apicalls.api_named(name)
    apicalls.api_delete(actor=ctx.actor, api=api)
    return DeletedApiOut(name=api.name, deleted=True)


def _changes_something(
    ctx: ToolContext,
    *,
    api: str,
    path: str,
    method: str,
    query: dict[str, QueryValue],
    body: Any,
    headers: dict[str, str],
    max_bytes: int | None,
) -> bool:
    """Only a call that may change something at the API (not GET or HEAD) is confirmed, once it is
    known to be within the stored API's bounds (a refused one is refused without asking)."""
    apicalls.checked_call(
        apicalls.api_named(api), method=method, path=path, query=query, body=body, headers=headers
    )
    return method not in apicalls.SAFE_METHODS


@tool(
    "executeApiCall",
    permission=PlatformPerm.INTEGRATE,
    title="Call a stored API",
    markers=Marker.HIGH_RISK,
    confirm_if=_changes_something,
    open_world=True,
)
def execute_api_call(
    ctx: ToolContext,
    *,
    api: ApiName,
    path: Annotated[str, Field(max_length=2000, description="Relative to its base URL, e.g. /users/42")] = "",
    method: Annotated[Method, Field(description="One the API allows; not GET/HEAD: confirmed")] = "GET",
    query: Annotated[dict[str, QueryValue], Field(max_length=50, description="Query parameters")] = {},  # noqa: B006
    body: Annotated[Any, Field(description="JSON value, or a string sent as text")] = None,
    headers: Annotated[
        dict[str, str], Field(max_length=20, description="Extra headers; no credentials")
    ] = {},  # noqa: B006
    max_bytes: Annotated[int | None, Field(ge=1, le=1_000_000, description="Cap on the answer read")] = None,
) -> ApiAnswerOut:
    """Call a stored outside API (listStoredApis) with its kept credential; HIGH RISK only if not GET/HEAD.

    Only its hosts and methods; the answer is capped, JSON parsed, text cut with truncated."""
    stored = apicalls.api_named(api)
    answered = apicalls.call(
        actor=ctx.actor,
        api=stored,
        method=method,
        path=path,
        query=query,
        body=body,
        headers=headers,
        max_bytes=max_bytes,
    )
    return ApiAnswerOut(
        api=stored.name,
        method=answered.method,
        url=answered.url,
        status=answered.status,
        ok=200 <= answered.status < 300,
        headers=answered.headers,
        content_type=answered.content_type,
        bytes=answered.size,
        truncated=answered.truncated,
        binary=answered.binary,
        data=answered.json,
        text=answered.text,
        redirects=answered.redirects,
        duration_ms=round(answered.duration_ms, 1),
    )

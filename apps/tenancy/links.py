"""Links a workspace hands out outside a request (download links, invitation answers): the
workspace's origin, and signed tokens that are only good in the workspace that made them."""

from typing import Any

from django.conf import settings
from django.core import signing
from django.urls import reverse

from apps.core.db import connection


def site_origin() -> str:
    """The current workspace's origin: its primary domain, with the scheme and port of
    `ATRIUM_SITE_SCHEME` / `ATRIUM_SITE_PORT` (tools and e-mails have no request to copy)."""
    from apps.core.workspaces import current_workspace

    workspace = current_workspace()
    domain = workspace.get_primary_domain() if workspace is not None else None
    host = domain.domain if domain is not None else "localhost"
    scheme = settings.ATRIUM_SITE_SCHEME
    port = str(settings.ATRIUM_SITE_PORT or "")
    default = (scheme, port) in {("https", "443"), ("http", "80")}
    return f"{scheme}://{host}{'' if not port or default else ':' + port}"


def page(name: str, **kwargs: Any) -> str:
    """The full address of a page of the current workspace (a URL name and its arguments), for a
    link handed out outside a request (a tool's answer, an e-mail)."""
    return site_origin() + reverse(name, kwargs=kwargs or None)


def sign(payload: dict[str, Any], *, salt: str) -> str:
    """A signed, compressed token for `payload`, bound to the current workspace's schema."""
    return signing.dumps({**payload, "s": connection.schema_name}, salt=salt, compress=True)


def unsign(token: str, *, salt: str, max_age: int) -> dict[str, Any] | None:
    """The payload of a token made by `sign` in this workspace and younger than `max_age`
    seconds; None for anything else (forged, expired, another workspace's)."""
    try:
        payload = signing.loads(token, salt=salt, max_age=max_age)
    except signing.BadSignature:
        return None
    return payload if isinstance(payload, dict) and payload.get("s") == connection.schema_name else None

"""Short-lived download links of files (downloadFileEntity, the Files settings page).

A link is `{origin}/files/download/<token>`, served by `views.download` on the workspace's own
host. The token is signed with the service's secret (django.core.signing) and names the
workspace, the file, the bytes it may serve (their digest) and the person it was made for; it
expires after `ATRIUM_FILES_DOWNLOAD_TTL_SECONDS`. The view checks all of it again, and that the
person may still see the file, so a link stops working when the file is trashed or unshared.
"""

from typing import Any

from django.conf import settings
from django.core import signing
from django.db import connection
from django.urls import reverse

from apps.files.models import File

SALT = "atrium.files.download"


def token_for(file: File, actor: Any) -> str:
    payload = {
        "s": connection.schema_name,
        "f": file.pk,
        "h": file.sha256[:16],
        "u": getattr(actor, "pk", None),
    }
    return signing.dumps(payload, salt=SALT, compress=True)


def read_token(token: str) -> dict[str, Any] | None:
    try:
        payload = signing.loads(token, salt=SALT, max_age=settings.ATRIUM_FILES_DOWNLOAD_TTL_SECONDS)
    except signing.BadSignature:
        return None
    return payload if isinstance(payload, dict) and payload.get("s") == connection.schema_name else None


def origin() -> str:
    """The workspace's origin for links made outside a request: its primary domain, with the
    scheme and port of `ATRIUM_SITE_SCHEME` / `ATRIUM_SITE_PORT`."""
    from apps.accounts.access import current_workspace

    workspace = current_workspace()
    domain = workspace.get_primary_domain() if workspace is not None else None
    host = domain.domain if domain is not None else "localhost"
    port = str(settings.ATRIUM_SITE_PORT or "")
    scheme = settings.ATRIUM_SITE_SCHEME
    default = (scheme == "https" and port == "443") or (scheme == "http" and port == "80")
    return f"{scheme}://{host}{'' if not port or default else ':' + port}"


def path_for(file: File, actor: Any) -> str:
    return reverse("files:download", kwargs={"token": token_for(file, actor)})


def url_for(file: File, actor: Any) -> str:
    return origin() + path_for(file, actor)

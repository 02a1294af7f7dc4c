"""Short-lived download links of files (downloadFileEntity, the Files settings page).

A link is `{origin}/files/download/<token>`, served by `views.download` on the workspace's own
host. The token is signed with the service's secret (django.core.signing) and names the
workspace, the file, the bytes it may serve (their digest) and the person it was made for; it
expires after `ATRIUM_FILES_DOWNLOAD_TTL_SECONDS`. The view checks all of it again, and that the
person may still see the file, so a link stops working when the file is trashed or unshared.
"""

from typing import Any

from django.conf import settings
from django.urls import reverse

from apps.core.actors import Actor
from apps.files.models import File
from apps.tenancy import links

SALT = "atrium.files.download"


def token_for(file: File, actor: Actor) -> str:
    return links.sign({"f": file.pk, "h": file.sha256[:16], "u": getattr(actor, "pk", None)}, salt=SALT)


def read_token(token: str) -> dict[str, Any] | None:
    return links.unsign(token, salt=SALT, max_age=settings.ATRIUM_FILES_DOWNLOAD_TTL_SECONDS)


def path_for(file: File, actor: Actor) -> str:
    return reverse("files:download", kwargs={"token": token_for(file, actor)})


def url_for(file: File, actor: Actor) -> str:
    return links.site_origin() + path_for(file, actor)

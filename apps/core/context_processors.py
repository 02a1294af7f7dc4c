from typing import Any

from django.conf import settings
from django.http import HttpRequest

from apps.core import navigation


def atrium(request: HttpRequest) -> dict[str, Any]:
    workspace = getattr(request, "tenant", None)
    if workspace is not None and workspace.schema_name == "public":
        workspace = None
    return {
        "workspace": workspace,
        "atrium_version": settings.ATRIUM_VERSION,
        "settings_nav": navigation.visible_to(getattr(request, "user", None)) if workspace else [],
    }

"""Icons for clients that show them (MCP 2025-11-25, `Icon`): one per area, on each of the area's
tools, and the service's own on `serverInfo`.

They are static SVG files (`static/icons/areas/<area key>.svg`, `static/icons/atrium.svg`) served
from the workspace's own origin, so a client fetches them from the server it is connected to
(the revision asks clients to be wary of icons from elsewhere). An area without a file of its own
gets the service's icon.
"""

import functools
from typing import Any

from django.contrib.staticfiles import finders
from django.templatetags.static import static

SERVER_ICON = "icons/atrium.svg"
SIZES = ["any"]  # vector images: any size


def area_icon_path(area: str) -> str:
    """The static path of the icon of `area` (the service's icon when it has none of its own)."""
    return _area_path(area)


@functools.cache
def _area_path(area: str) -> str:
    path = f"icons/areas/{area}.svg"
    return path if finders.find(path) else SERVER_ICON


def icons(base_url: str, path: str) -> list[dict[str, Any]]:
    return [{"src": f"{base_url}{static(path)}", "mimeType": "image/svg+xml", "sizes": SIZES}]


def server_icons(base_url: str) -> list[dict[str, Any]]:
    return icons(base_url, SERVER_ICON)


def area_icons(base_url: str, area: str) -> list[dict[str, Any]]:
    return icons(base_url, area_icon_path(area))

"""The frame an extension runs in: an iframe with the `sandbox` attribute, its files served from
the workspace's own host under a strict Content-Security-Policy, and the postMessage contract
between the frame and the workspace page that holds it (Zendesk's ZAF client, Slack's and
Atlassian Forge's bridges read alike)."""

from typing import Any

SANDBOX = "allow-scripts allow-forms allow-popups"
# Served with every file of a built extension: its own scripts and styles only, nothing fetched
# from anywhere (data reaches it through the postMessage bridge), never a frame outside the
# workspace's own pages, and sandboxed even when opened on its own.
CSP = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'none'",
        "form-action 'none'",
        "base-uri 'none'",
        "object-src 'none'",
        "frame-ancestors 'self'",
        "sandbox " + SANDBOX,
    )
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
}
PROTOCOL = "atrium.extension/1"


def messages() -> list[dict[str, Any]]:
    """The postMessage contract: each message's direction, type and fields."""
    return [
        {
            "direction": "frame→host",
            "type": "ready",
            "fields": {"protocol": PROTOCOL},
            "about": "sent once loaded; the host answers with context",
        },
        {
            "direction": "host→frame",
            "type": "context",
            "fields": {"locale": "BCP 47 tag", "workspace": "name", "scopes": "granted scopes"},
            "about": "who and where the frame runs; nothing personal",
        },
        {
            "direction": "frame→host",
            "type": "request",
            "fields": {
                "id": "correlation id",
                "shape": "a data shape",
                "action": "read|write",
                "params": "object",
            },
            "about": "a read or write of a data shape, checked against the granted scopes and rights",
        },
        {
            "direction": "host→frame",
            "type": "response",
            "fields": {"id": "the request's id", "ok": "bool", "data": "object", "error": "{code, message}"},
            "about": "the answer to one request",
        },
        {
            "direction": "frame→host",
            "type": "resize",
            "fields": {"height": "pixels, at most 2000"},
            "about": "the frame's height",
        },
    ]

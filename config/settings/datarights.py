"""Data-rights requests (apps.datarights; SPEC 1 rule 5, 2.6, 4.6, 5.4, 10; docs/privacy.md).

These variables keep the names they were given with the endpoint (DATA_REQUEST_*,
DATA_TEAM_EMAIL), the one exception to the ATRIUM_ prefix besides the ecosystem's own names
(apps.core.env)."""

from apps.core import env

from .applications import ATRIUM_PUBLIC_DOMAINS

# The bearer secret of POST /api/data-request. Empty: every request is refused.
DATA_REQUEST_SHARED_SECRET = env.str("DATA_REQUEST_SHARED_SECRET")
# Where the data team is notified. Never shown to a caller, never logged.
DATA_TEAM_EMAIL = env.str("DATA_TEAM_EMAIL")
# The public site's admin, for the link in the data team's e-mail.
DATA_REQUEST_ADMIN_URL = env.str(
    "DATA_REQUEST_ADMIN_URL", f"http://{ATRIUM_PUBLIC_DOMAINS[0]}:{env.str('ATRIUM_PORT', '8000')}/admin/"
)
# Requests per client address per window (every attempt counts, a wrong secret too).
DATA_REQUEST_RATE_LIMIT = env.int("DATA_REQUEST_RATE_LIMIT", 20, min=0)
DATA_REQUEST_RATE_WINDOW_SECONDS = env.int("DATA_REQUEST_RATE_WINDOW_SECONDS", 60, min=1)
# The same request sent again within this many seconds is recognised, not stored or notified again.
DATA_REQUEST_DUPLICATE_WINDOW_SECONDS = env.int("DATA_REQUEST_DUPLICATE_WINDOW_SECONDS", 600, min=0)
DATA_REQUEST_DETAILS_MAX_LENGTH = 5000
DATA_REQUEST_MAX_BODY_BYTES = 64 * 1024
DATA_REQUEST_SMTP_TIMEOUT = 30

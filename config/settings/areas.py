"""Settings that belong to one workspace area app each.

Each block below will move into its area app's own declaration (the area kit: an area declares
its settings, with their environment variables, next to its permissions and periodic tasks), and
this module will shrink to nothing. Until then an area's settings are read here, in one block per
area, and nowhere else. The Tasks area's periodic tasks are in celery.py's one schedule.
"""

from apps.core import env

# --- Files (apps.files); docs/files.md ----------------------------------------------------------

# The STORAGES entry that holds the files' bytes. "default" is django-tenants' per-workspace
# prefix of MEDIA_ROOT; docs/files.md shows an S3-compatible entry that keeps the prefix.
ATRIUM_FILES_STORAGE = env.str("ATRIUM_FILES_STORAGE", "default")
# The largest file accepted, wherever bytes arrive (tools, other areas, exports).
ATRIUM_FILES_MAX_BYTES = env.int("ATRIUM_FILES_MAX_BYTES", 25 * 1024 * 1024, min=0)
# downloadFileEntity gives files up to this size inline (base64); larger ones only as a link.
ATRIUM_FILES_INLINE_MAX_BYTES = env.int("ATRIUM_FILES_INLINE_MAX_BYTES", 256 * 1024, min=0)
# How long a download link of downloadFileEntity works.
ATRIUM_FILES_DOWNLOAD_TTL_SECONDS = env.int("ATRIUM_FILES_DOWNLOAD_TTL_SECONDS", 600, min=1)
# The largest file emailFileAsAttachment sends.
ATRIUM_FILES_EMAIL_MAX_BYTES = env.int("ATRIUM_FILES_EMAIL_MAX_BYTES", 10 * 1024 * 1024, min=0)
# (Download links use ATRIUM_SITE_SCHEME and ATRIUM_SITE_PORT, which several areas share:
# applications.py.)

# --- Documents (apps.documents) -----------------------------------------------------------------

# The longest document body accepted (characters of sanitised HTML).
ATRIUM_DOCUMENTS_MAX_CHARS = env.int("ATRIUM_DOCUMENTS_MAX_CHARS", 1000000, min=0)

# --- Calendars (apps.calendars); docs/calendars.md ----------------------------------------------

# How long the answer links in a calendar invitation work (default: 90 days).
ATRIUM_CALENDAR_RSVP_TTL_SECONDS = env.int("ATRIUM_CALENDAR_RSVP_TTL_SECONDS", 90 * 24 * 3600, min=1)

# --- Contacts (apps.contacts): the credit bureau; docs/catalogue.md -----------------------------

# The credit bureau behind getContactCreditCheck; unset: the tool says so.
ATRIUM_CREDIT_BUREAU_URL = env.str("ATRIUM_CREDIT_BUREAU_URL")
ATRIUM_CREDIT_BUREAU_KEY = env.str("ATRIUM_CREDIT_BUREAU_KEY")
ATRIUM_CREDIT_BUREAU_TIMEOUT = env.float("ATRIUM_CREDIT_BUREAU_TIMEOUT", 10.0, min=0)

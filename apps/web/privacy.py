"""Personal data in the Agent Web Browser (docs/privacy.md): a person's searches and pages read go
with them; the cached pages are the public web's."""

from apps.core import privacy
from apps.web.models import CachedPage, WebCall

privacy.register(WebCall, user="created_by")
privacy.not_personal(CachedPage, reason="public web pages as read, by address, kept for a while")

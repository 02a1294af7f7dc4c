"""Personal data in the Agent Browser Tab (docs/privacy.md): a person's browser sessions (where they
went) and what was done in them go with them. An open session holds their sign-ins to other sites,
so it is a way in: deactivating the person ends it (`credential=True`), as erasure does first."""

from typing import Any

from django.utils.translation import gettext as _

from apps.browser.models import BrowserAction, BrowserSession
from apps.browser.services import end
from apps.core import privacy


def _end_open(rows: Any) -> int:
    ended = 0
    for session in rows.filter(status=BrowserSession.Status.OPEN):
        end(session, _("its person was deactivated"))
        ended += 1
    return ended


privacy.register(BrowserSession, user="owner", soft_delete=_end_open, credential=True)
privacy.register(BrowserAction, user="created_by")

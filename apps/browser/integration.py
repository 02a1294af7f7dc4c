"""Agent Browser Tab on Settings → Integrations (apps.integrations.api): no outside provider and no
credential (the server's own Chromium, set by the server alone: a workspace never names a program
to run); its test checks that the browser is there."""

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from apps.browser import engine, errors
from apps.browser.permissions import BrowserPerm
from apps.integrations import api as integrations


def configured() -> str:
    try:
        engine.chromium()
    except errors.NoBrowser:
        return ""
    return "Chromium"


def test_chromium() -> integrations.Outcome:
    if not configured():
        return integrations.Outcome(False, _("no browser on this server: an administrator installs Chromium"))
    return integrations.Outcome(True, _("ok: Chromium is installed on this server"))


integrations.register(
    integrations.Integration(
        area="browser",
        title=gettext_lazy("Browser tab"),
        permission=BrowserPerm.VIEW,
        activity="browser:sessions",
        activity_label=gettext_lazy("Browser sessions and what was done in them"),
        configured=configured,
        providers=(integrations.Provider(key="chromium", name="Chromium", fields=(), test=test_chromium),),
        order=20,
    )
)

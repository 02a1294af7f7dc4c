"""Agent Browser Tab on Settings → Integrations (apps.integrations.api): no outside provider and no
credential (the server's own Chromium, set by the server alone: a workspace never names a program
to run); its test checks that the browser is there."""

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from apps.browser import engine, errors
from apps.browser.permissions import BrowserPerm
from apps.integrations.api import Integration, Outcome, Provider, register


def configured() -> str:
    try:
        engine.chromium()
    except errors.NoBrowser:
        return ""
    return "Chromium"


def test_chromium() -> Outcome:
    if not configured():
        return Outcome(False, _("no browser on this server: an administrator installs Chromium"))
    return Outcome(True, _("ok: Chromium is installed on this server"))


register(
    Integration(
        area="browser",
        title=gettext_lazy("Browser tab"),
        permission=BrowserPerm.VIEW,
        activity="browser:sessions",
        activity_label=gettext_lazy("Browser sessions and what was done in them"),
        configured=configured,
        providers=(Provider(key="chromium", name="Chromium", fields=(), test=test_chromium),),
        order=20,
    )
)

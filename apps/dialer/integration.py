"""Agent Dialer on Settings → Integrations (apps.integrations.api): the Twilio account (or a
SignalWire project, by its API address), and a test that reads the account resource."""

from django.conf import settings
from django.utils.translation import gettext_lazy as _

from apps.dialer import providers
from apps.dialer.permissions import DialerPerm
from apps.integrations.api import (
    Field,
    Integration,
    Outcome,
    Provider,
    http_check,
    not_configured,
    register,
    setting,
)


def test_twilio() -> Outcome:
    absent = providers.missing()
    if absent:
        return not_configured(", ".join(absent))
    sid = setting("ATRIUM_DIALER_ACCOUNT_SID")
    return http_check(
        "GET",
        f"{setting('ATRIUM_DIALER_API_URL').rstrip('/')}/{providers.API_VERSION}/Accounts/{sid}.json",
        auth=(sid, setting("ATRIUM_DIALER_AUTH_TOKEN")),
        timeout=settings.ATRIUM_DIALER_TIMEOUT_SECONDS,
    )


def configured() -> str:
    return providers.provider_name()


register(
    Integration(
        area="dialer",
        title=_("Dialer"),
        permission=DialerPerm.VIEW,
        activity="dialer:dialer",
        activity_label=_("Calls and text messages, with their status and cost"),
        configured=configured,
        providers=(
            Provider(
                key="twilio",
                name="Twilio / SignalWire",
                fields=(
                    Field("ATRIUM_DIALER_ACCOUNT_SID", _("Account SID (or project id)"), secret=True),
                    Field("ATRIUM_DIALER_AUTH_TOKEN", _("Auth token"), secret=True),
                    Field("ATRIUM_DIALER_API_URL", _("API address"), url=True),
                ),
                test=test_twilio,
            ),
        ),
        order=50,
    )
)

"""Agent Dialer on Settings → Integrations (apps.integrations.api): the Twilio account (or a
SignalWire project, by its API address), and a test that reads the account resource."""

from django.conf import settings
from django.utils.translation import gettext_lazy as _

from apps.dialer import providers
from apps.dialer.permissions import DialerPerm
from apps.integrations import api as integrations


def test_twilio() -> integrations.Outcome:
    if absent := integrations.unset("ATRIUM_DIALER_ACCOUNT_SID", "ATRIUM_DIALER_AUTH_TOKEN"):
        return absent
    sid = integrations.setting("ATRIUM_DIALER_ACCOUNT_SID")
    return integrations.http_check(
        "GET",
        f"{integrations.setting('ATRIUM_DIALER_API_URL').rstrip('/')}/{providers.API_VERSION}/Accounts/{sid}.json",
        auth=(sid, integrations.setting("ATRIUM_DIALER_AUTH_TOKEN")),
        timeout=settings.ATRIUM_DIALER_TIMEOUT_SECONDS,
    )


def configured() -> str:
    return providers.provider_name()


integrations.register(
    integrations.Integration(
        area="dialer",
        title=_("Dialer"),
        permission=DialerPerm.VIEW,
        activity="dialer:dialer",
        activity_label=_("Calls and text messages, with their status and cost"),
        configured=configured,
        providers=(
            integrations.Provider(
                key="twilio",
                name="Twilio / SignalWire",
                fields=(
                    integrations.Field(
                        "ATRIUM_DIALER_ACCOUNT_SID", _("Account SID (or project id)"), secret=True
                    ),
                    integrations.Field("ATRIUM_DIALER_AUTH_TOKEN", _("Auth token"), secret=True),
                    integrations.Field("ATRIUM_DIALER_API_URL", _("API address"), url=True),
                ),
                test=test_twilio,
            ),
        ),
        order=50,
    )
)

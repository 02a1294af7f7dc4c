"""Provider Travel Search on Settings → Integrations (apps.integrations.api): the Demand API's
credentials, and a test that lists the countries (the API's cheapest call)."""

from django.conf import settings
from django.utils.translation import gettext_lazy as _

from apps.integrations import api as integrations
from apps.travelsearch import providers
from apps.travelsearch.permissions import TravelSearchPerm

TOKEN = "ATRIUM_TRAVELSEARCH_BOOKING_TOKEN"  # noqa: S105 (a setting's name, not its value)
AFFILIATE = "ATRIUM_TRAVELSEARCH_BOOKING_AFFILIATE_ID"
URL = "ATRIUM_TRAVELSEARCH_BOOKING_URL"


def test_booking() -> integrations.Outcome:
    if absent := integrations.unset(TOKEN, AFFILIATE):
        return absent
    return integrations.http_check(
        "POST",
        f"{integrations.setting(URL).rstrip('/')}/common/locations/countries",
        json={"languages": [settings.ATRIUM_TRAVELSEARCH_LANGUAGE]},
        headers={
            "Authorization": f"Bearer {integrations.setting(TOKEN)}",
            "X-Affiliate-Id": integrations.setting(AFFILIATE),
            "Accept": "application/json",
        },
        timeout=settings.ATRIUM_TRAVELSEARCH_TIMEOUT_SECONDS,
    )


integrations.register(
    integrations.Integration(
        area="travelsearch",
        title=_("Travel search"),
        permission=TravelSearchPerm.VIEW,
        activity="travelsearch:travelsearch",
        activity_label=_("Saved travel options"),
        configured=providers.configured,
        providers=(
            integrations.Provider(
                key="booking",
                name="Booking.com Demand API",
                fields=(
                    integrations.Field(TOKEN, _("API token"), secret=True),
                    integrations.Field(AFFILIATE, _("Affiliate id")),
                    integrations.Field(URL, _("API address"), url=True),
                ),
                test=test_booking,
            ),
        ),
        order=40,
    )
)

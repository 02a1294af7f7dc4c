"""Flights and Stays on Settings → Integrations (apps.integrations.api): Duffel's access token and
address, and a test that lists one airline (a read that books nothing)."""

from django.conf import settings
from django.utils.translation import gettext_lazy as _

from apps.integrations import api as integrations
from apps.travel import providers
from apps.travel.permissions import TravelPerm


def test_duffel() -> integrations.Outcome:
    if absent := integrations.unset("ATRIUM_TRAVEL_DUFFEL_TOKEN"):
        return absent
    return integrations.http_check(
        "GET",
        f"{integrations.setting('ATRIUM_TRAVEL_DUFFEL_URL').rstrip('/')}/air/airlines",
        params={"limit": "1"},
        headers={
            "Authorization": f"Bearer {integrations.setting('ATRIUM_TRAVEL_DUFFEL_TOKEN')}",
            "Duffel-Version": settings.ATRIUM_TRAVEL_DUFFEL_VERSION,
            "Accept": "application/json",
        },
        timeout=settings.ATRIUM_TRAVEL_TIMEOUT_SECONDS,
    )


integrations.register(
    integrations.Integration(
        area="travel",
        title=_("Flights and stays"),
        permission=TravelPerm.VIEW,
        activity="travel:travel",
        activity_label=_("Saved offers, holds and bookings"),
        configured=providers.configured,
        providers=(
            integrations.Provider(
                key="duffel",
                name="Duffel",
                fields=(
                    integrations.Field("ATRIUM_TRAVEL_DUFFEL_TOKEN", _("Access token"), secret=True),
                    integrations.Field("ATRIUM_TRAVEL_DUFFEL_URL", _("API address"), url=True),
                ),
                test=test_duffel,
            ),
        ),
        order=30,
    )
)

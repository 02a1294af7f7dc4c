"""Provider Travel Search on Settings → Integrations (apps.integrations.api): the Demand API's
credentials, and a test that lists the countries (the API's cheapest call)."""

from django.conf import settings
from django.utils.translation import gettext_lazy as _

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
from apps.travelsearch import providers
from apps.travelsearch.permissions import TravelSearchPerm

TOKEN = "ATRIUM_TRAVELSEARCH_BOOKING_TOKEN"  # noqa: S105 (a setting's name, not its value)
AFFILIATE = "ATRIUM_TRAVELSEARCH_BOOKING_AFFILIATE_ID"
URL = "ATRIUM_TRAVELSEARCH_BOOKING_URL"


def test_booking() -> Outcome:
    token, affiliate = setting(TOKEN), setting(AFFILIATE)
    if not token or not affiliate:
        return not_configured(f"{TOKEN} or {AFFILIATE}")
    return http_check(
        "POST",
        f"{setting(URL).rstrip('/')}/common/locations/countries",
        json={"languages": [settings.ATRIUM_TRAVELSEARCH_LANGUAGE]},
        headers={
            "Authorization": f"Bearer {token}",
            "X-Affiliate-Id": affiliate,
            "Accept": "application/json",
        },
        timeout=settings.ATRIUM_TRAVELSEARCH_TIMEOUT_SECONDS,
    )


register(
    Integration(
        area="travelsearch",
        title=_("Travel search"),
        permission=TravelSearchPerm.VIEW,
        activity="travelsearch:travelsearch",
        activity_label=_("Saved travel options"),
        configured=providers.configured,
        providers=(
            Provider(
                key="booking",
                name="Booking.com Demand API",
                fields=(
                    Field(TOKEN, _("API token"), secret=True),
                    Field(AFFILIATE, _("Affiliate id")),
                    Field(URL, _("API address"), url=True),
                ),
                test=test_booking,
            ),
        ),
        order=40,
    )
)

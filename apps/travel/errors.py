"""Flights and Stays' failures (apps.core.errors): each names the problem and what to do next."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import AppError, Conflict, ValidationFailed


class TravelNotConfigured(AppError):
    code = "TRAVEL_NOT_CONFIGURED"
    http_status = 503
    msg_format = _(
        "{tool} is not configured: the travel provider chosen ({provider!r}) needs {setting}. An "
        "administrator sets ATRIUM_TRAVEL_PROVIDER (duffel) and ATRIUM_TRAVEL_DUFFEL_TOKEN (a Duffel "
        "access token) on Settings → Integrations or in the service's environment. Nothing was "
        "searched or booked."
    )


class TravelProviderFailed(AppError):
    """`problem`: in the service's words, never the provider's."""

    code = "TRAVEL_PROVIDER_FAILED"
    http_status = 502
    msg_format = _("The travel provider ({provider}) did not answer usefully: {problem}. Nothing was booked.")


class TravelProviderUnreachable(TravelProviderFailed):
    problem_format = _("it could not be reached ({kind})")


class TravelProviderHttpError(TravelProviderFailed):
    problem_format = _("it answered HTTP {status}")


class TravelProviderKeyRefused(TravelProviderFailed):
    problem_format = _("it refused the service's access token (HTTP {status})")


class TravelProviderNotJson(TravelProviderFailed):
    problem_format = _("its answer is not the expected JSON")


class TravelProviderRefused(AppError):
    """The provider refused a request it understood (`reason`: its own words, outside data)."""

    code = "TRAVEL_PROVIDER_REFUSED"
    http_status = 422
    msg_format = _("The travel provider ({provider}) refused: {reason}. Nothing was booked.")


class OfferExpired(Conflict):
    code = "TRAVEL_OFFER_EXPIRED"
    msg_format = _(
        "Offer {offer} expired at {expired}: search again (findFlightOffers or findStayOffers) and "
        "prepare a fresh offer. Nothing was booked."
    )


class PriceChanged(Conflict):
    code = "TRAVEL_PRICE_CHANGED"
    msg_format = _(
        "The price of offer {offer} changed from {was} {currency} to {now} {currency}: tell the "
        "traveller, then prepare it again with expectedTotal set to {now}. Nothing was booked."
    )


class CannotHold(Conflict):
    code = "TRAVEL_CANNOT_HOLD"
    msg_format = _(
        "Offer {offer} must be paid at once and cannot be held: pick another offer (findFlightOffers). "
        "Nothing was booked."
    )


class NameRefused(ValidationFailed):
    code = "TRAVEL_NAME_REFUSED"
    msg_format = _(
        "{field}: {character!r} is a character airlines refuse in names; write the name as on the "
        "travel document in Latin letters (A-Z, spaces, hyphens, apostrophes)."
    )


class WrongKind(ValidationFailed):
    code = "TRAVEL_WRONG_KIND"
    msg_format = _("Offer {offer} is a {kind} offer: use {tool}.")


class NotCancellable(Conflict):
    code = "TRAVEL_NOT_CANCELLABLE"
    msg_format = _("Booking {booking} is {status} and cannot be cancelled.")


class NotPayable(Conflict):
    code = "TRAVEL_NOT_PAYABLE"
    msg_format = _("Booking {booking} is {status}: there is nothing to pay.")


class HoldLapsed(Conflict):
    code = "TRAVEL_HOLD_LAPSED"
    msg_format = _(
        "Booking {booking} had to be paid by {expired}: the hold has lapsed. Search again and prepare "
        "a new booking. Nothing was paid."
    )

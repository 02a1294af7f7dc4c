"""Provider Travel Search's failures (apps.core.errors): each names the problem and what to do next."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import AppError, Conflict, ValidationFailed


class TravelSearchNotConfigured(AppError):
    code = "TRAVELSEARCH_NOT_CONFIGURED"
    http_status = 503
    msg_format = _(
        "{tool} is not configured: {problem}. An administrator sets {settings} on Settings → Integrations "
        "or in the service's environment. Nothing was searched or saved."
    )


class NoCredentials(TravelSearchNotConfigured):
    problem_format = _("no Booking.com Demand API credentials are set")


class UnknownProvider(TravelSearchNotConfigured):
    problem_format = _("the provider chosen ({chosen}) is none the service speaks")


class NoFlightProvider(TravelSearchNotConfigured):
    problem_format = _("no flight provider is set")


class ProviderFailed(AppError):
    """`problem`: in the service's words, never the provider's."""

    code = "TRAVELSEARCH_PROVIDER_FAILED"
    http_status = 502
    msg_format = _(
        "The travel search provider ({provider}) did not answer usefully: {problem}. Try again later; "
        "nothing was saved."
    )


class ProviderUnreachable(ProviderFailed):
    problem_format = _("it could not be reached ({kind})")


class ProviderTimedOut(ProviderFailed):
    problem_format = _("it did not answer within {seconds} seconds")


class ProviderHttpError(ProviderFailed):
    problem_format = _("it answered HTTP {status}")


class ProviderKeyRefused(ProviderFailed):
    problem_format = _("it refused the service's credentials (HTTP {status})")


class ProviderNotJson(ProviderFailed):
    problem_format = _("its answer is not the expected JSON")


class ProviderRefused(AppError):
    """The provider refused a request it understood (`reason`: its own words, outside data)."""

    code = "TRAVELSEARCH_PROVIDER_REFUSED"
    http_status = 422
    msg_format = _("The travel search provider ({provider}) refused: {reason}. Nothing was saved.")


class OfferExpired(Conflict):
    code = "TRAVELSEARCH_OFFER_EXPIRED"
    msg_format = _(
        "Option {offer} was found at {found} and its price held until {expired}: search again ({tool}) "
        "and save a fresh option. Nothing was saved."
    )


class OfferGone(Conflict):
    code = "TRAVELSEARCH_OFFER_GONE"
    msg_format = _(
        "The provider no longer offers option {offer} ({title}): search again ({tool}). Nothing was saved."
    )


class WrongKind(ValidationFailed):
    code = "TRAVELSEARCH_WRONG_KIND"
    msg_format = _("Option {offer} is a {kind}: save it with {tool}.")

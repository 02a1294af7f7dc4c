"""The Agent Web Browser's failures (apps.core.errors): each names the problem and what to do next."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import AppError, RateLimited, ValidationFailed


class UrlRefused(ValidationFailed):
    """`reason`: apps.core.outbound's refusal, already phrased."""

    code = "WEB_URL_REFUSED"
    msg_format = _("{url} is not fetched: {reason} Nothing was read.")


class RobotsDisallow(AppError):
    code = "WEB_ROBOTS_DISALLOWED"
    http_status = 403
    msg_format = _(
        "The site's robots.txt does not allow reading {url}; the service honours it. Cite the page's "
        "address instead, or find another source with webSearch."
    )


class DomainBusy(RateLimited):
    code = "WEB_DOMAIN_RATE_LIMITED"
    msg_format = _(
        "{host} was read {most} times in the last minute, its limit; try again in a minute or read "
        "another site."
    )


class PageTooLarge(AppError):
    code = "WEB_PAGE_TOO_LARGE"
    http_status = 413
    msg_format = _("{url} is larger than {most} bytes, more than a page the service reads; nothing was kept.")


class FetchTimedOut(AppError):
    code = "WEB_FETCH_TIMEOUT"
    http_status = 504
    msg_format = _("{url} did not answer within {seconds} seconds; nothing was kept. Try again later.")


class PageUnreadable(AppError):
    code = "WEB_FETCH_FAILED"
    http_status = 502
    msg_format = _("{url} could not be read: {problem}.")


class FetchUnreachable(PageUnreadable):
    problem_format = _("it could not be reached ({kind})")


class FetchHttpError(PageUnreadable):
    problem_format = _("the server answered HTTP {status}")


class RedirectNowhere(PageUnreadable):
    problem_format = _("a redirect names no address")


class TooManyRedirects(AppError):
    code = "WEB_TOO_MANY_REDIRECTS"
    http_status = 502
    msg_format = _("{url} redirects more than {most} times; give the page's final address.")


class UnsupportedContent(AppError):
    code = "WEB_UNSUPPORTED_CONTENT"
    http_status = 415
    msg_format = _("{url} is of type {content_type}; only HTML, plain text and PDF pages are read.")


class SearchNotConfigured(AppError):
    code = "WEB_SEARCH_NOT_CONFIGURED"
    http_status = 503
    msg_format = _(
        "webSearch is not configured: the provider chosen ({provider!r}) needs {setting}. An "
        "administrator sets ATRIUM_WEB_SEARCH_PROVIDER (searxng or brave) and ATRIUM_WEB_SEARXNG_URL or "
        "ATRIUM_WEB_BRAVE_KEY on Settings → Integrations or in the service's environment. Nothing "
        "was searched."
    )


class SearchFailed(AppError):
    """`problem`: in the service's words, never the provider's (they may quote the query)."""

    code = "WEB_SEARCH_FAILED"
    http_status = 502
    msg_format = _("The web search provider ({provider}) gave no usable answer: {problem}. Try again later.")


class SearchUnreachable(SearchFailed):
    problem_format = _("it could not be reached ({kind})")


class SearchHttpError(SearchFailed):
    problem_format = _("it answered HTTP {status}")


class SearchKeyRefused(SearchFailed):
    problem_format = _("it refused the key (HTTP {status})")


class SearchNotJson(SearchFailed):
    problem_format = _("its answer is not the expected JSON")

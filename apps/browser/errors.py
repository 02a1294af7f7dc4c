"""The Agent Browser Tab's failures (apps.core.errors): each names the problem and what to do next."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import AppError, Conflict, NotFound, RateLimited, ValidationFailed


class NoBrowser(AppError):
    code = "BROWSER_NOT_AVAILABLE"
    http_status = 503
    msg_format = _(
        "No browser on this server: {path} is not an executable Chromium. An administrator installs "
        "Chromium (Debian: apt install chromium) or sets ATRIUM_BROWSER_CHROMIUM to its path. To read "
        "a page without a browser: webExtract."
    )


class BrowserFailed(AppError):
    code = "BROWSER_FAILED"
    http_status = 502
    msg_format = _(
        "The browser could not {what}: {problem}. The session is still open; examine it to see where it is."
    )


class SessionNotFound(NotFound):
    code = "BROWSER_SESSION_NOT_FOUND"
    msg_format = _(
        "No open browser session of yours has that id: it has ended (idle {idle} seconds, or at its "
        "lifetime) or was never yours. Start one with startBrowserSession."
    )


class SessionElsewhere(Conflict):
    code = "BROWSER_SESSION_ELSEWHERE"
    msg_format = _(
        "This browser session runs on another server ({host}) and is reached only there; start a new "
        "session with startBrowserSession."
    )


class TooManySessions(RateLimited):
    code = "BROWSER_TOO_MANY_SESSIONS"
    msg_format = _(
        "The workspace has {most} browser sessions open, its limit; end one on Settings → Browser "
        "sessions or wait until one is idle for {idle} seconds."
    )


class UrlRefused(ValidationFailed):
    """`reason`: apps.core.outbound's refusal, already phrased."""

    code = "BROWSER_URL_REFUSED"
    msg_format = _("{url} is not opened: {reason} The browser stayed where it was.")


class StaleRef(ValidationFailed):
    code = "BROWSER_STALE_REF"
    msg_format = _(
        "{ref} is not an element of the last snapshot ({snapshot}): refs are good only for the "
        "snapshot that gave them. Call browserExamine and use a ref from its answer."
    )


class ValueNeeded(ValidationFailed):
    code = "BROWSER_VALUE_NEEDED"
    msg_format = _("{action} needs `value` (or a vault reference for a secret); nothing was done.")


class NotFillable(ValidationFailed):
    code = "BROWSER_NOT_FILLABLE"
    msg_format = _("{ref} is a {role}, which takes no typed text; click or select it instead.")


class PageMovedBeforeSecret(Conflict):
    code = "BROWSER_PAGE_MOVED"
    msg_format = _(
        "The page went to {host} by itself after it was examined on {seen}: the vault secret, kept "
        "for {seen}, was not typed. Call browserExamine to see where it is now."
    )


class VaultOnlyFills(ValidationFailed):
    code = "BROWSER_VAULT_ONLY_FILLS"
    msg_format = _(
        "A vault reference only fills a field (action fill); {action} takes no secret. Nothing was done."
    )

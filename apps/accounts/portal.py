"""Keeping the client portal's external people on the portal.

A portal person (the built-in portal role, apps.accounts.models.PORTAL_ROLE) signs in on the
workspace host like everyone, on the same sign-in page with the same ceiling on guesses
(apps.accounts.throttle). Their role grants no permission, so no tool or area page is theirs; this
middleware also keeps them off every page that only asks for a signed-in person (the settings
pages, their tokens, the OAuth consent screen): signed in as a portal person, the workspace's
front page leads to the portal, the portal's pages and signing out answer, and every other URL is
"not found" (the same page as a URL that does not exist, so nothing is named).
"""

from collections.abc import Callable

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import resolve_url


class PortalConfinementMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and getattr(user, "is_portal", False):
            path = request.path_info
            # The front page, and where signing in and an invitation's link lead everyone.
            if path in ("/", resolve_url(settings.LOGIN_REDIRECT_URL)):
                return HttpResponseRedirect(settings.ATRIUM_PORTAL_HOME)
            if not path.startswith(tuple(settings.ATRIUM_PORTAL_PATHS)):
                raise Http404()
        return self.get_response(request)

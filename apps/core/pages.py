"""The pages of the settings site: one decorator for a permission-checked page, and one mapping
of AppError to what a page answers (the role DRF's exception handler plays for the JSON APIs).

    @page(DocumentsPerm.VIEW, methods=READ)
    def document_detail(request: AuthenticatedHttpRequest, document_id: int) -> HttpResponse:
        document = Document.objects.fetch(request.user, document_id, trash=True)
        ...

A page then never catches the kit's errors itself: a record not found (or not the reader's to
see) is a 404, a refusal a 403, a dependency out of reach a 503 and anything else the person
can fix is said on the page they came from (a form's POST: the message, and back to that page).
A record in the trash, asked for where a live one is needed, is not found either.
"""

import json
import logging
from collections.abc import Callable, Collection
from functools import wraps
from typing import Any, cast

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db import DatabaseError
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods

from apps.core import encryption
from apps.core.actors import Actor, can
from apps.core.errors import (
    AppError,
    Forbidden,
    InTrash,
    NotFound,
    ServiceUnavailable,
    Unauthenticated,
    concurrent_conflict,
)
from apps.core.observability import describe_error

View = Callable[..., HttpResponseBase]
# The methods of a page that only shows something.
READ = ("GET", "HEAD")
logger = logging.getLogger(__name__)

# The rows a list page shows at once.
PAGE_SIZE = 30


def page(
    permission: str | None = None, *, methods: tuple[str, ...] | None = None, back: str | None = None
) -> Callable[[View], View]:
    """A page of the signed-in settings site: the person must hold `permission` (403 otherwise),
    the request must use one of `methods` (405; default: any), and an AppError raised below
    answers as `error_response` says (`back`: the URL name of the page a refusal is shown on)."""

    def decorate(view: View) -> View:
        @wraps(view)
        def checked(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            # Signed in (login_required, below): the person, not Django's anonymous user.
            if permission is not None and not can(cast(Actor, request.user), permission):
                raise PermissionDenied
            try:
                return view(request, *args, **kwargs)
            except AppError as error:
                return error_response(request, error, back=back, shows=shows)
            except DatabaseError as error:
                conflict = concurrent_conflict(error)
                if conflict is None:
                    raise
                logger.warning("page answered a conflict, a concurrent write won: %s", describe_error(error))
                return error_response(request, conflict, back=back, shows=shows)

        # Whether the page's own address can be shown again (GET), for a refusal without a Referer.
        shows = methods is None or "GET" in methods
        allowed = require_http_methods(list(methods))(checked) if methods else checked
        return login_required(allowed)

    return decorate


def error_response(
    request: HttpRequest, error: AppError, *, back: str | None = None, shows: bool = True
) -> HttpResponse:
    """What a page answers for an AppError."""
    if isinstance(error, NotFound | InTrash):
        # A page of a record in the trash is not there any more (its trash has pages of its own).
        raise Http404(str(error.message))
    if isinstance(error, Forbidden | Unauthenticated):
        raise PermissionDenied(str(error.message))
    if isinstance(error, ServiceUnavailable):
        response = render(request, "503.html", status=503)
        for name, value in error.headers.items():
            response[name] = value
        return response
    if request.method == "POST" or back is not None:
        messages.error(request, str(error.message))
        return HttpResponseRedirect(reverse(back) if back else came_from(request, shows=shows))
    return render(request, "400.html", {"message": str(error.message)}, status=400)


def came_from(request: HttpRequest, *, shows: bool = True) -> str:
    """The page a form was posted from (its Referer, on this host), or else the page itself when
    it `shows` something on GET, or else the settings' home (a POST-only action has no page: a
    browser that sends no Referer must not be sent to a 405)."""
    referer = request.META.get("HTTP_REFERER", "")
    if referer and url_has_allowed_host_and_scheme(
        referer, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return referer
    return request.get_full_path() if shows else reverse("settings:home")


# A secret made by a form (a token, a key, a signing secret) is shown by the page the form
# redirects to (post/redirect/get: a reload makes nothing twice), and only once: it waits in the
# session, encrypted, until that page takes it.
SHOWN_ONCE = "pages.shown_once"


def keep_to_show(request: HttpRequest, page_name: str, values: dict[str, Any]) -> None:
    """Keeps `values` (JSON) for the next GET of the page `page_name` alone (`take_to_show`)."""
    request.session[SHOWN_ONCE] = {"page": page_name, "sealed": encryption.encrypt(json.dumps(values))}


def take_to_show(request: HttpRequest, page_name: str) -> dict[str, Any] | None:
    """What `keep_to_show` left for this page, once; None on any other visit (and for a POST)."""
    kept = request.session.get(SHOWN_ONCE)
    if request.method != "GET" or not isinstance(kept, dict) or kept.get("page") != page_name:
        return None
    del request.session[SHOWN_ONCE]
    values: dict[str, Any] = json.loads(encryption.decrypt(kept["sealed"]))
    return values


def no_store(response: HttpResponse) -> HttpResponse:
    """A page that holds a secret: kept in no cache."""
    response["Cache-Control"] = "no-store"
    return response


def chosen(request: HttpRequest, name: str, choices: Collection[str], default: str = "") -> str:
    """The query parameter `name` when it is one of `choices`, else `default` (a filter's value)."""
    value = request.GET.get(name, default)
    return value if value in choices else default


def paged(request: HttpRequest, rows: QuerySet[Any], per_page: int = PAGE_SIZE) -> dict[str, Any]:
    """The context of a list page's pager (the `pager.html` include): the page the request asks
    for, and the query string of its other parameters so that the pager's links keep the filters."""
    query = request.GET.copy()
    query.pop("page", None)
    page = Paginator(rows, per_page).get_page(request.GET.get("page"))
    return {"page": page, "page_query": query.urlencode()}

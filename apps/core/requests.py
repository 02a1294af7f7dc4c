"""Requests of a signed-in person, as the type checker should see them.

django-stubs types `request.user` as `User | AnonymousUser` (DRF's stubs the same), although a
page behind `login_required` (`apps.core.pages.area_page`) or an API view behind DRF's
authentication and IsAuthenticated only ever sees a signed-in person. These types say so; they
are annotations only (Django and DRF still build their own request objects):

    @area_page(DocumentsPerm.VIEW)
    def document_list(request: AuthenticatedHttpRequest) -> HttpResponse:
        rows = Document.objects.restrict(request.user)
"""

from typing import TYPE_CHECKING

from django.http import HttpRequest
from rest_framework.request import Request

if TYPE_CHECKING:
    # Only for the type checker, like apps.core.actors.person: the user model is accounts'.
    from apps.accounts.models import User


class AuthenticatedHttpRequest(HttpRequest):
    user: "User"


class AuthenticatedRequest(Request):
    user: "User"

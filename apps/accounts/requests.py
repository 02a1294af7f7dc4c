"""Requests of a signed-in person, as the type checker should see them.

django-stubs types `request.user` as `User | AnonymousUser` (DRF's stubs the same), although a
page behind `login_required` (`apps.core.pages.page`) or an API view behind DRF's
authentication and IsAuthenticated only ever sees a signed-in person. These types say so; they
are annotations only (Django and DRF still build their own request objects):

    @page(DocumentsPerm.VIEW)
    def document_list(request: AuthenticatedHttpRequest) -> HttpResponse:
        rows = Document.objects.restrict(request.user)
"""

from django.http import HttpRequest
from rest_framework.request import Request

from apps.accounts.models import User


class AuthenticatedHttpRequest(HttpRequest):
    user: User


class AuthenticatedRequest(Request):
    user: User

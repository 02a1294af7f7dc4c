"""The Platform area's pages. The client portal's (apps.platform.portal): what is shared with the
portal person signed in, and nothing else; anyone else, signed in or not as a portal person, gets
"not found" (not signed in: the sign-in page first). And where an outside service sends the person
back after they allowed a connection (connectIntegration; apps.platform.connections)."""

from typing import cast

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_safe

from apps.accounts import throttle
from apps.accounts.models import User
from apps.core.actors import Actor
from apps.core.pages import page
from apps.documents import api as documents
from apps.files import api as files
from apps.platform import connections, portal, providers
from apps.platform.permissions import PlatformPerm


def _portal_person(request: HttpRequest) -> User:
    user = request.user
    if not isinstance(user, User) or not user.is_portal:
        raise Http404()
    return user


class AskForAccessForm(forms.Form):
    """The portal's sign-up page: the address a contact is known by, and their name."""

    email = forms.EmailField(
        label=_("Email"),
        max_length=254,
        widget=forms.EmailInput(attrs={"autofocus": True, "autocomplete": "email"}),
    )
    full_name = forms.CharField(
        label=_("Your name"),
        max_length=150,
        required=False,
        widget=forms.TextInput(attrs={"autocomplete": "name"}),
    )


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def ask_for_access(request: HttpRequest) -> HttpResponse:
    """A client asks for access to the portal (apps.platform.portal.ask_for_access). Counted per
    client and per address with the sign-in page's other forms (apps.accounts.throttle), and
    answered the same whether or not anything was asked for: the page tells nobody which addresses
    are known here."""
    form = AskForAccessForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        email = form.cleaned_data["email"]
        client_may, address_may = throttle.mail_request_counted(request, email)
        if not client_may:
            form.add_error(None, _("Too many requests from here. Try again in an hour."))
            response = render(request, "platform/portal/ask.html", {"form": form}, status=429)
            response["Retry-After"] = str(settings.ATRIUM_ACCOUNTS_PASSWORD_RESET_WINDOW_SECONDS)
            return response
        if address_may:
            portal.ask_for_access(email=email, full_name=form.cleaned_data["full_name"])
        return redirect("platform:portal-asked")
    return render(request, "platform/portal/ask.html", {"form": form})


@require_safe
def asked(request: HttpRequest) -> HttpResponse:
    return render(request, "platform/portal/asked.html")


@require_safe
@login_required
def home(request: HttpRequest) -> HttpResponse:
    user = _portal_person(request)
    shared_documents, shared_files = portal.shared_with(user)
    return render(
        request,
        "platform/portal/home.html",
        {"documents": list(shared_documents), "files": list(shared_files.select_related(None))},
    )


@require_safe
@login_required
def document(request: HttpRequest, document_id: int) -> HttpResponse:
    user = _portal_person(request)
    found = documents.shared_document(user, document_id)
    if found is None:
        raise Http404()
    return render(request, "platform/portal/document.html", {"document": found})


@require_safe
@login_required
def file(request: HttpRequest, file_id: int) -> HttpResponse:
    user = _portal_person(request)
    found = files.shared_with(user).filter(pk=file_id).first()
    if found is None:
        raise Http404()
    response = HttpResponse(files.file_bytes(found), content_type=found.mime_type)
    response["Content-Disposition"] = _attachment(found.name)
    response["Cache-Control"] = "private, no-store"
    response["X-Content-Type-Options"] = "nosniff"
    return response


def _attachment(name: str) -> str:
    from django.utils.http import content_disposition_header

    return content_disposition_header(True, name) or "attachment"


@never_cache
@page(PlatformPerm.INTEGRATE, methods=("GET",))
def integration_callback(request: HttpRequest) -> HttpResponse:
    """The OAuth 2.0 redirection endpoint (RFC 6749 3.1.2): completes the grant of `state`, for the
    person signed in, then shows the settings' home with what happened."""
    connection = connections.complete(
        actor=cast(Actor, request.user),
        state=request.GET.get("state", "")[:100],
        code=request.GET.get("code", "")[:2000],
        error=request.GET.get("error", "")[:100],
    )
    name = providers.get(connection.provider).name
    messages.success(
        request, _("%(name)s is connected. You can go back to your conversation.") % {"name": name}
    )
    return HttpResponseRedirect(reverse("settings:home"))

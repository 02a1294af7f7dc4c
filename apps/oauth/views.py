"""The authorization server's doors (django-oauth-toolkit's views, extended) and the
"Connected apps" settings page.

    GET  /.well-known/oauth-protected-resource[/api/mcp]   RFC 9728 metadata
    GET  /.well-known/oauth-authorization-server            RFC 8414 metadata
    GET  /oauth/authorize                                   sign-in, consent
    POST /oauth/token                                       RFC 6749 token endpoint
    POST /oauth/revoke                                      RFC 7009 revocation
    POST /oauth/register                                    RFC 7591 registration
    GET|PUT|DELETE /oauth/register/<client_id>              RFC 7592 management
"""

import json
import logging
from typing import Any
from urllib.parse import urlsplit

from django import forms
from django.contrib import messages
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.decorators import method_decorator
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from oauth2_provider import views as dot_views
from oauth2_provider.exceptions import OAuthToolkitError
from oauth2_provider.forms import AllowForm
from oauth2_provider.models import get_application_model
from oauth2_provider.oauth2_backends import _add_iss_to_redirect

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.catalogue import profiles
from apps.core.pages import READ, page
from apps.oauth import registration, resource, scopes, selectors, services

logger = logging.getLogger(__name__)

# The consent page (and its error pages) may never be framed: clickjacking would turn a
# visitor's click into a grant. This Content-Security-Policy takes the place of the site's
# (config/settings/security.py) on purpose: it has no form-action, because the answer to the
# consent form redirects to the client's redirect URI (another origin, or an app's own scheme),
# and browsers apply form-action to that redirect.
FRAMING_HEADERS = {
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "frame-ancestors 'none'",
    "Cache-Control": "no-store",
}


def _oauth_error(error: str, description: str, status: int = 400, **headers: str) -> JsonResponse:
    response = JsonResponse({"error": error, "error_description": description}, status=status)
    for name, value in headers.items():
        response[name] = value
    return response


def _holds_nul(request: HttpRequest, kwargs: dict[str, Any]) -> bool:
    """A NUL character in a parameter: no PostgreSQL text can hold it, so looking the value up
    would fail inside the database (a 500) rather than as the bad request it is."""
    values = [value for _name, items in (*request.GET.lists(), *request.POST.lists()) for value in items]
    return any("\x00" in str(value) for value in (*values, *kwargs.values()))


def _nul_refused() -> str:
    return _("A parameter holds a NUL character, which no OAuth value may contain.")


# --- discovery ----------------------------------------------------------------------------------


class ProtectedResourceMetadataView(dot_views.OAuthProtectedResourceMetadataView):
    """RFC 9728, for the one protected resource of a workspace: its MCP endpoint. Served at the
    root well-known URL and at the path form for /api/mcp; other paths are not resources."""

    def get(
        self, request: HttpRequest, *args: Any, resource_path: str | None = None, **kwargs: Any
    ) -> HttpResponse:
        if resource_path is not None and resource_path.strip("/") != resource.MCP_PATH.strip("/"):
            raise Http404
        return super().get(request, *args, **kwargs)

    def get_resource(self, request: HttpRequest) -> str:
        return resource.resource_for(resource.base_url_of(request))

    def get_authorization_servers(self, request: HttpRequest) -> list[str]:
        return [resource.base_url_of(request)]

    def get_scopes_supported(self) -> list[str]:
        return list(scopes.RESOURCE_SCOPES)

    def get_resource_name(self) -> str:
        workspace = getattr(self.request, "tenant", None)
        return getattr(workspace, "brand_name", "") or ""


class AuthorizationServerMetadataView(dot_views.OAuthServerMetadataView):
    """RFC 8414: the toolkit's view, configured (settings.OAUTH2_PROVIDER) to say only what is
    true. The `profile:<key>` scopes are accepted but not listed (apps.oauth.scopes)."""

    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        response = super().get(request, *args, **kwargs)
        body = json.loads(response.content)
        body["scopes_supported"] = [
            scope for scope in body.get("scopes_supported", []) if not scope.startswith(scopes.PROFILE_PREFIX)
        ]
        answer = JsonResponse(body, status=response.status_code)
        for name, value in response.items():
            if name.lower() not in ("content-type", "content-length"):
                answer[name] = value
        return answer


class ConsentForm(AllowForm):
    """The toolkit's consent form, and the tool profile the person pins the connection to."""

    profile = forms.ChoiceField(
        label=_("Tools the app lists"),
        choices=[],
        required=False,
        help_text=_("For apps that take few tools. searchTools and callTool still reach the rest."),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["profile"].choices = [("", _("All the tools your role allows"))] + [
            (profile.key, profile.choice) for profile in profiles.PROFILES
        ]


# --- authorization ------------------------------------------------------------------------------


def _is_member(user: Any) -> bool:
    return bool(user.is_active and getattr(user, "role", None) is not None)


def _redirect_host(uri: str) -> str:
    """What the consent page shows of where the person will be sent back."""
    parts = urlsplit(uri)
    if parts.hostname:
        return parts.netloc.rpartition("@")[2]
    return f"{parts.scheme}:"


class AuthorizationView(dot_views.AuthorizationView):
    """Sign-in (for people of this workspace only), then consent. A malformed request (no PKCE
    S256 challenge, a resource other than the MCP endpoint, unknown scopes) is refused before
    either page; an unknown client or unregistered redirect URI gets an error page, never a
    redirect. Every redirect back to the client carries `iss` (RFC 9207), errors included."""

    template_name = "oauth/authorize.html"
    form_class = ConsentForm

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if _holds_nul(request, kwargs):
            response = self._error_page(_nul_refused(), 400)
        elif request.user.is_authenticated and not _is_member(request.user):
            response = self._error_page(_("Only people of this workspace can connect apps to it."), 403)
        else:
            response = super().dispatch(request, *args, **kwargs)
        for name, value in FRAMING_HEADERS.items():
            response[name] = value
        return response

    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        # The person is always asked: a client cannot skip the consent page with the toolkit's
        # `approval_prompt=auto` (REQUEST_APPROVAL_PROMPT is "force").
        if "approval_prompt" in request.GET:
            query = request.GET.copy()
            query.pop("approval_prompt")
            # A mutable copy in place of the request's (django-stubs types request.GET as immutable).
            request.GET = query  # type: ignore[assignment]
        return super().get(request, *args, **kwargs)

    def handle_no_permission(self) -> HttpResponse:
        # Check the request before asking anyone to sign in for it.
        try:
            self.validate_authorization_request(self.request)
        except OAuthToolkitError as error:
            return self.error_response(error, application=None)
        return super().handle_no_permission()

    def redirect(self, redirect_to: str, application: Any) -> HttpResponse:
        return super().redirect(
            _add_iss_to_redirect(redirect_to, resource.base_url_of(self.request)), application
        )

    def get_initial(self) -> dict[str, Any]:
        initial = super().get_initial()
        # The profile the client asked for (`profile:<key>` in its scope), for the person to keep
        # or change.
        initial["profile"] = scopes.profile_of((initial.get("scope") or "").split())
        return initial

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        application = context.get("application")
        if application is not None:
            context["client_name"] = application.name
            context["redirect_host"] = _redirect_host(context.get("redirect_uri") or "")
            # The profile is the form's choice, not a line of what the app asks for.
            asked = [
                scope for scope in context.get("scopes") or [] if not scope.startswith(scopes.PROFILE_PREFIX)
            ]
            context["scope_words"] = scopes.describe(asked)
        return context

    def form_valid(self, form: Any) -> HttpResponse:
        if not get_application_model().objects.filter(client_id=form.cleaned_data["client_id"]).exists():
            return self._error_page(_("This app is not registered here."), 400)
        form.cleaned_data["scope"] = scopes.with_profile(
            form.cleaned_data["scope"], form.cleaned_data["profile"]
        )
        return super().form_valid(form)

    def form_invalid(self, form: Any) -> HttpResponse:
        return self._error_page(
            _("The answer to this request could not be read; start again from the app."), 400
        )

    def _error_page(self, description: str, status: int) -> HttpResponse:
        return render(
            self.request,
            self.template_name,
            {"error": {"error": "invalid_request", "description": description}},
            status=status,
        )


class TokenView(dot_views.TokenView):
    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if _holds_nul(request, kwargs):
            return _oauth_error("invalid_request", _nul_refused())
        # One transaction: the code or refresh token is locked while it is used, and the
        # revocations a replay causes are kept even though the answer is an error.
        with transaction.atomic():
            return super().post(request, *args, **kwargs)


class RevokeTokenView(dot_views.RevokeTokenView):
    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if _holds_nul(request, kwargs):
            return _oauth_error("invalid_request", _nul_refused())
        return super().post(request, *args, **kwargs)


# --- registration -------------------------------------------------------------------------------


def _completed(response: HttpResponse, data: dict[str, Any]) -> HttpResponse:
    """Adds to the toolkit's RFC 7591 answer what it leaves out: the metadata as registered."""
    if response.status_code not in (200, 201):
        return response
    body = json.loads(response.content)
    application = get_application_model().objects.filter(client_id=body.get("client_id")).first()
    if application is not None:
        body["client_id_issued_at"] = int(application.created.timestamp())
    if "client_secret" in body:
        body["client_secret_expires_at"] = 0
    body["response_types"] = ["code"]
    method = data.get("token_endpoint_auth_method")
    if (
        method in ("client_secret_basic", "client_secret_post")
        and body.get("token_endpoint_auth_method") != "none"
    ):
        body["token_endpoint_auth_method"] = method
    if isinstance(data.get("scope"), str):
        body["scope"] = " ".join(data["scope"].split())
    completed = JsonResponse(body, status=response.status_code)
    completed["Cache-Control"] = "no-store"
    return completed


class RegistrationView(dot_views.DynamicClientRegistrationView):
    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        wait = registration.take_registration_slot(request.META.get("REMOTE_ADDR", ""))
        if wait is not None:
            return _oauth_error(
                "too_many_requests",
                f"Too many registrations from this address; try again in {wait} seconds.",
                status=429,
                **{"Retry-After": str(wait)},
            )
        try:
            data = registration.parse(request.body)
            registration.check_metadata(data)
        except registration.RegistrationRefused as refused:
            return _oauth_error(refused.error, refused.description, refused.status)
        completed = _completed(super().post(request, *args, **kwargs), data)
        if completed.status_code == 201:
            # By its client id (public) alone: the address it came from is personal data, and no
            # log line carries a client's address (docs/deploy.md, "Logs").
            logger.info("OAuth client %s registered", json.loads(completed.content).get("client_id"))
        return completed


# The registration access token authenticates these requests, never a cookie: no CSRF check, as
# the toolkit's view has. Overriding `dispatch` drops the toolkit's exemption (as_view reads it
# from `dispatch`), so it is given again here.
@method_decorator(csrf_exempt, name="dispatch")
class RegistrationManagementView(dot_views.DynamicClientRegistrationManagementView):
    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if _holds_nul(request, kwargs):
            return _oauth_error("invalid_request", _nul_refused())
        return super().dispatch(request, *args, **kwargs)

    def get(self, request: HttpRequest, client_id: str, *args: Any, **kwargs: Any) -> HttpResponse:
        return _completed(super().get(request, client_id, *args, **kwargs), {})

    def put(self, request: HttpRequest, client_id: str, *args: Any, **kwargs: Any) -> HttpResponse:
        auth = self._authenticate_registration_request(request, client_id)
        if isinstance(auth, HttpResponse):
            return auth
        try:
            data = registration.parse(request.body)
            registration.check_metadata(data)
        except registration.RegistrationRefused as refused:
            return _oauth_error(refused.error, refused.description, refused.status)
        return _completed(super().put(request, client_id, *args, **kwargs), data)


# --- the "Connected apps" settings page ----------------------------------------------------------


@page(methods=READ)
def connected_apps(request: AuthenticatedHttpRequest) -> HttpResponse:
    connections = [
        {
            "connection": connection,
            "name": connection.application.name,
            "scope_words": scopes.describe(connection.scopes),
        }
        for connection in selectors.connection_list(user=request.user)
    ]
    return render(request, "oauth/connected_apps.html", {"nav": "connected-apps", "connections": connections})


@page(methods=("POST",))
def connection_revoke(request: AuthenticatedHttpRequest, connection_id: int) -> HttpResponse:
    connection = selectors.connection_get(user=request.user, connection_id=connection_id)
    services.connection_revoke(actor=request.user, connection=connection)
    name = connection.application.name or _("the app")
    messages.success(request, _("%(name)s is disconnected; its access ended now.") % {"name": name})
    return redirect("oauth:connected-apps")

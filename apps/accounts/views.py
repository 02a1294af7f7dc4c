"""Sign-in, sign-out and the settings pages about oneself, people and roles."""

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login as auth_login
from django.contrib.auth import update_session_auth_hash
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.forms import Form
from django.http import HttpRequest, HttpResponse, HttpResponseBase, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse, reverse_lazy
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_http_methods

from apps.accounts import otp, selectors, services, throttle
from apps.accounts.forms import (
    AccessTokenForm,
    ChangePasswordForm,
    LinkRequestForm,
    NewPasswordForm,
    OtpCodeForm,
    PersonForm,
    PersonRoleForm,
    RoleForm,
    SignInForm,
    StepUpForm,
    TimeZoneForm,
)
from apps.accounts.models import User
from apps.accounts.permissions import PeoplePerm, RolesPerm, WorkspacePerm
from apps.accounts.requests import AuthenticatedHttpRequest
from apps.core.actors import can
from apps.core.errors import Forbidden
from apps.core.pages import keep_to_show, no_store, page, take_to_show
from apps.core.workspaces import current_workspace


class SignInView(auth_views.LoginView):
    template_name = "accounts/sign_in.html"
    authentication_form = SignInForm
    redirect_authenticated_user = True

    def form_invalid(self, form: AuthenticationForm) -> HttpResponse:
        """A try the ceiling on guesses refused (apps.accounts.throttle) gets its own answer: the
        way in by an e-mailed link while password sign-in is paused, or how long to wait."""
        refusal = throttle.refusal_of(self.request)
        if refusal is None:
            return super().form_invalid(form)
        email = throttle.username_of(self.request, None) or ""
        if refusal.paused:
            return throttle.paused_page(self.request, refusal, email)
        form.errors.clear()
        form.add_error(
            None,
            _(
                "Many wrong passwords were given for this address lately, so tries are taken one "
                "at a time: try again in %(seconds)s seconds."
            )
            % {"seconds": refusal.retry_after},
        )
        response = self.render_to_response(self.get_context_data(form=form), status=429)
        response["Retry-After"] = str(refusal.retry_after)
        return response


sign_out = auth_views.LogoutView.as_view()


def home(request: HttpRequest) -> HttpResponseBase:
    """The workspace's front door: the sign-in page, or the settings once signed in."""
    if request.user.is_authenticated:
        return redirect("settings:home")
    return SignInView.as_view()(request)


@page()
def profile(request: AuthenticatedHttpRequest) -> HttpResponse:
    workspace_zone = getattr(getattr(request, "tenant", None), "time_zone", "UTC")
    form = TimeZoneForm(
        request.POST or None, initial={"time_zone": request.user.time_zone}, workspace_zone=workspace_zone
    )
    if request.method == "POST" and form.is_valid():
        services.user_set_time_zone(user=request.user, time_zone=form.cleaned_data["time_zone"])
        messages.success(request, _("Time zone saved."))
        return redirect("settings:home")
    factor = otp.factor_if_any(request.user)
    return render(
        request,
        "accounts/profile.html",
        {
            "nav": "profile",
            "form": form,
            "factor": factor,
            "enrolment": otp.enrolment_of(request.user),
            "recovery_left": otp.recovery_codes_left(request.user),
            "code_form": OtpCodeForm(),
        },
    )


# --- the authenticator app of step-up codes (apps.accounts.otp) --------------------------------------


@page(methods=("POST",), back="settings:home")
def otp_start(request: AuthenticatedHttpRequest) -> HttpResponse:
    otp.totp_start(user=request.user)
    return redirect(f"{reverse('settings:home')}#authenticator")


def _code_of(request: AuthenticatedHttpRequest) -> str:
    return str(request.POST.get("code", ""))


def _recovery_codes_page(request: AuthenticatedHttpRequest, codes: list[str], said: str) -> HttpResponse:
    """The recovery codes, shown this once (the page is never cached; only digests are kept)."""
    return no_store(
        render(request, "accounts/recovery_codes.html", {"nav": "profile", "codes": codes, "said": said})
    )


@sensitive_post_parameters("code")
@page(methods=("POST",), back="settings:home")
def otp_confirm(request: AuthenticatedHttpRequest) -> HttpResponse:
    with otp.failures_counted():
        codes = otp.totp_confirm(user=request.user, code=_code_of(request))
    return _recovery_codes_page(
        request, codes, _("Your authenticator app is set up: its codes now count as step-up codes.")
    )


@sensitive_post_parameters("code")
@page(methods=("POST",), back="settings:home")
def otp_recovery_codes(request: AuthenticatedHttpRequest) -> HttpResponse:
    with otp.failures_counted():
        codes = otp.recovery_codes_renew(user=request.user, code=_code_of(request))
    return _recovery_codes_page(request, codes, _("New recovery codes: the earlier ones no longer work."))


@sensitive_post_parameters("code")
@page(methods=("POST",), back="settings:home")
def otp_remove(request: AuthenticatedHttpRequest) -> HttpResponse:
    with otp.failures_counted():
        otp.totp_remove(user=request.user, code=_code_of(request))
    messages.success(request, _("Your authenticator app is removed; step-up codes now come by e-mail."))
    return redirect("settings:home")


@page(WorkspacePerm.MANAGE)
def security(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The workspace's step-up setting: a fresh code before HIGH RISK tools."""
    workspace = current_workspace()
    form = StepUpForm(
        request.POST or None,
        initial={
            "step_up_required": getattr(workspace, "step_up_required", False),
            "step_up_minutes": getattr(workspace, "step_up_minutes", 15),
        },
    )
    if request.method == "POST" and form.is_valid():
        services.workspace_set_step_up(
            actor=request.user,
            required=form.cleaned_data["step_up_required"],
            minutes=form.cleaned_data["step_up_minutes"],
        )
        messages.success(request, _("Security settings saved."))
        return redirect("settings:security")
    return render(request, "accounts/security.html", {"nav": "security", "form": form})


@sensitive_post_parameters("old_password", "new_password1", "new_password2")
@page()
def password_change(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The person's own password: the current one, the new one twice. They stay signed in here;
    their other sessions end."""
    form = ChangePasswordForm(request, request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = services.user_set_password(user=request.user, password=form.cleaned_data["new_password1"])
        update_session_auth_hash(request, user)
        messages.success(request, _("Your password has been changed."))
        return redirect("settings:password")
    return render(request, "accounts/password_change.html", {"nav": "password", "form": form})


# --- password reset by e-mail -------------------------------------------------------------------


def _link_request(request: HttpRequest, template: str, send: Callable[..., None], sent: str) -> HttpResponse:
    """A form that e-mails a link to the address given: counted per client and per address
    (apps.accounts.throttle.mail_request_counted), and answered the same whether or not the
    address is someone's (`send` decides, by a worker)."""
    form = LinkRequestForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        email = form.cleaned_data["email"]
        client_may, address_may = throttle.mail_request_counted(request, email)
        if not client_may:
            form.add_error(None, _("Too many requests from here. Try again in an hour."))
            response = render(request, template, {"form": form}, status=429)
            response["Retry-After"] = str(settings.ATRIUM_ACCOUNTS_PASSWORD_RESET_WINDOW_SECONDS)
            return response
        if address_may:
            send(email=email, origin=request.build_absolute_uri("/"))
        return redirect(sent)
    return render(request, template, {"form": form})


def _sent(request: HttpRequest, template: str) -> HttpResponse:
    return render(request, template, {"minutes": settings.PASSWORD_RESET_TIMEOUT // 60})


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def password_reset(request: HttpRequest) -> HttpResponse:
    """The form behind "Forgot your password?": asks for the e-mail address, and answers the same
    whether or not it is someone's (apps.accounts.services.password_reset_request)."""
    return _link_request(
        request,
        "accounts/password_reset.html",
        services.password_reset_request,
        "accounts:password-reset-sent",
    )


def password_reset_sent(request: HttpRequest) -> HttpResponse:
    return _sent(request, "accounts/password_reset_sent.html")


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """The e-mailed link: Django's view (the token moves from the URL into the session at once,
    so it never leaks through a Referer), for an active person of the host's workspace."""

    template_name = "accounts/password_reset_confirm.html"
    form_class = NewPasswordForm
    success_url = reverse_lazy("accounts:password-reset-done")

    def get_user(self, uidb64: str) -> User | None:
        user = super().get_user(uidb64)
        return user if user is not None and user.is_active else None

    def form_valid(self, form: Form) -> HttpResponse:
        services.user_set_password(user=self.user, password=form.cleaned_data["new_password1"])
        del self.request.session[auth_views.INTERNAL_RESET_SESSION_TOKEN]
        return HttpResponseRedirect(self.get_success_url())


class InvitationView(PasswordResetConfirmView):
    """An invitation's e-mailed link (apps.accounts.services.user_invite): the invited person
    chooses their password and is signed in. It works once (the password it sets is part of its
    token) and for ATRIUM_ACCOUNTS_INVITATION_DAYS."""

    template_name = "accounts/invitation.html"
    token_generator = services.invitations

    def form_valid(self, form: Form) -> HttpResponse:
        user = services.user_set_password(user=self.user, password=form.cleaned_data["new_password1"])
        del self.request.session[auth_views.INTERNAL_RESET_SESSION_TOKEN]
        auth_login(self.request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(self.request, _("Welcome: your password is set and you are signed in."))
        return redirect(settings.LOGIN_REDIRECT_URL)


def password_reset_done(request: HttpRequest) -> HttpResponse:
    return render(request, "accounts/password_reset_done.html", {"sign_in_url": reverse("accounts:sign-in")})


# --- signing in with an e-mailed link, while password sign-in is paused ---------------------------


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def sign_in_link(request: HttpRequest) -> HttpResponse:
    """ "E-mail me a sign-in link": sent when signing in with the password is paused for the address
    (apps.accounts.services.sign_in_link_request); the same answer otherwise."""
    return _link_request(
        request, "accounts/sign_in_link.html", services.sign_in_link_request, "accounts:sign-in-link-sent"
    )


def sign_in_link_sent(request: HttpRequest) -> HttpResponse:
    return _sent(request, "accounts/sign_in_link_sent.html")


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def sign_in_link_use(request: HttpRequest, uidb64: str, token: str) -> HttpResponse:
    """The e-mailed link. Opening it shows a button; the POST of that button signs the person in.
    A mail scanner that fetches every link so spends nothing, and the page, with no resource from
    elsewhere and the same-origin Referrer-Policy, sends the token to no other site."""
    user = services.sign_in_link_person(uidb64=uidb64, token=token)
    if user is not None and request.method == "POST":
        auth_login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect(settings.LOGIN_REDIRECT_URL)
    response = render(
        request, "accounts/sign_in_link_use.html", {"person": user}, status=200 if user else 404
    )
    return no_store(response)


@page()
def tokens(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = AccessTokenForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        token, raw = services.access_token_create(user=request.user, name=form.cleaned_data["name"])
        # Shown by the page the form redirects to, once (a reload makes no second token).
        keep_to_show(request, "tokens", {"token_id": token.pk, "raw": raw})
        return redirect("settings:tokens")
    shown = take_to_show(request, "tokens")
    created = None
    if shown is not None:
        token = selectors.access_token_get(user=request.user, token_id=shown["token_id"])
        created = {"token": token, "raw": shown["raw"]}
    response = render(
        request,
        "accounts/tokens.html",
        {
            "nav": "tokens",
            "form": form,
            "created": created,
            "tokens": selectors.access_token_list(user=request.user),
        },
    )
    return no_store(response) if created else response


@page(methods=("POST",), back="settings:tokens")
def token_revoke(request: AuthenticatedHttpRequest, token_id: int) -> HttpResponse:
    token = selectors.access_token_get(user=request.user, token_id=token_id)
    services.access_token_revoke(actor=request.user, token=token)
    messages.success(request, _("Token “%(name)s” revoked.") % {"name": token.name})
    return redirect("settings:tokens")


def _may_manage(request: AuthenticatedHttpRequest, perms: type[PeoplePerm] | type[RolesPerm]) -> bool:
    """Whether the person may change what the page lists; Forbidden if they may not even see it."""
    if not can(request.user, perms.VIEW):
        raise Forbidden()
    return can(request.user, perms.MANAGE)


def _list_page(
    request: AuthenticatedHttpRequest,
    nav: str,
    *,
    may_manage: bool,
    form: Form,
    create: Callable[..., Any],
    created: Callable[[Any], str],
    context: Callable[[], dict[str, Any]],
) -> HttpResponse:
    """A settings list (`accounts/<nav>.html`) with its creation form: a valid post is handed to
    the service `create`, and `created` says what it made."""
    if request.method == "POST":
        if not may_manage:
            raise Forbidden()
        if form.is_valid():
            record = create(actor=request.user, **form.cleaned_data)
            messages.success(request, created(record))
            return redirect(f"settings:{nav}")
    return render(
        request, f"accounts/{nav}.html", {"nav": nav, "form": form if may_manage else None, **context()}
    )


@page()
def people(request: AuthenticatedHttpRequest) -> HttpResponse:
    may_manage = _may_manage(request, PeoplePerm)
    roles = selectors.assignable_roles(actor=request.user) if may_manage else []
    return _list_page(
        request,
        "people",
        may_manage=may_manage,
        form=PersonForm(request.POST or None, roles=roles),
        create=lambda **given: services.user_invite(origin=request.build_absolute_uri("/"), **given),
        created=lambda person: (
            (_("%(email)s added.") if person.has_usable_password() else _("%(email)s invited by e-mail."))
            % {"email": person.email}
        ),
        context=lambda: {
            "people": selectors.user_list(actor=request.user),
            "roles": roles,
            "may_manage": may_manage,
        },
    )


@page(methods=("POST",), back="settings:people")
def person_update(request: AuthenticatedHttpRequest, user_id: int) -> HttpResponse:
    person = selectors.user_get(actor=request.user, user_id=user_id)
    action = request.POST.get("action")
    if action == "role":
        form = PersonRoleForm(request.POST, roles=selectors.assignable_roles(actor=request.user))
        if not form.is_valid():
            raise Forbidden()
        services.user_change_role(actor=request.user, user=person, role=form.cleaned_data["role"])
        messages.success(request, _("Role of %(email)s changed.") % {"email": person.email})
    elif action in {"deactivate", "activate"}:
        services.user_set_active(actor=request.user, user=person, active=action == "activate")
        messages.success(request, _("%(email)s updated.") % {"email": person.email})
    return redirect("settings:people")


@page()
def roles(request: AuthenticatedHttpRequest) -> HttpResponse:
    return _list_page(
        request,
        "roles",
        may_manage=_may_manage(request, RolesPerm),
        form=RoleForm(request.POST or None),
        create=services.role_create,
        created=lambda role: _("Role “%(name)s” created.") % {"name": role.name},
        context=lambda: {"roles": selectors.role_list(actor=request.user)},
    )


@page()
def role_edit(request: AuthenticatedHttpRequest, role_id: int) -> HttpResponse:
    role = selectors.role_get(actor=request.user, role_id=role_id)
    if not can(request.user, RolesPerm.MANAGE) or role.is_system:
        raise Forbidden()
    if request.method == "POST" and request.POST.get("action") == "delete":
        services.role_delete(actor=request.user, role=role)
        messages.success(request, _("Role “%(name)s” deleted.") % {"name": role.name})
        return redirect("settings:roles")
    form = RoleForm(
        request.POST or None,
        initial={
            "name": role.name,
            "description": role.description,
            "permissions": role.permissions,
        },
    )
    if request.method == "POST" and form.is_valid():
        services.role_update(actor=request.user, role=role, **form.cleaned_data)
        messages.success(request, _("Role “%(name)s” saved.") % {"name": role.name})
        return redirect("settings:roles")
    return render(request, "accounts/role_edit.html", {"nav": "roles", "role": role, "form": form})

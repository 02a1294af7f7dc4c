from typing import Any, cast

from django import forms
from django.contrib.auth import authenticate
from django.contrib.auth.forms import AuthenticationForm, PasswordChangeForm, SetPasswordForm
from django.contrib.auth.password_validation import password_validators_help_texts
from django.core.exceptions import ValidationError
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from apps.accounts import throttle
from apps.accounts.models import Role
from apps.core import permissions, times


class SignInForm(AuthenticationForm):
    username = forms.EmailField(
        label=_("Email"), widget=forms.EmailInput(attrs={"autofocus": True, "autocomplete": "email"})
    )
    password = forms.CharField(
        label=_("Password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )

    # One message whether the address is unknown or the password wrong: the form must not
    # tell a stranger who has an account here.
    error_messages = {
        "invalid_login": _("The email or password is not right."),
        "inactive": _("The email or password is not right."),
    }


class AccessTokenForm(forms.Form):
    name = forms.CharField(
        label=_("Name"),
        max_length=100,
        help_text=_("What will use it, for example “CI script” or “Claude Desktop”."),
    )


class PersonForm(forms.Form):
    email = forms.EmailField(label=_("Email"))
    full_name = forms.CharField(label=_("Full name"), max_length=150, required=False)
    role = forms.ModelChoiceField(label=_("Role"), queryset=Role.objects.none())
    password = forms.CharField(
        label=_("Initial password"),
        widget=forms.PasswordInput,
        strip=False,
        required=False,
        help_text=_(
            "Leave it empty to e-mail them an invitation to choose their own; or share it with them "
            "safely, and they can change it later."
        ),
    )

    def __init__(self, *args: Any, roles: list[Role], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        role_field = cast(forms.ModelChoiceField, self.fields["role"])
        role_field.queryset = Role.objects.filter(pk__in=[role.pk for role in roles])


class PersonRoleForm(forms.Form):
    role = forms.ModelChoiceField(label=_("Role"), queryset=Role.objects.none())

    def __init__(self, *args: Any, roles: list[Role], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        role_field = cast(forms.ModelChoiceField, self.fields["role"])
        role_field.queryset = Role.objects.filter(pk__in=[role.pk for role in roles])


def permission_choices() -> list[tuple[Any, list[tuple[str, Any]]]]:
    """Permissions grouped by area, for a checkbox list."""
    groups: dict[str, list[tuple[str, Any]]] = {}
    for member in permissions.all_permissions():
        groups.setdefault(member.area, []).append((member.value, f"{member.value} — {member.label}"))
    return [(permissions.area_title(area), choices) for area, choices in sorted(groups.items())]


class RoleForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=100)
    description = forms.CharField(label=_("Description"), max_length=300, required=False)
    permissions = forms.MultipleChoiceField(
        label=_("Permissions"), required=False, widget=forms.CheckboxSelectMultiple
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.MultipleChoiceField, self.fields["permissions"]).choices = permission_choices()


# --- one's own password and time zone -------------------------------------------------------------


def _plain_password_help(form: forms.Form) -> None:
    """The validators' rules as one sentence under the field (Django's is a bulleted list)."""
    form.fields["new_password1"].help_text = " ".join(password_validators_help_texts())
    form.fields["new_password2"].label = _("New password again")


class ChangePasswordForm(PasswordChangeForm):
    """The current password, then the new one twice, checked by AUTH_PASSWORD_VALIDATORS.

    The current password is checked by `authenticate`, as at sign-in, so that wrong guesses count
    towards the same lockout (django-axes: this address from this client): a session left open is
    not a way to guess the password without limit."""

    def __init__(self, request: HttpRequest, *args: Any, **kwargs: Any) -> None:
        self.request = request
        super().__init__(request.user, *args, **kwargs)
        self.fields["old_password"].label = _("Current password")
        _plain_password_help(self)

    def clean_old_password(self) -> str:
        old_password: str = self.cleaned_data["old_password"]
        if authenticate(self.request, username=self.user.email, password=old_password) is None:
            if throttle.refusal_of(self.request) is not None:
                # Not checked: too many wrong passwords for this address lately (from anywhere).
                raise ValidationError(
                    _(
                        "Passwords for this address are not being checked for now: too many wrong "
                        "ones were given lately. Try again later, or set a new password from the "
                        "link “Forgot your password?” e-mails."
                    ),
                    code="password_not_checked",
                )
            raise ValidationError(self.error_messages["password_incorrect"], code="password_incorrect")
        return old_password


class NewPasswordForm(SetPasswordForm):
    """The new password twice (from a reset link)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _plain_password_help(self)


class LinkRequestForm(forms.Form):
    """The address a link is e-mailed to ("Forgot your password?", a sign-in link)."""

    email = forms.EmailField(
        label=_("Email"),
        max_length=254,
        widget=forms.EmailInput(attrs={"autofocus": True, "autocomplete": "email"}),
    )


class TimeZoneForm(forms.Form):
    time_zone = forms.ChoiceField(
        label=_("Time zone"),
        required=False,
        help_text=_("The pages show every time in this zone."),
        error_messages={"invalid_choice": _("“%(value)s” is not a time zone name such as Europe/Paris.")},
    )

    def __init__(self, *args: Any, workspace_zone: str = "UTC", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["time_zone"]).choices = [
            ("", _("The workspace's (%(zone)s)") % {"zone": workspace_zone})
        ] + [(name, name) for name in times.zone_choices()]


class OtpCodeForm(forms.Form):
    """One code of the person's authenticator app (apps.accounts.otp checks it)."""

    code = forms.CharField(
        label=_("Code from the app"),
        max_length=20,
        widget=forms.TextInput(attrs={"autocomplete": "one-time-code", "inputmode": "numeric"}),
    )


class StepUpForm(forms.Form):
    """The workspace's step-up setting (apps.accounts.services.workspace_set_step_up)."""

    step_up_required = forms.BooleanField(
        label=_("Require a fresh step-up code before HIGH RISK tools"),
        required=False,
        help_text=_(
            "Agents then ask the person for a code of their authenticator app, or one e-mailed to them, "
            "before sending, inviting, changing roles and the like. The message gateway's agent cannot "
            "take codes, so it cannot run HIGH RISK tools at all."
        ),
    )
    step_up_minutes = forms.IntegerField(
        label=_("A code stays good for (minutes)"), min_value=1, max_value=240, initial=15
    )

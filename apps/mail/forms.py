from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _

from apps.mail.models import Mailbox


class MailboxForm(forms.Form):
    """Connects a mailbox. The password is typed here, on the page, and kept encrypted: agents
    never pass a password through a tool."""

    name = forms.CharField(label=_("Name"), max_length=100)
    address = forms.EmailField(label=_("Address"), max_length=254)
    owner = forms.EmailField(label=_("Owner (a person of the workspace)"), max_length=254)
    shared = forms.BooleanField(label=_("Shared (its members use it too)"), required=False)
    members = forms.CharField(
        label=_("Members of a shared mailbox"), required=False, max_length=5000,
        help_text=_("E-mail addresses of people of the workspace, comma-separated"),
    )  # fmt: skip
    server = forms.ChoiceField(
        label=_("Server"), choices=Mailbox.Server.choices, initial=Mailbox.Server.LOCAL
    )
    imap_host = forms.CharField(label=_("IMAP host"), required=False, max_length=255)
    imap_port = forms.IntegerField(label=_("IMAP port"), min_value=1, max_value=65535, initial=993)
    imap_security = forms.ChoiceField(label=_("IMAP security"), choices=Mailbox.Security.choices)
    smtp_host = forms.CharField(label=_("SMTP host"), required=False, max_length=255)
    smtp_port = forms.IntegerField(label=_("SMTP port"), min_value=1, max_value=65535, initial=587)
    smtp_security = forms.ChoiceField(
        label=_("SMTP security"), choices=Mailbox.Security.choices, initial=Mailbox.Security.STARTTLS
    )
    username = forms.CharField(label=_("User name (default: the address)"), required=False, max_length=254)
    password = forms.CharField(
        label=_("Password"), required=False, max_length=500, widget=forms.PasswordInput(render_value=False)
    )

    def people(self, field: str) -> list[Any]:
        users = get_user_model()._default_manager
        found = []
        for email in [
            value.strip() for value in self.cleaned_data.get(field, "").split(",") if value.strip()
        ]:
            user = users.filter(email__iexact=email, is_active=True).first()
            if user is None:
                self.add_error(field, _("%(email)s is not a person of this workspace.") % {"email": email})
            else:
                found.append(user)
        return found


class PasswordForm(forms.Form):
    password = forms.CharField(
        label=_("New password"), max_length=500, widget=forms.PasswordInput(render_value=False)
    )

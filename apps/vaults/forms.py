from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from apps.accounts.models import Role
from apps.vaults.models import VaultItem


class ItemForm(forms.Form):
    """A vault item: its value is written here and never shown again (left empty on an edit, it
    stays as it was)."""

    name = forms.CharField(label=_("Name"), max_length=120)
    kind = forms.ChoiceField(label=_("Kind"), choices=VaultItem.Kind.choices)
    value = forms.CharField(
        label=_("Secret"),
        max_length=10_000,
        required=False,
        # A secret is kept as typed: a pass phrase's spaces are part of it.
        strip=False,
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "new-password"}),
        help_text=_("Never shown again. On an edit, leave it empty to keep the secret."),
    )
    username = forms.CharField(label=_("User name (logins)"), max_length=200, required=False)
    description = forms.CharField(label=_("Description"), max_length=500, required=False)
    allowed_hosts = forms.CharField(
        label=_("Allowed hosts"),
        max_length=2000,
        required=False,
        help_text=_("Hosts the secret may be sent to, separated by spaces; empty: any configured."),
    )
    visibility = forms.ChoiceField(
        label=_("Who sees it"),
        choices=[("private", _("Me, and the roles below")), ("workspace", _("Everyone"))],
    )
    shared_roles = forms.ModelMultipleChoiceField(
        label=_("Shared with roles"), queryset=Role.objects.none(), required=False
    )
    expires_at = forms.DateTimeField(label=_("Expires"), required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["shared_roles"].queryset = Role.objects.order_by("name")  # type: ignore[attr-defined]

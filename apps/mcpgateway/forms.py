from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from apps.accounts.models import Role
from apps.core.actors import Actor
from apps.vaults import api as vaults


class ServerForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=40, help_text=_("Prefixes its tools: name__tool"))
    title = forms.CharField(label=_("Title"), max_length=120, required=False)
    url = forms.CharField(label=_("URL (Streamable HTTP)"), max_length=2000)
    description = forms.CharField(label=_("Description"), max_length=500, required=False)
    credential = forms.ModelChoiceField(
        label=_("Credential from the vault"), queryset=vaults.VaultItem.objects.none(), required=False
    )
    auth_header = forms.CharField(label=_("Header"), max_length=60, initial="Authorization")
    auth_scheme = forms.CharField(label=_("Scheme"), max_length=30, initial="Bearer", required=False)
    visibility = forms.ChoiceField(
        label=_("Who may use it"),
        choices=[("workspace", _("Everyone with the area")), ("private", _("Only the roles below"))],
    )
    roles = forms.ModelMultipleChoiceField(label=_("Roles"), queryset=Role.objects.none(), required=False)
    trusted = forms.BooleanField(
        label=_("Trust its annotations (read-only tools called without a confirmation)"), required=False
    )
    enabled = forms.BooleanField(label=_("On"), required=False, initial=True)
    allowed_tools = forms.CharField(label=_("Only these tools"), max_length=5000, required=False)
    denied_tools = forms.CharField(label=_("Never these tools"), max_length=5000, required=False)

    def __init__(self, *args: Any, actor: Actor, hidden_credential: bool = False, **kwargs: Any) -> None:
        """`hidden_credential`: the server has a credential `actor` does not see (not among the
        choices): kept unless they choose another, never named to them."""
        super().__init__(*args, **kwargs)
        self.fields["credential"].queryset = vaults.items_for(actor)  # type: ignore[attr-defined]
        self.fields["roles"].queryset = Role.objects.order_by("name")  # type: ignore[attr-defined]
        if hidden_credential:
            self.fields["keep_credential"] = forms.BooleanField(
                label=_("Keep its credential (chosen by someone whose vault items you do not see)"),
                required=False,
                initial=True,
            )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        # Kept: the credential is not among what the form changes (unless another was chosen).
        if cleaned.pop("keep_credential", False) and cleaned.get("credential") is None:
            cleaned.pop("credential", None)
        return cleaned

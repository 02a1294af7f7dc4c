from decimal import Decimal
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from apps.apikeys import clients
from apps.apikeys.models import MAX_BUDGET_USD_CENTS, BudgetPeriod
from apps.catalogue import profiles

OVERLAP_CHOICES = [
    (0, _("none: the old secret stops at once")),
    (1, _("1 hour")),
    (24, _("24 hours")),
    (72, _("3 days")),
    (168, _("7 days")),
]


# The Agent connection page's choice of the profile that suits the chosen client.
SUITED = "suited"


def profile_field(*, suited: bool = False) -> forms.ChoiceField:
    """The tool profile a key is pinned to: its MCP requests list only that profile's tools.
    With `suited`, a first choice (the initial one) leaves it to the client quick-setup is for."""
    first = [(SUITED, _("The one that suits the client"))] if suited else []
    return forms.ChoiceField(
        label=_("Tool profile"),
        choices=[*first, ("", _("All the tools you may use"))]
        + [(profile.key, profile.choice) for profile in profiles.PROFILES],
        initial=SUITED if suited else "",
        required=False,
        help_text=_("For clients that take few tools; searchTools and callTool still reach the rest."),
    )


class ApiKeyForm(forms.Form):
    label = forms.CharField(
        label=_("Label"),
        max_length=100,
        required=False,
        help_text=_("What will use it, for example “Nightly report” or “Support inbox”."),
    )
    response_url = forms.CharField(
        label=_("Webhook URL"),
        max_length=2000,
        required=False,
        help_text=_("Where replies are sent (https). Leave empty to poll for replies instead."),
        widget=forms.TextInput(attrs={"placeholder": "https://", "inputmode": "url"}),
    )
    budget_usd = forms.DecimalField(
        label=_("Budget (USD)"),
        required=False,
        min_value=Decimal(0),
        max_value=Decimal(MAX_BUDGET_USD_CENTS) / 100,
        decimal_places=2,
        help_text=_(
            "Most the gateway's AI may spend with this key per period. Empty: no limit; 0 pauses it."
        ),
        error_messages={
            "max_value": _("The budget is at most $%(most)s.")
            % {"most": f"{MAX_BUDGET_USD_CENTS / 100:,.2f}"},
            "min_value": _("The budget cannot be negative."),
            "max_decimal_places": _("The budget is in dollars and cents: at most two decimal places."),
        },
        widget=forms.TextInput(attrs={"inputmode": "decimal", "placeholder": "no limit"}),
    )
    budget_period = forms.ChoiceField(
        label=_("Budget period"),
        choices=[
            (BudgetPeriod.DAILY, _("per day (resets at midnight)")),
            (BudgetPeriod.MONTHLY, _("per month (resets on the 1st)")),
            (BudgetPeriod.TOTAL, _("in total (never resets)")),
        ],
        initial=BudgetPeriod.MONTHLY,
    )
    profile = profile_field()

    def service_fields(self) -> dict[str, Any]:
        data = self.cleaned_data
        budget = data.get("budget_usd")
        return {
            "label": data.get("label", ""),
            "response_url": data.get("response_url", ""),
            "budget_usd_cents": None if budget is None else int((budget * 100).to_integral_value()),
            "budget_period": data["budget_period"],
            "profile": data.get("profile", ""),
        }


class RenameKeyForm(forms.Form):
    """The small form on a key's page that changes only its label (the service checks it as it
    checks a new key's)."""

    prefix = "rename"
    label = forms.CharField(
        label=_("Label"),
        max_length=100,
        error_messages={
            "required": _("Give the key a label."),
            "max_length": _("Labels are at most %(limit_value)d characters."),
        },
    )


class RollSecretForm(forms.Form):
    overlap_hours = forms.TypedChoiceField(
        label=_("Keep the old secret valid for"), choices=OVERLAP_CHOICES, coerce=int, initial=24
    )


class AgentConnectionForm(forms.Form):
    client = forms.ChoiceField(
        label=_("Client"),
        # In CLIENTS' order: the named clients first, the kinds for any other client after.
        choices=[(kind.name, kind.title) for kind in clients.CLIENTS.values()],
        initial="claude-desktop",
    )
    profile = profile_field(suited=True)

    def chosen_profile(self) -> str | None:
        """The profile asked for: None for the one that suits the client, "" for none."""
        profile = self.cleaned_data.get("profile", "")
        return None if profile == SUITED else profile

"""The forms of the Marketing settings page."""

from django import forms
from django.utils.translation import gettext_lazy as _

HOURS = [(hour, f"{hour:02d}:00") for hour in range(24)]


class SettingsForm(forms.Form):
    postal_address = forms.CharField(
        label=_("Postal address"),
        widget=forms.Textarea(attrs={"rows": 3}),
        max_length=500,
        required=False,
        help_text=_("In every marketing e-mail's footer; no campaign launches without it"),
    )
    double_opt_in = forms.BooleanField(
        label=_("Double opt-in"),
        required=False,
        help_text=_("Consent recorded for a contact waits for their click on a confirmation e-mail"),
    )
    frequency_cap = forms.IntegerField(
        label=_("At most this many marketing e-mails"), min_value=1, max_value=100
    )
    frequency_days = forms.IntegerField(label=_("per this many days"), min_value=1, max_value=90)
    quiet_start = forms.TypedChoiceField(label=_("Quiet hours from"), choices=HOURS, coerce=int)
    quiet_end = forms.TypedChoiceField(label=_("until"), choices=HOURS, coerce=int)
    time_zone = forms.CharField(
        label=_("Time zone"),
        max_length=64,
        help_text=_("For contacts without a timeZone of their own (an IANA name such as Europe/Berlin)"),
    )


class ConsentForm(forms.Form):
    email = forms.EmailField(label=_("Contact's e-mail address"))
    status = forms.ChoiceField(
        label=_("Consent"), choices=[("granted", _("granted")), ("withdrawn", _("withdrawn"))]
    )
    source = forms.CharField(label=_("Where it was given"), max_length=100, required=False)

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


class BrandKitForm(forms.Form):
    colours = forms.CharField(
        label=_("Colours"),
        max_length=100,
        required=False,
        help_text=_("Up to 8, comma-separated, primary first: #1F4E79, #F2A900, #FFFFFF, #222222"),
    )
    heading_font = forms.CharField(label=_("Heading font"), max_length=80, required=False)
    body_font = forms.CharField(label=_("Body font"), max_length=80, required=False)
    logo_file_ids = forms.CharField(
        label=_("Logos"),
        max_length=100,
        required=False,
        help_text=_("Files ids of image files, comma-separated, the main logo first"),
    )
    voice = forms.CharField(
        label=_("Voice"),
        widget=forms.Textarea(attrs={"rows": 2}),
        max_length=1000,
        required=False,
        help_text=_("How the brand speaks, for the copy a model writes"),
    )

    def clean_logo_file_ids(self) -> list[int]:
        given = [part.strip() for part in self.cleaned_data["logo_file_ids"].split(",") if part.strip()]
        if not all(part.isdigit() for part in given):
            raise forms.ValidationError(_("Files ids are numbers, comma-separated"))
        return [int(part) for part in given]

    def clean_colours(self) -> list[str]:
        return [part.strip() for part in self.cleaned_data["colours"].split(",") if part.strip()]

from django import forms
from django.utils.translation import gettext_lazy as _

from apps.social.models import Network


class ConnectForm(forms.Form):
    network = forms.ChoiceField(label=_("Network"), choices=Network.choices)
    server = forms.CharField(
        label=_("Server"),
        required=False,
        max_length=300,
        help_text=_(
            "Mastodon: your instance, https://mastodon.social. Bluesky: leave empty for bsky.social."
        ),
    )
    handle = forms.CharField(
        label=_("Handle"), required=False, max_length=300, help_text=_("Bluesky: name.bsky.social")
    )
    secret = forms.CharField(
        label=_("Access token or app password"),
        max_length=2000,
        widget=forms.PasswordInput(render_value=False),
        help_text=_(
            "Mastodon: an access token with the write:statuses scope (Preferences → Development). "
            "Bluesky: an app password (Settings → App passwords). Kept encrypted, never shown again."
        ),
    )

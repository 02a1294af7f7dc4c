from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from apps.mail import api as mail


class SupportMailboxForm(forms.Form):
    """Which connected mailbox takes the customers' mail (its new mail becomes tickets)."""

    mailbox = forms.ModelChoiceField(
        label=_("Support mailbox"),
        queryset=mail.Mailbox.objects.none(),
        required=False,
        empty_label=_("none: tickets are not e-mailed"),
        help_text=_("Mail arriving from now on opens tickets; replies leave from its address."),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["mailbox"]
        assert isinstance(field, forms.ModelChoiceField)
        field.queryset = mail.live_mailboxes().order_by("name", "id")

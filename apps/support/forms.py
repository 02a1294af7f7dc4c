from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from apps.core.actors import Actor
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

    def __init__(self, *args: Any, actor: Actor, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["mailbox"]
        assert isinstance(field, forms.ModelChoiceField)
        # The mailboxes the person manages: every one for the mail area's administrators.
        field.queryset = mail.mailboxes(actor, "change").order_by("name", "id")

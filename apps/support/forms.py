from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from apps.core.actors import Actor
from apps.mail import api as mail


class MailboxChoice(forms.ModelChoiceField):
    def label_from_instance(self, obj: Any) -> str:
        # By address too: two shared mailboxes may carry the same name.
        return f"{obj.name} <{obj.address}>"


class SupportMailboxForm(forms.Form):
    """Which shared mailbox takes the customers' mail (its new mail becomes tickets)."""

    mailbox = MailboxChoice(
        label=_("Support mailbox"),
        queryset=mail.Mailbox.objects.none(),
        required=False,
        empty_label=_("none: tickets are not e-mailed"),
        help_text=_(
            "A shared mailbox (never a person's own): mail arriving from now on opens tickets, which "
            "everyone in support reads; replies leave from its address."
        ),
    )

    def __init__(self, *args: Any, actor: Actor, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["mailbox"]
        assert isinstance(field, forms.ModelChoiceField)
        # The shared mailboxes the person manages (every one for the mail area's administrators).
        field.queryset = mail.shared_mailboxes(actor).order_by("name", "id")

from decimal import Decimal
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from apps.core.actors import Actor
from apps.mail import api as mail
from apps.support import placeholders
from apps.support.models import Priority, SlaPolicy, Ticket
from apps.support.services.sla import SETTABLE


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


class CannedReplyForm(forms.Form):
    """A canned reply's words and what applying it does; `shared` only for those who may share."""

    title = forms.CharField(label=_("Title"), max_length=120)
    body = forms.CharField(
        label=_("Body"),
        max_length=20_000,
        widget=forms.Textarea(attrs={"rows": 6}),
        help_text=_("Placeholders filled in for the ticket: {names}."),
    )
    shared = forms.BooleanField(
        label=_("Shared with everyone in support"), required=False, help_text=_("Otherwise yours alone.")
    )
    set_status = forms.ChoiceField(label=_("Then set the status to"), required=False)
    set_priority = forms.ChoiceField(label=_("Then set the priority to"), required=False)
    add_tags = forms.CharField(
        label=_("Then add the tags"), required=False, help_text=_("Separated by commas.")
    )

    def __init__(self, *args: Any, may_share: bool, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        body = self.fields["body"]
        body.help_text = str(body.help_text).format(names=placeholders.LISTED)
        statuses = dict(Ticket.Status.choices)
        status = self.fields["set_status"]
        assert isinstance(status, forms.ChoiceField)
        status.choices = [("", _("as a reply sets it")), *((s, statuses[s]) for s in SETTABLE)]
        priority = self.fields["set_priority"]
        assert isinstance(priority, forms.ChoiceField)
        priority.choices = [("", _("unchanged")), *Priority.choices]
        if not may_share:
            del self.fields["shared"]

    def service_fields(self) -> dict[str, Any]:
        data = self.cleaned_data
        fields = {
            "title": data["title"],
            "body": data["body"],
            "set_status": data["set_status"],
            "set_priority": data["set_priority"],
            "add_tags": [tag for tag in data["add_tags"].split(",") if tag.strip()],
        }
        if "shared" in self.fields:
            fields["visibility"] = "workspace" if data["shared"] else "private"
        return fields


class ReplyForm(forms.Form):
    """A reply to the requester (e-mailed) or an internal note; `canned`: the canned reply it was
    filled from, whose actions are applied with it."""

    text = forms.CharField(label=_("Reply"), max_length=20_000, widget=forms.Textarea(attrs={"rows": 8}))
    internal = forms.BooleanField(label=_("Internal note (never e-mailed)"), required=False)
    status = forms.ChoiceField(
        label=_("Then the ticket is"),
        required=False,
        help_text=_(
            "Left as it is: a reply makes it pending, a note leaves it; a canned reply does what it says."
        ),
    )
    canned = forms.IntegerField(widget=forms.HiddenInput, required=False, min_value=1)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        statuses = dict(Ticket.Status.choices)
        status = self.fields["status"]
        assert isinstance(status, forms.ChoiceField)
        status.choices = [("", _("as the answer leaves it")), *((s, statuses[s]) for s in SETTABLE)]


class PersonChoice(forms.ModelChoiceField):
    def label_from_instance(self, obj: Any) -> str:
        # By address too: two people may carry the same name.
        return obj.email if obj.get_full_name() == obj.email else f"{obj.get_full_name()} <{obj.email}>"


class AssigneeForm(forms.Form):
    """Who works the ticket: one of the people whose role may change tickets, or nobody."""

    assignee = PersonChoice(label=_("Assignee"), queryset=None, required=False, empty_label=_("nobody"))

    def __init__(self, *args: Any, workers: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["assignee"]
        assert isinstance(field, forms.ModelChoiceField)
        field.queryset = workers


WEEKDAYS = [
    (1, _("Monday")),
    (2, _("Tuesday")),
    (3, _("Wednesday")),
    (4, _("Thursday")),
    (5, _("Friday")),
    (6, _("Saturday")),
    (7, _("Sunday")),
]


class SlaPolicyForm(forms.Form):
    """A priority's targets and the business hours they are counted in (services.policies checks
    them together: a resolution after the first reply, a day that ends after it starts)."""

    first_reply_hours = forms.DecimalField(
        label=_("First reply within (business hours)"),
        min_value=Decimal("0.01"),
        max_value=Decimal("9999.99"),
        decimal_places=2,
    )
    resolution_hours = forms.DecimalField(
        label=_("Resolved within (business hours)"),
        min_value=Decimal("0.01"),
        max_value=Decimal("9999.99"),
        decimal_places=2,
    )
    workdays = forms.TypedMultipleChoiceField(
        label=_("Working days"), choices=WEEKDAYS, coerce=int, widget=forms.CheckboxSelectMultiple
    )
    day_starts = forms.TimeField(
        label=_("The working day starts"), widget=forms.TimeInput(attrs={"type": "time"})
    )
    day_ends = forms.TimeField(
        label=_("The working day ends"), widget=forms.TimeInput(attrs={"type": "time"})
    )
    time_zone = forms.CharField(
        label=_("Time zone"), max_length=64, help_text=_("An IANA name, such as Europe/London.")
    )
    holidays_country = forms.CharField(
        label=_("Public holidays of"),
        max_length=10,
        required=False,
        help_text=_(
            "A country's two-letter code, such as FR, or a region's, such as GB-ENG, DE-BY or US-CA: its "
            "public holidays are not worked. Empty: none."
        ),
    )

    @classmethod
    def of(cls, policy: SlaPolicy | None) -> "SlaPolicyForm":
        if policy is None:
            initial: dict[str, Any] = {
                "workdays": [1, 2, 3, 4, 5],
                "day_starts": "09:00",
                "day_ends": "17:00",
            }
            initial["time_zone"] = "UTC"
        else:
            initial = {
                name: getattr(policy, name)
                for name in (
                    "first_reply_hours",
                    "resolution_hours",
                    "workdays",
                    "day_starts",
                    "day_ends",
                    "time_zone",
                    "holidays_country",
                )
            }
        return cls(initial=initial)

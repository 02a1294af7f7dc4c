"""Forms of the Accounting page: a bank account added, the lock date moved and duties separated by an
accounting admin."""

from django import forms
from django.utils.translation import gettext_lazy as _


class BankAccountForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=120)
    currency = forms.CharField(label=_("Currency (ISO 4217)"), min_length=3, max_length=3, initial="GBP")
    iban = forms.CharField(label=_("IBAN"), max_length=50, required=False, help_text=_("Checked when given"))


class LockDateForm(forms.Form):
    lock_date = forms.DateField(
        label=_("Locked up to"),
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}),
        help_text=_("Nothing posts on or before it; empty reopens every period"),
    )


class DutiesForm(forms.Form):
    separate_duties = forms.BooleanField(
        label=_("The person who created a document may not approve it"),
        required=False,
        help_text=_(
            "Invoices, credit notes and bills: another person approves or posts them, admins included"
        ),
    )

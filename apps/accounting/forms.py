"""Forms of the Accounting page: a bank account added by an accounting admin."""

from django import forms
from django.utils.translation import gettext_lazy as _


class BankAccountForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=120)
    currency = forms.CharField(label=_("Currency (ISO 4217)"), min_length=3, max_length=3, initial="GBP")
    iban = forms.CharField(label=_("IBAN"), max_length=50, required=False, help_text=_("Checked when given"))

"""The page where a person enters what a tool asked for through URL-mode elicitation
(apps.mcp.secure_input): signed in, as the person the link was made for, on the workspace's own
host. The value goes from this form to the store, encrypted; it is never shown again."""

from django import forms
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.core.pages import no_store, page
from apps.mcp import secure_input


class SecureInputForm(forms.Form):
    value = forms.CharField(
        label=gettext_lazy("Value"),
        max_length=secure_input.MAX_VALUE,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "off"}),
    )


@page(methods=("GET", "HEAD", "POST"))
def secure_input_page(request: AuthenticatedHttpRequest, token: str) -> HttpResponse:
    link = secure_input.read_link(token)
    if link is None:
        raise Http404(_("This link is not valid, or it has expired. Ask the agent to try again."))
    if link.user_id != request.user.pk:
        raise PermissionDenied(_("This link was made for someone else: sign in as that person to use it."))
    context = {"nav": "", "link": link, "state": "ask"}
    if secure_input.answered(link):
        context["state"] = "done"
        return no_store(render(request, "mcp/secure_input.html", context))
    form = SecureInputForm(request.POST if request.method == "POST" else None)
    form.fields["value"].label = link.label or _("Value")
    if request.method == "POST":
        if request.POST.get("action") == "cancel":
            context["state"] = "cancelled"
            return no_store(render(request, "mcp/secure_input.html", context))
        if form.is_valid():
            secure_input.complete(link, form.cleaned_data["value"])
            context["state"] = "done"
            return no_store(render(request, "mcp/secure_input.html", context))
    context["form"] = form
    status = 400 if form.is_bound else 200
    return no_store(render(request, "mcp/secure_input.html", context, status=status))

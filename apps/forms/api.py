"""The Form Builder's public module: what other areas may use of it. Nothing else of apps.forms
is theirs to import.

    form = api.form(actor=user, form_id=12)       # one the actor may see, or the kit's error
    api.is_public(form)                           # published and the workspace's: on public pages
    form = api.public_form(12)                    # that form if it is public, else None
    form = api.shown_form(12)                     # or closed since (form.is_closed_to_public)
    html = api.render_fields(request, form, action="/p/offer/", hidden=[("utm_source", "x")])
    got = api.receive(request, form, utm=api.utm_of(request.GET))  # checked and stored
    api.utm_of(request.GET)                       # {"utm_source": ..., "utm_campaign": ...}

`receive` keeps the form's own rules (its honeypot, the per-address hourly cap, the version's
schema and conditions, uploads in Files) whichever page the form is on; the submission keeps the
`utm_*` parameters the respondent came with (shown with the form's responses).
"""

from collections.abc import Iterable
from typing import Any

from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from apps.core.actors import Actor
from apps.core.workspaces import has_area
from apps.forms.models import FormTemplate, Submission
from apps.forms.public import Received, honeypot, receive, sections, utm_of

__all__ = [
    "FormTemplate",
    "Received",
    "Submission",
    "form",
    "is_public",
    "public_form",
    "receive",
    "render_fields",
    "shown_form",
    "utm_of",
]


def form(*, actor: Actor, form_id: int) -> FormTemplate:
    found: FormTemplate = FormTemplate.objects.select_related("current_version").fetch(actor, form_id, "view")
    return found


def is_public(found: FormTemplate) -> bool:
    return bool(found.is_public)


def public_form(form_id: int) -> FormTemplate | None:
    """The form if the public may fill it in here (the area installed, published, the
    workspace's, not deleted), else None."""
    found = shown_form(form_id)
    return found if found is not None and found.is_public else None


def shown_form(form_id: int) -> FormTemplate | None:
    """The form if a public page shows it: one the public may fill in, or one that was published
    and is closed (`is_closed_to_public`: the page says it takes no more answers), else None."""
    if not has_area("forms"):
        return None
    found = (
        FormTemplate.objects.select_related("current_version", "owner")
        .filter(pk=form_id, deleted_at__isnull=True)
        .first()
    )
    return found if found is not None and (found.is_public or found.is_closed_to_public) else None


def render_fields(
    request: HttpRequest,
    found: FormTemplate,
    *,
    action: str,
    hidden: Iterable[tuple[str, str]] = (),
    values: dict[str, Any] | None = None,
    problems: dict[str, Any] | None = None,
    message: str = "",
) -> SafeString:
    """The form's fields as its own page shows them (labels, problems named), posting to
    `action`, with `hidden` inputs carried along."""
    return SafeString(
        render_to_string(
            "forms/public_form_body.html",
            {
                "form": found,
                "sections": sections(found),
                "values": values or {},
                "problems": problems or {},
                "message": message,
                "action": action,
                "hidden": list(hidden),
                "honeypot": honeypot(found),
            },
            request=request,
        )
    )

"""The placeholders of a canned reply's body, and filling them in for a ticket.

A placeholder is a name between double braces, spaces inside allowed: `{{customer.first_name}}`,
`{{ ticket.id }}`. The names are a fixed list (NAMES); a body naming any other, or with a brace
pair left open, is refused when it is saved, so a reply never goes out with `{{...}}` in it.
Filling in is one pass of plain substitution: no template language runs, and what a value
contains (a customer who calls themselves "{{agent.name}}") is put in as it is, never read again.
"""

import re
from collections.abc import Callable
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from apps.core.errors import invalid

PLACEHOLDER = re.compile(r"\{\{\s*([^{}]*?)\s*\}\}")
# What each name is, as the page and the tool's description tell it.
NAMES: dict[str, Any] = {
    "customer.first_name": gettext_lazy("the requester's first name"),
    "customer.name": gettext_lazy("the requester's name"),
    "customer.email": gettext_lazy("the requester's e-mail address"),
    "ticket.id": gettext_lazy("the ticket's number"),
    "ticket.subject": gettext_lazy("the ticket's subject"),
    "agent.name": gettext_lazy("the name of the person applying it"),
    "agent.first_name": gettext_lazy("the first name of the person applying it"),
}

LISTED = ", ".join("{{" + name + "}}" for name in NAMES)


def check(body: str, *, field: str = "body") -> str:
    """`body` if every placeholder in it is one of NAMES and no brace pair is left open."""
    for match in PLACEHOLDER.finditer(body):
        if match.group(1) not in NAMES:
            raise invalid(
                field,
                _("{{{{{name}}}}} is not a placeholder; use one of {allowed}"),
                name=match.group(1)[:40],
                allowed=LISTED,
            )
    rest = PLACEHOLDER.sub("", body)
    if "{{" in rest or "}}" in rest:
        raise invalid(field, _("a placeholder is written {{{{name}}}}, its braces closed"))
    return body


def _first(name: str) -> str:
    return name.split()[0] if name.split() else ""


def values(*, ticket: Any, agent: Any) -> dict[str, str]:
    """Each placeholder's value for `ticket`, applied by `agent` (a person)."""
    customer = " ".join((ticket.requester_name or "").split())
    agent_name = " ".join(str(agent.get_full_name() or "").split()) if agent is not None else ""
    found: dict[str, Callable[[], str]] = {
        "customer.first_name": lambda: _first(customer),
        "customer.name": lambda: customer,
        "customer.email": lambda: ticket.requester_email or "",
        "ticket.id": lambda: str(ticket.pk),
        "ticket.subject": lambda: ticket.subject,
        "agent.name": lambda: agent_name,
        "agent.first_name": lambda: _first(agent_name),
    }
    return {name: value() for name, value in found.items()}


def render(body: str, *, ticket: Any, agent: Any) -> str:
    """`body` with its placeholders filled in for `ticket` (checked on save; one unknown here,
    from a row older than a name's removal, is left empty)."""
    filled = values(ticket=ticket, agent=agent)
    return PLACEHOLDER.sub(lambda match: filled.get(match.group(1), ""), body)

"""A confirmable tool's `confirm_if`: run with the call's arguments before any question, it says
whether this call needs the confirmation, and its refusal is the call's answer (nobody confirms
what would fail)."""

from typing import Annotated, Any

import pytest
from django.utils.translation import gettext_lazy as _
from pydantic import Field

from apps.catalogue.registry import Marker, RegistryError, tool
from apps.catalogue.shapes import Done
from apps.catalogue.testing import call, ok, temporary_tools, text_of
from apps.contacts.permissions import ContactsPerm
from apps.core.errors import invalid


def _only_for_everyone(ctx: Any, *, name: str, everyone: bool) -> bool:
    if name == "nobody":
        raise invalid("name", _("no contact is called that"))
    return everyone


@tool(
    "greetContacts",
    permission=ContactsPerm.EDIT,
    title="Greet contacts",
    markers=Marker.HIGH_RISK,
    confirm_if=_only_for_everyone,
    register_it=False,
)
def greet_contacts(
    ctx: Any,
    *,
    name: Annotated[str, Field(description="A first name")],
    everyone: Annotated[bool, Field(description="Greet every contact of that name")] = False,
) -> Done:
    """Greets the contacts of a first name, for the tests of confirm_if."""
    return Done(message=f"greeted {name}")


def test_only_the_calls_it_names_are_confirmed_and_a_refusal_comes_first(people):
    owner = people["owner"]
    asked: list[str] = []

    def elicit(message: str, schema: dict[str, Any]) -> dict[str, Any]:
        asked.append(message)
        return {"action": "accept", "content": {"confirm": True}}

    context = {"capabilities": {"elicitation": {}}, "elicit": elicit}
    with temporary_tools(greet_contacts):
        assert ok(owner, "greetContacts", {"name": "Ada"}, **context)["message"] == "greeted Ada"
        assert asked == []
        refusal = call(owner, "greetContacts", {"name": "nobody", "everyone": True}, **context)
        assert refusal["isError"] is True and "no contact is called that" in text_of(refusal)
        assert asked == []
        assert ok(owner, "greetContacts", {"name": "Ada", "everyone": True}, **context)["message"]
        assert len(asked) == 1
        # Without elicitation: the token answer, as for any confirmable call.
        needed = call(owner, "greetContacts", {"name": "Ada", "everyone": True})
        assert needed["isError"] is True and "Confirmation required" in text_of(needed)


def test_confirm_if_is_refused_on_a_tool_with_nothing_to_confirm():
    def plain(ctx: Any, *, name: Annotated[str, Field(description="A first name")]) -> Done:
        """Greets a contact, for the tests of confirm_if."""
        return Done(message=name)

    with pytest.raises(RegistryError, match="confirm_if"):
        tool(
            "greetContact",
            permission=ContactsPerm.EDIT,
            title="Greet a contact",
            confirm_if=_only_for_everyone,
            register_it=False,
        )(plain)

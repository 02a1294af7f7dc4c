"""Helpers for tests of tools, in any area: a real ToolContext with a dict-backed session,
calls through the real dispatcher, tools registered for one test, and the per-tool samples the
contract test (apps/catalogue/tests/test_contract.py) runs every registered tool with.

Each area app provides `tests/samples.py`:

    @sample("getContact")
    def get_contact(actor) -> Sample:
        contact = ContactFactory(actor=actor, first_name=UNIQUE)
        return Sample({"contactId": contact.pk}, private=[UNIQUE])

A sample creates, as `actor` (an owner, in the active workspace), what a normal call needs and
returns the arguments. `private` lists strings of the data it created: the contract test checks
that none of them ever appears in an answer given in another workspace.
"""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from apps.catalogue import dispatch, registry
from apps.catalogue.dispatch import MemorySession, ToolContext
from apps.core.credentials import Principal


def principal_for(
    user: Any,
    *,
    scopes: frozenset[str] | set[str] = frozenset({"mcp"}),
    scheme: str = "access_token",
    credential: str = "pat:test",
    client: str = "test client",
    api_key_id: int | None = None,
) -> Principal:
    return Principal(
        user=user,
        scheme=scheme,
        scopes=frozenset(scopes),
        credential=credential,
        client=client,
        api_key_id=api_key_id,
    )


def context_for(
    user: Any,
    *,
    session: MemorySession | None = None,
    scopes: frozenset[str] | set[str] = frozenset({"mcp"}),
    capabilities: dict[str, Any] | None = None,
    elicit: Callable[[str, dict[str, Any]], dict[str, Any]] | None = None,
    progress: Callable[[float, float | None, str | None], None] | None = None,
    is_cancelled: Callable[[], bool] | None = None,
) -> ToolContext:
    context = ToolContext(
        principal=principal_for(user, scopes=scopes),
        session=session or MemorySession(),
        client_capabilities=capabilities or {},
        progress=progress,
        elicit=elicit,
        request_id=1,
    )
    if is_cancelled is not None:
        context.is_cancelled = is_cancelled
    return context


def call(user: Any, name: str, arguments: dict[str, Any] | None = None, **context: Any) -> dict[str, Any]:
    """One `tools/call` through the real dispatcher, as `user`."""
    return dispatch.call_tool(context_for(user, **context), name, arguments or {})


def text_of(result: dict[str, Any]) -> str:
    return "\n".join(block.get("text", "") for block in result.get("content", []))


def structured(result: dict[str, Any]) -> dict[str, Any]:
    """The structured answer of a successful call (fails loudly with the message otherwise)."""
    assert not result["isError"], text_of(result)
    return result["structuredContent"]


def ok(user: Any, name: str, arguments: dict[str, Any] | None = None, **context: Any) -> dict[str, Any]:
    """The structured answer of a call that must succeed."""
    return structured(call(user, name, arguments, **context))


def refused(user: Any, name: str, arguments: dict[str, Any] | None = None, **context: Any) -> str:
    """The message of a call that must answer a tool error."""
    result = call(user, name, arguments, **context)
    assert result["isError"] is True, result
    return text_of(result)


def listed(
    user: Any,
    name: str,
    arguments: dict[str, Any] | None = None,
    *,
    items: Callable[[dict[str, Any]], list[dict[str, Any]]] = lambda answer: answer["items"],
    key: str = "id",
    first: str = "",
) -> set[int] | None:
    """The ids (`key`) of what a list tool answers `user`, every page of it (`items` finds the rows
    of one answer), or None when the tool is not theirs: what the access test compares with
    `restrict`. `first`: the area's mandatory first call, made first in the same session."""
    from apps.core.actors import can

    spec = registry.get(name)
    assert spec is not None, f"no tool {name}"
    if not can(user, spec.permission):
        return None
    session = MemorySession()
    if first:
        ok(user, first, {}, session=session)
    found: set[int] = set()
    offset: int | None = 0
    while offset is not None:
        page = {**(arguments or {}), **({"offset": offset} if offset else {})}
        answer = ok(user, name, page, session=session)
        found |= {row[key] for row in items(answer)}
        offset = answer.get("nextOffset")
    return found


def assert_refused_without_its_permission(spec: Any) -> None:
    """A person whose role lacks the tool's permission can neither list nor call it (in the active
    workspace): the same answer as a tool that does not exist."""
    import pytest

    person = person_without(spec.permission, email=f"without-{spec.name.lower()}@example.org")
    assert spec.name not in [entry["name"] for entry in dispatch.list_tools(principal=principal_for(person))]
    with pytest.raises(dispatch.ToolNotFound):
        call(person, spec.name, {})


def tools_of(area: str) -> list[Any]:
    return [spec for spec in registry.all_tools() if spec.area == area]


def confirmed(message: str, schema: dict[str, Any]) -> dict[str, Any]:
    """An `elicit` callable whose user accepts every confirmation."""
    return {"action": "accept", "content": {"confirm": True}}


@contextmanager
def temporary_tools(*functions: Callable[..., Any]) -> Iterator[list[registry.ToolSpec]]:
    """Registers tools declared with `@tool(..., register_it=False)` for the block."""
    specs = [function.tool_spec for function in functions]  # type: ignore[attr-defined]
    for spec in specs:
        registry.register(spec)
    try:
        yield specs
    finally:
        for spec in specs:
            registry.unregister(spec.name)
        dispatch.forget_cached_lists()


# --- samples for the contract test ----------------------------------------------------------------


@dataclass
class Sample:
    arguments: dict[str, Any]
    # Strings of the data the sample created, which must never appear in another workspace.
    private: list[str] = field(default_factory=list)
    # A context manager factory for what the call needs around it (a provider of another area,
    # an outside service on loopback); entered for the calls in both workspaces.
    around: Callable[[], Any] | None = None


Sampler = Callable[[Any], Sample]
_samples: dict[str, Sampler] = {}


def sample(name: str) -> Callable[[Sampler], Sampler]:
    def decorator(function: Sampler) -> Sampler:
        _samples[name] = function
        return function

    return decorator


def samples() -> dict[str, Sampler]:
    from django.utils.module_loading import autodiscover_modules

    autodiscover_modules("tests.samples")
    return dict(_samples)


# --- people with made-up roles --------------------------------------------------------------------


def person_with(permissions: set[str] | frozenset[str], *, email: str) -> Any:
    """A person whose custom role grants exactly `permissions` (in the active workspace)."""
    from django.utils.text import slugify

    from apps.accounts.models import Role, User

    role = Role.objects.create(
        key=slugify(email)[:60], name=f"role of {email}", permissions=sorted(permissions)
    )
    return User.objects.create_user(email=email, password=None, role=role)


def person_without(permission: str, *, email: str) -> Any:
    """A person whose custom role grants everything but `permission`."""
    from apps.core.permissions import all_permissions

    return person_with({member.value for member in all_permissions()} - {str(permission)}, email=email)

"""Who acts: the person behind a page, an API call, a tool call or a task's step.

Code below the accounts app speaks of an `Actor`, not of accounts' User: what it may rely on
of a person, and whether they hold a permission. Whether they do is decided in one place
(apps.accounts.access, behind `User.has_perm`); everything else asks `can` or `require` here.
"""

from typing import Any, Protocol

from apps.core.errors import Forbidden


class Actor(Protocol):
    """A person of the workspace (apps.accounts.models.User). Django's AnonymousUser is not one:
    a door narrows `request.user` first (a signed-in page's `AuthenticatedHttpRequest`).
    Code that may run for nobody (the service itself, a scheduled run) takes `Actor | None`."""

    @property
    def pk(self) -> int: ...

    @property
    def is_authenticated(self) -> bool: ...

    @property
    def is_active(self) -> bool: ...

    email: str
    full_name: str

    def has_perm(self, perm: str, obj: Any = None) -> bool: ...


def can(actor: Actor | None, permission: str) -> bool:
    """Whether `actor` holds `permission` in the current workspace (its area installed, their
    role granting it)."""
    return actor is not None and actor.has_perm(str(permission))


def require(actor: Actor | None, permission: str) -> None:
    """For services: Forbidden unless `actor` holds `permission` (the doors have checked the
    tool's or page's own permission; this is for the further ones a service needs)."""
    if not can(actor, permission):
        raise Forbidden()


def actor_id(actor: Actor | None) -> int | None:
    """The actor's id, or None for an anonymous one (rows keep who did what when there is someone)."""
    return getattr(actor, "pk", None)

"""Reads about people, roles and tokens, filtered to what the actor may see.

Something the actor may not see is "not found", never "forbidden".
"""

from django.db.models import Count, QuerySet

from apps.accounts.models import PORTAL_ROLE, PersonalAccessToken, Role, User
from apps.accounts.permissions import PeoplePerm, RolesPerm
from apps.core.actors import can
from apps.core.errors import or_not_found


def _people(actor: User) -> QuerySet[User]:
    if not can(actor, PeoplePerm.VIEW):
        return User.objects.none()
    return User.objects.select_related("role").order_by("email")


def user_list(*, actor: User) -> QuerySet[User]:
    """The people of the workspace: not the client portal's users (apps.platform.portal lists
    those: listPortalUsers)."""
    return _people(actor).exclude(role__key=PORTAL_ROLE)


def user_get(*, actor: User, user_id: int) -> User:
    """One person, a portal user too, so that a change the portal's tools make says so
    (PortalPersonElsewhere) rather than "not found"."""
    return or_not_found(_people(actor).filter(pk=user_id).first())


def workspace_people() -> QuerySet[User]:
    """Everyone who counts as a person of the workspace: active, not a portal user."""
    return User.objects.filter(is_active=True).exclude(role__key=PORTAL_ROLE)


def role_list(*, actor: User) -> QuerySet[Role]:
    if not can(actor, RolesPerm.VIEW):
        return Role.objects.none()
    return Role.objects.annotate(people=Count("users"))


def role_get(*, actor: User, role_id: int) -> Role:
    return or_not_found(role_list(actor=actor).filter(pk=role_id).first())


def assignable_roles(*, actor: User) -> list[Role]:
    """The roles `actor` may hand out: none that allows more than their own, and not the portal's
    (its people are invited to the portal, apps.platform.portal)."""
    own = actor.role.granted_permissions() if actor.role else frozenset()
    return [role for role in Role.objects.exclude(key=PORTAL_ROLE) if role.granted_permissions() <= own]


def access_token_list(*, user: User) -> QuerySet[PersonalAccessToken]:
    return PersonalAccessToken.objects.filter(user=user)


def access_token_get(*, user: User, token_id: int) -> PersonalAccessToken:
    return or_not_found(access_token_list(user=user).filter(pk=token_id).first())

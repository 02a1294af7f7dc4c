"""The client portal: contacts invited as external people who sign in on the workspace host and
see only what is shared with them (docs/portal.md).

A portal user is a contact's row here (`PortalUser`) and a person of the workspace with the
built-in portal role, which grants no permission: no tool, area page, API or settings page is
theirs (apps.accounts.portal keeps them on the portal's pages). They sign in with their own
password on the same sign-in page, under the same ceiling on guesses; they choose the password
from the workspace's invitation (its e-mailed single-use, expiring link). Documents and files
are shared with them by the areas' share tools (access "view"); the portal lists those.

Who may: holders of platform.portal (owners and admins) invite, approve and revoke; holders of
platform.portal_request (members too) see the portal's users and ask for a contact to be invited,
which waits for an approval (approvePortalUser) before anything is e-mailed.
"""

import logging
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.hashers import UNUSABLE_PASSWORD_PREFIX
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.accounts import services as accounts
from apps.accounts.models import User
from apps.contacts import api as contacts
from apps.core import clean
from apps.core.actors import Actor, can, require
from apps.core.errors import AppError, RecordNotFound
from apps.core.records import ANYONE
from apps.documents import api as documents
from apps.files import api as files
from apps.platform import errors
from apps.platform.models import PortalUser
from apps.platform.permissions import PlatformPerm

logger = logging.getLogger(__name__)

State = PortalUser.State

# Nobody has chosen a password yet: Django's unusable ones start with UNUSABLE_PASSWORD_PREFIX.
_NO_PASSWORD = Q(user__password__startswith=UNUSABLE_PASSWORD_PREFIX)
_STATES: dict[str, Q] = {
    State.REVOKED: Q(revoked_at__isnull=False),
    State.REQUESTED: Q(revoked_at__isnull=True, approved_at__isnull=True),
    State.INVITED: Q(revoked_at__isnull=True, approved_at__isnull=False) & _NO_PASSWORD,
    State.ACTIVE: Q(revoked_at__isnull=True, approved_at__isnull=False) & ~_NO_PASSWORD,
}


def _person(actor: Actor) -> User | None:
    return actor if isinstance(actor, User) and actor.pk else None


# --- reads (staff) -------------------------------------------------------------------------------


def portal_users(*, actor: Actor, state: str | None = None) -> QuerySet[PortalUser]:
    require(actor, PlatformPerm.PORTAL_REQUEST)
    rows = PortalUser.objects.select_related("user", "contact")
    if state:
        rows = rows.filter(_STATES[state])
    return rows


def portal_user(*, actor: Actor, portal_user_id: int) -> PortalUser:
    found = portal_users(actor=actor).filter(pk=portal_user_id).first()
    if found is None:
        raise RecordNotFound(label=_("Portal user"), id=portal_user_id, find_with="listPortalUsers")
    return found


def shared_count(user: User) -> int:
    return documents.shared_with(user).count() + files.shared_with(user).count()


@dataclass(frozen=True)
class Summary:
    by_state: dict[str, int]
    shared_documents: int
    shared_files: int
    last_sign_ins: list[PortalUser]


def summary(*, actor: Actor, recent: int = 5) -> Summary:
    rows = portal_users(actor=actor)
    by_state = {str(state): rows.filter(condition).count() for state, condition in _STATES.items()}
    live = rows.filter(revoked_at__isnull=True, approved_at__isnull=False).values("user")
    signed_in = rows.filter(_STATES[State.ACTIVE], user__last_login__isnull=False).order_by(
        "-user__last_login"
    )
    return Summary(
        by_state=by_state,
        shared_documents=documents.shared_with_any(live).count(),
        shared_files=files.shared_with_any(live).count(),
        last_sign_ins=list(signed_in[:recent]),
    )


# --- writes --------------------------------------------------------------------------------------


def invite(*, actor: Actor, contact_id: int, email: str | None, full_name: str, origin: str) -> PortalUser:
    """A contact made a portal user: invited at once (an e-mail with the invitation's link) when
    the actor may approve, else asked for, waiting for approvePortalUser. All or nothing."""
    require(actor, PlatformPerm.PORTAL_REQUEST)
    contact = contacts.contact(actor=actor, contact_id=contact_id)
    existing = (
        PortalUser.objects.filter(contact=contact, revoked_at__isnull=True).select_related("user").first()
    )
    if existing is not None:
        raise errors.ContactHasPortalUser(
            contact=contact.pk, portal_user_id=existing.pk, state=str(existing.state)
        )
    address = clean.email(email or contact.email, field="email")
    if not address:
        raise errors.PortalNeedsEmail(contact=contact.pk)
    name = full_name.strip() or contact.display_name
    with transaction.atomic():
        row = _reopened(actor, address=address, contact=contact, full_name=name)
        if row is None:
            user = accounts.portal_person_create(email=address, full_name=name, active=False)
            row = PortalUser.objects.create(user=user, contact=contact, requested_by=_person(actor))
        if can(actor, PlatformPerm.PORTAL):
            _approve(actor, row, origin)
    logger.info("portal user %s %s by %s", row.pk, "invited" if row.approved_at else "asked for", actor.pk)
    return row


def _reopened(actor: Actor, *, address: str, contact: Any, full_name: str) -> PortalUser | None:
    """The revoked portal user of `address`, asked for again (for `contact`, by `actor`): the same
    person and row, back to "requested" with no password (the old one never signs in again: the
    invitation sets a new one), locked for the caller's transaction. None when there is none."""
    row = (
        PortalUser.objects.select_for_update(of=("self",))
        .select_related("user")
        .filter(user__email=address, revoked_at__isnull=False)
        .first()
    )
    if row is None:
        return None
    accounts.portal_person_reopen(user=row.user, full_name=full_name)
    row.contact = contact
    row.requested_by = _person(actor)
    row.asked_by_themselves = False
    row.created_at = timezone.now()
    row.approved_at = row.revoked_at = None
    row.approved_by = row.revoked_by = None
    row.save()
    logger.info("portal user %s asked for again by %s", row.pk, actor.pk)
    return row


def _locked(actor: Actor, portal_user_id: int) -> PortalUser:
    """The portal user `actor` may see, locked for a change in the caller's transaction."""
    row = portal_user(actor=actor, portal_user_id=portal_user_id)
    return PortalUser.objects.select_for_update(of=("self",)).select_related("user", "contact").get(pk=row.pk)


def approve(*, actor: Actor, portal_user_id: int, origin: str) -> tuple[PortalUser, bool]:
    """Approves a request: the invitation is e-mailed. Returns the row and whether it changed
    (one already approved is left as it is)."""
    require(actor, PlatformPerm.PORTAL)
    with transaction.atomic():
        row = _locked(actor, portal_user_id)
        if row.revoked_at is not None:
            raise errors.PortalUserRevoked(portal_user_id=row.pk)
        if row.approved_at is not None:
            return row, False
        _approve(actor, row, origin)
    return row, True


def _approve(actor: Actor, row: PortalUser, origin: str) -> None:
    row.approved_at = timezone.now()
    row.approved_by = _person(actor)
    row.save(update_fields=["approved_at", "approved_by"])
    inviter = actor.get_full_name() if isinstance(actor, User) else str(actor)
    accounts.portal_person_invite(user=row.user, origin=origin, inviter=inviter)


def revoke(*, actor: Actor, portal_user_id: int) -> tuple[PortalUser, bool]:
    """Ends a portal user's access at once: deactivated, their sessions ended; the shares with
    them stay (and show nothing to anyone). Returns the row and whether it changed."""
    require(actor, PlatformPerm.PORTAL)
    with transaction.atomic():
        row = _locked(actor, portal_user_id)
        if row.revoked_at is not None:
            return row, False
        row.revoked_at = timezone.now()
        row.revoked_by = _person(actor)
        row.save(update_fields=["revoked_at", "revoked_by"])
        accounts.portal_person_end(user=row.user)
    logger.info("portal user %s revoked by %s", row.pk, actor.pk)
    return row, True


def end_for_erasure(rows: QuerySet[Any]) -> int:
    """A person's erasure (apps.platform.privacy): the portal users it finds stop at once."""
    ended = 0
    for row in rows.select_related("user"):
        if row.revoked_at is None:
            row.revoked_at = timezone.now()
            row.save(update_fields=["revoked_at"])
            ended += 1
        accounts.portal_person_end(user=row.user)
    return ended


# --- asking for access (the portal's sign-up page) -----------------------------------------------


def ask_for_access(*, email: str, full_name: str) -> PortalUser | None:
    """Someone asked on the portal's sign-up page for access with `email`. Only a contact of the
    workspace (a contact every person of the Contacts area sees, with that address) whose address
    is nobody's sign-in yet becomes a request (an inactive portal person, like a member's request),
    which waits for approvePortalUser before anything is e-mailed. Anything else (an unknown
    address, a person of the workspace, a portal user asked for, invited, active or revoked)
    changes nothing. The page answers the same either way: nothing says which it was."""
    try:
        address = clean.email(email, field="email")
    except AppError:
        return None  # the page's form checked it already
    if not address or User.objects.filter(email__iexact=address).exists():
        return None
    contact = contacts.contact_by_email(ANYONE, address)
    if contact is None or PortalUser.objects.filter(contact=contact, revoked_at__isnull=True).exists():
        return None
    try:
        with transaction.atomic():
            user = accounts.portal_person_create(
                email=address, full_name=full_name.strip()[:150] or contact.display_name, active=False
            )
            row = PortalUser.objects.create(user=user, contact=contact, asked_by_themselves=True)
    except AppError:
        # The same address asked for twice at once: the second finds the first's row.
        return None
    logger.info("portal user %s asked for on the sign-up page", row.pk)
    return row


# --- the portal's own pages ----------------------------------------------------------------------


def shared_with(user: User) -> tuple[QuerySet[Any], QuerySet[Any]]:
    """What the portal shows a portal person: the documents and files shared with them."""
    return documents.shared_with(user), files.shared_with(user)

"""Writes about people, roles and personal access tokens."""

import logging
from datetime import datetime, timedelta
from typing import Any, cast

from django.conf import settings
from django.contrib.auth.password_validation import validate_password
from django.contrib.auth.tokens import PasswordResetTokenGenerator, default_token_generator
from django.core.exceptions import ValidationError
from django.core.mail import EmailMessage
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.crypto import constant_time_compare
from django.utils.encoding import force_bytes
from django.utils.http import base36_to_int, urlsafe_base64_decode, urlsafe_base64_encode
from django.utils.text import slugify
from django.utils.translation import gettext as _

from apps.accounts import errors, throttle
from apps.accounts.models import PORTAL_ROLE, PersonalAccessToken, Role, User
from apps.accounts.permissions import PeoplePerm, RolesPerm, WorkspacePerm
from apps.core import credentials, permissions, privacy, secrets, times, workspaces
from apps.core.actors import require
from apps.core.db import UNIQUE_VIOLATION, connection, database_failure
from apps.core.errors import FieldsInvalid, Forbidden
from apps.core.times import validate_time_zone

logger = logging.getLogger(__name__)


def _role_permissions(user: User) -> frozenset[str]:
    return user.role.granted_permissions() if user.role else frozenset()


def _check_may_hand_out(actor: User, role: Role) -> None:
    """Nobody gives (or takes away) a role that allows more than their own."""
    if not role.granted_permissions() <= _role_permissions(actor):
        raise errors.RoleNotAssignable()


def _active_owners() -> int:
    """How many active owners there are, their rows locked (in id order, so two changes never
    wait on each other crosswise) until the transaction ends: two owners demoting or deactivating
    each other at once are taken one after the other, and the second sees the first's change."""
    owners = (
        User.objects.select_for_update(of=("self",))
        .filter(role__key="owner", is_active=True)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    return len(list(owners))


def _person_to_manage(actor: User, user: User) -> User:
    """The person, locked for the change, if the actor may manage people and hand out (so take
    away) the role the person has."""
    require(actor, PeoplePerm.MANAGE)
    user = User.objects.select_for_update().get(pk=user.pk)
    if user.role:
        _check_may_hand_out(actor, user.role)
    return user


def _is_owner(user: User) -> bool:
    return user.role is not None and user.role.key == "owner"


# --- people -------------------------------------------------------------------------------------


def user_create_owner(*, email: str, password_hash: str | None = None) -> User:
    """The first person of a new workspace, with a password already hashed (`make_password`), or
    none to set later."""
    user = User(email=email.strip().lower(), role=Role.objects.get(key="owner"))
    if password_hash:
        user.password = password_hash
    else:
        user.set_unusable_password()
    user.save()
    return user


def user_create(
    *, actor: User, email: str, role: Role, full_name: str = "", password: str | None = None
) -> User:
    require(actor, PeoplePerm.MANAGE)
    _check_may_hand_out(actor, role)
    email = email.strip().lower()
    if User.objects.filter(email=email).exists():
        raise _already_in_workspace()
    if password:
        try:
            validate_password(password, User(email=email, full_name=full_name))
        except ValidationError as error:
            raise FieldsInvalid(
                problems=" ".join(error.messages), details={"password": error.messages}
            ) from error
    try:
        # A savepoint: a caller's transaction stays usable when the insert is refused.
        with transaction.atomic():
            user = User.objects.create_user(
                email=email, password=password, full_name=full_name.strip(), role=role
            )
    except IntegrityError as error:
        # Someone added the same address between the check above and this insert (two posts
        # of the same form at once): the same answer as the check's.
        failure = database_failure(error)
        unique = failure is not None and failure.sqlstate == UNIQUE_VIOLATION
        if not unique or not User.objects.filter(email=email).exists():
            raise
        raise _already_in_workspace() from None
    logger.info("user %s added by %s", user.pk, actor.pk)
    return user


def user_invite(
    *,
    actor: User,
    email: str,
    role: Role,
    origin: str,
    full_name: str = "",
    password: str | None = None,
) -> User:
    """Adds a person with a role (the settings page's "Add a person" and inviteWorkspaceUser):
    with an initial password the actor shares with them, or without one, e-mailing them an
    invitation (by a worker, once committed) whose link, on `origin`, lets them choose their
    password and signs them in. Nobody hands out more than their own role allows."""
    user = user_create(actor=actor, email=email, role=role, full_name=full_name, password=password or None)
    if not password:
        from apps.accounts.tasks import send_invitation

        schema_name = connection.schema_name
        inviter = actor.get_full_name()
        transaction.on_commit(
            lambda: send_invitation.delay(user.pk, origin, inviter, schema_name=schema_name)
        )
    return user


def _already_in_workspace() -> errors.AlreadyInWorkspace:
    return errors.AlreadyInWorkspace(details={"email": [_("already in use")]})


@transaction.atomic
def user_change_role(*, actor: User, user: User, role: Role) -> User:
    owners = _active_owners()  # locked first, before the person: always the same order
    user = _person_to_manage(actor, user)
    if user.is_portal or role.key == PORTAL_ROLE:
        raise errors.PortalPersonElsewhere()
    _check_may_hand_out(actor, role)
    if _is_owner(user) and role.key != "owner" and owners <= 1:
        raise errors.LastOwner()
    user.role = role
    user.save(update_fields=["role"])
    logger.info("user %s given role %s by %s", user.pk, role.pk, actor.pk)
    return user


@transaction.atomic
def user_set_active(*, actor: User, user: User, active: bool) -> User:
    owners = _active_owners()  # locked first, before the person: always the same order
    user = _person_to_manage(actor, user)
    if user.is_portal:
        raise errors.PortalPersonElsewhere()
    if not active and _is_owner(user) and user.is_active and owners <= 1:
        raise errors.LastOwner()
    if not active and user.pk == actor.pk:
        # The settings page offers no button for it; an agent acting for the person would cut
        # off its own caller. Someone else who manages people does it.
        raise errors.CannotDeactivateYourself()
    was_active = user.is_active
    user.is_active = active
    user.save(update_fields=["is_active"])
    if not active:
        _end_credentials(user, was_active=was_active)
    logger.info("user %s %s by %s", user.pk, "activated" if active else "deactivated", actor.pk)
    return user


def _end_credentials(user: User, *, was_active: bool) -> None:
    """A deactivated person's ways in stop at once, not when they would have expired: their
    browser sessions, access tokens, OAuth tokens and connected apps, API keys (each app marks
    its own in its privacy module). Every process that keeps one hears of the change of
    `is_active` once (apps.catalogue.signals, then the doors), not of each credential."""
    with credentials.quietly():
        revoked = privacy.revoke_credentials(
            privacy.Subject(email=user.email, user=user, workspace=workspaces.current_workspace())
        )
    if revoked and not was_active:
        credentials.revoked(user_ids=[user.pk])


# --- the client portal's people (apps.platform.portal decides who may) ---------------------------


def portal_person_create(*, email: str, full_name: str = "", active: bool) -> User:
    """An external person of the client portal, with the portal role (no permission) and no
    password yet: `active` when invited at once, inactive while their invitation waits for an
    approval. The caller (apps.platform.portal) has checked who may."""
    email = email.strip().lower()
    if User.objects.filter(email=email).exists():
        raise _already_in_workspace()
    try:
        with transaction.atomic():
            user = User.objects.create_user(
                email=email,
                password=None,
                full_name=full_name.strip(),
                role=Role.objects.get(key=PORTAL_ROLE),
                is_active=active,
            )
    except IntegrityError as error:
        failure = database_failure(error)
        if failure is None or failure.sqlstate != UNIQUE_VIOLATION:
            raise
        raise _already_in_workspace() from None
    logger.info("portal user %s added", user.pk)
    return user


def portal_person_invite(*, user: User, origin: str, inviter: str) -> User:
    """Makes the portal person active and e-mails them the workspace's invitation (the same link,
    token and page as a person's: it sets their password, works once and expires), once committed."""
    from apps.accounts.tasks import send_invitation

    if not user.is_active:
        user.is_active = True
        user.save(update_fields=["is_active"])
    schema_name = connection.schema_name
    transaction.on_commit(lambda: send_invitation.delay(user.pk, origin, inviter, schema_name=schema_name))
    return user


def portal_person_reopen(*, user: User, full_name: str) -> User:
    """A revoked portal person asked for again (apps.platform.portal): inactive, with no password
    until the new invitation's link sets one, so nothing of their old access works again."""
    user.full_name = full_name.strip()[:150] or user.full_name
    user.is_active = False
    user.set_unusable_password()
    user.save(update_fields=["full_name", "is_active", "password"])
    logger.info("portal user %s asked for again", user.pk)
    return user


def portal_person_end(*, user: User) -> User:
    """The portal person's access ends at once: deactivated, their sessions ended."""
    was_active = user.is_active
    if was_active:
        user.is_active = False
        user.save(update_fields=["is_active"])
    _end_credentials(user, was_active=was_active)
    logger.info("portal user %s revoked", user.pk)
    return user


# --- roles --------------------------------------------------------------------------------------


def _clean_role_permissions(actor: User, codes: list[str]) -> list[str]:
    unknown = permissions.unknown_permissions(codes)
    if unknown:
        raise errors.UnknownPermissions(codes=", ".join(unknown), details={"permissions": unknown})
    beyond = sorted(set(codes) - _role_permissions(actor))
    if beyond:
        raise errors.RoleNotAssignable(details={"permissions": beyond})
    return sorted(set(codes))


def role_create(*, actor: User, name: str, permissions: list[str], description: str = "") -> Role:
    require(actor, RolesPerm.MANAGE)
    name = name.strip()
    key = slugify(name)[:64]
    if not key:
        raise errors.RoleNameRequired(details={"name": [_("required")]})
    if key in Role.SYSTEM_LEVELS or Role.objects.filter(key=key).exists():
        raise errors.RoleNameTaken(details={"name": [name]})
    role = Role.objects.create(
        key=key,
        name=name,
        description=description.strip(),
        permissions=_clean_role_permissions(actor, permissions),
    )
    logger.info("role %s created by %s", role.pk, actor.pk)
    return role


def role_update(*, actor: User, role: Role, name: str, permissions: list[str], description: str = "") -> Role:
    require(actor, RolesPerm.MANAGE)
    if role.is_system:
        raise errors.BuiltInRoleUnchangeable()
    _check_may_hand_out(actor, role)
    role.name = name.strip() or role.name
    role.description = description.strip()
    role.permissions = _clean_role_permissions(actor, permissions)
    role.save()
    logger.info("role %s changed by %s", role.pk, actor.pk)
    return role


@transaction.atomic
def role_delete(*, actor: User, role: Role, reassign_to: Role | None = None) -> int:
    """Deletes a custom role; its people, if it has any, are given `reassign_to` first (which
    needs people.manage too, and a role the actor may hand out), else it is refused. Returns how
    many people were given the other role."""
    require(actor, RolesPerm.MANAGE)
    if role.is_system:
        raise errors.BuiltInRoleKept()
    role = Role.objects.select_for_update().get(pk=role.pk)
    _check_may_hand_out(actor, role)
    holders = list(User.objects.select_for_update().filter(role=role).order_by("pk"))
    if holders and reassign_to is None:
        raise errors.RoleInUse()
    if reassign_to is not None and reassign_to.pk == role.pk:
        raise errors.ReassignToItself()
    for holder in holders:
        user_change_role(actor=actor, user=holder, role=cast(Role, reassign_to))
    role.delete()
    logger.info("role %s deleted by %s (%s people reassigned)", role.pk, actor.pk, len(holders))
    return len(holders)


# --- the workspace's areas ----------------------------------------------------------------------


@transaction.atomic
def workspace_set_areas(*, actor: User, install: list[str], uninstall: list[str]) -> list[str]:
    """Installs and uninstalls optional areas of the current workspace: an uninstalled area's
    tools, pages and menu links are gone for everyone at once (every permission check asks
    whether its area is installed, apps.accounts.access), its records kept, back as they were
    when it is installed again. Core areas are in every workspace. Returns the installed keys."""
    require(actor, WorkspacePerm.MANAGE)
    from apps.tenancy.models import Workspace

    current = workspaces.current_workspace()
    if current is None:
        raise Forbidden()
    known = permissions.optional_area_keys()
    for field, keys in (("install", install), ("uninstall", uninstall)):
        for key in keys:
            area = permissions.get_area(key)
            if area is not None and area.core:
                raise errors.CoreAreaKept(area=key, details={field: [key]})
            if area is None:
                raise errors.UnknownArea(area=key, known=", ".join(known), details={field: [key]})
    both = sorted(set(install) & set(uninstall))
    if both:
        raise errors.InstallAndUninstall(areas=", ".join(both), details={"uninstall": both})
    workspace = Workspace.objects.select_for_update().get(schema_name=current.schema_name)
    areas = sorted((set(workspace.installed_areas) | set(install)) - set(uninstall))
    if areas != sorted(workspace.installed_areas):
        workspace.installed_areas = areas
        workspace.save(update_fields=["installed_areas"])

        def refresh() -> None:
            # This connection's workspace too, once committed: the rest of the request asks it
            # (other processes refresh theirs when told, apps.mcp.signals).
            current.installed_areas = list(areas)

        transaction.on_commit(refresh)
        logger.info("workspace %s areas set by %s: %s", workspace.schema_name, actor.pk, ", ".join(areas))
    return areas


@transaction.atomic
def workspace_set_step_up(*, actor: User, required: bool, minutes: int) -> None:
    """Whether HIGH RISK tools need a fresh step-up code (apps.accounts.otp) in the current
    workspace, and how long one lasts. Seen at once in this process, and by the others as they are
    told of the workspace's change (apps.tenancy.routing)."""
    require(actor, WorkspacePerm.MANAGE)
    from apps.accounts import otp
    from apps.tenancy.models import Workspace

    current = workspaces.current_workspace()
    if current is None:
        raise Forbidden()
    if not otp.LEAST_MINUTES <= minutes <= otp.MOST_MINUTES:
        raise errors.StepUpMinutesOutOfRange(least=otp.LEAST_MINUTES, most=otp.MOST_MINUTES)
    workspace = Workspace.objects.select_for_update().get(schema_name=current.schema_name)
    workspace.step_up_required = required
    workspace.step_up_minutes = minutes
    workspace.save(update_fields=["step_up_required", "step_up_minutes"])

    def refresh() -> None:
        current.step_up_required = required  # type: ignore[attr-defined]
        current.step_up_minutes = minutes  # type: ignore[attr-defined]

    transaction.on_commit(refresh)
    logger.info(
        "workspace %s step-up %s (%s minutes) set by %s",
        workspace.schema_name,
        "required" if required else "off",
        minutes,
        actor.pk,
    )


# --- personal access tokens ---------------------------------------------------------------------


def access_token_create(
    *, user: User, name: str, lifetime: timedelta | None = None
) -> tuple[PersonalAccessToken, str]:
    """Returns the token row and the secret itself, which is never stored and never shown again."""
    name = name.strip()
    if not name:
        raise errors.TokenNameRequired(details={"name": [_("required")]})
    if len(name) > 100:
        raise errors.TokenNameTooLong(details={"name": [name[:100]]})
    raw = secrets.generate(settings.ACCESS_TOKEN_PREFIX)
    token = PersonalAccessToken.objects.create(
        user=user,
        name=name,
        digest=secrets.digest(raw),
        last_four=raw[-4:],
        expires_at=timezone.now() + (lifetime or timedelta(days=settings.ACCESS_TOKEN_LIFETIME_DAYS)),
    )
    logger.info("access token %s created for user %s", token.pk, user.pk)
    return token, raw


def access_token_revoke(*, actor: User, token: PersonalAccessToken) -> PersonalAccessToken:
    if token.user_id != actor.pk:
        raise Forbidden()
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
        credentials.revoked(user_ids=[token.user_id])
        logger.info("access token %s revoked", token.pk)
    return token


def access_tokens_purge(*, older_than: timedelta = timedelta(days=30)) -> int:
    """Deletes tokens that expired or were revoked more than `older_than` ago."""
    cutoff = timezone.now() - older_than
    deleted, _ = PersonalAccessToken.objects.filter(expires_at__lt=cutoff).delete()
    revoked, _ = PersonalAccessToken.objects.filter(revoked_at__lt=cutoff).delete()
    return deleted + revoked


# --- one's own password and time zone -----------------------------------------------------------


def user_set_password(*, user: User, password: str) -> User:
    """A new password for the person (checked against AUTH_PASSWORD_VALIDATORS), whether they
    changed it signed in or set it from a reset link. Their sessions elsewhere end (Django checks
    the session's password hash) and the address's failed sign-ins are forgotten: a person locked
    out for guessing wrong can sign in with the password they just chose."""
    try:
        validate_password(password, user)
    except ValidationError as error:
        raise FieldsInvalid(
            problems=" ".join(error.messages), details={"password": error.messages}
        ) from error
    user.set_password(password)
    user.save(update_fields=["password"])
    throttle.forget_failures(user.email)
    logger.info("user %s set a new password", user.pk)
    return user


def user_set_time_zone(*, user: User, time_zone: str) -> User:
    """The zone the pages show the person's times in: an IANA name, or "" for the workspace's."""
    time_zone = time_zone.strip()
    if time_zone:
        try:
            validate_time_zone(time_zone)
        except ValidationError as error:
            raise FieldsInvalid(
                problems=" ".join(error.messages), details={"time_zone": error.messages}
            ) from error
    user.time_zone = time_zone
    user.save(update_fields=["time_zone"])
    logger.info("user %s changed their time zone", user.pk)
    return user


# --- links e-mailed by the sign-in pages ---------------------------------------------------------


class SignInLinkTokens(PasswordResetTokenGenerator):
    """Links that sign a person in: Django's password-reset tokens under a salt of their own, so
    that a reset link does not sign in and a sign-in link sets no password. Made of the person's
    last_login and password, they work once (signing in changes the first) and for
    PASSWORD_RESET_TIMEOUT, as reset links do."""

    key_salt = "apps.accounts.services.SignInLinkTokens"


sign_in_links = SignInLinkTokens()


class InvitationTokens(PasswordResetTokenGenerator):
    """The link of an invitation: it sets the invited person's first password and signs them in,
    once (setting the password changes what it is made of), for ATRIUM_ACCOUNTS_INVITATION_DAYS;
    neither a reset link nor a sign-in link is one."""

    key_salt = "apps.accounts.services.InvitationTokens"

    @property
    def timeout(self) -> int:
        return 24 * 3600 * int(settings.ATRIUM_ACCOUNTS_INVITATION_DAYS)

    def check_token(self, user: Any, token: str | None) -> bool:
        """Django's check, with the invitation's lifetime for PASSWORD_RESET_TIMEOUT."""
        if not (user and token):
            return False
        try:
            stamp, _hash = token.split("-")
            made = base36_to_int(stamp)
        except ValueError:
            return False
        if not any(
            constant_time_compare(self._make_token_with_timestamp(user, made, secret), token)
            for secret in [self.secret, *self.secret_fallbacks]
        ):
            return False
        return self._num_seconds(self._now()) - made <= self.timeout


invitations = InvitationTokens()


def _active_person(email: str) -> User | None:
    return User.objects.filter(email=email.strip().lower(), is_active=True, role__isnull=False).first()


def _active_by_id(user_id: int) -> User | None:
    """The person a worker is to write to, unless they were deactivated since it was asked."""
    return User.objects.filter(pk=user_id, is_active=True).first()


def _link(origin: str, name: str, user: User, tokens: PasswordResetTokenGenerator) -> str:
    path = reverse(
        name, kwargs={"uidb64": urlsafe_base64_encode(force_bytes(user.pk)), "token": tokens.make_token(user)}
    )
    return f"{origin.rstrip('/')}{path}"


def _mail(user: User, *, brand: str, subject: str, paragraphs: list[list[str]]) -> None:
    """A plain-text message of the workspace, signed with its brand, to the person, through
    Django's e-mail backend (docs/area-kit.md: why not through the mail app)."""
    lines = [line for paragraph in paragraphs for line in [*paragraph, ""]]
    message = EmailMessage(
        subject=subject,
        body="\n".join([*lines, f"-- {brand}"]),
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[user.email],
    )
    message.send(fail_silently=False)


def _when(user: User, moment: datetime) -> str:
    """A time as the person reads it: in their time zone, else the workspace's."""
    from apps.core.workspaces import current_workspace

    workspace = current_workspace()
    zone = user.time_zone or (workspace.time_zone if workspace is not None else None)
    return times.when_text(moment, zone)


def _until(user: User, seconds: float) -> str:
    """When a link made now stops working."""
    return _when(user, timezone.now() + timedelta(seconds=seconds))


def _works_once(user: User) -> str:
    """What an e-mailed link (a reset's or a sign-in's) says of how long it works."""
    return _("The link works once, until %(until)s.") % {
        "until": _until(user, settings.PASSWORD_RESET_TIMEOUT)
    }


# --- password reset by e-mail -------------------------------------------------------------------


def password_reset_request(*, email: str, origin: str) -> None:
    """Someone asked, on the sign-in page, to set a new password for `email`: if it is the address
    of an active person of this workspace, a link is e-mailed to it (by a worker, so that the
    answer takes as long whether or not the address is someone's). Nothing says which it was."""
    user = _active_person(email)
    if user is None:
        return
    from apps.accounts.tasks import send_password_reset

    send_password_reset.delay(user.pk, origin, schema_name=connection.schema_name)


def password_reset_send(*, user_id: int, origin: str) -> bool:
    """E-mails the person a link (on `origin`, the workspace host they asked from) to set a new
    password: Django's default token generator, so the link works once (setting a password or
    signing in changes what it is made of) and for PASSWORD_RESET_TIMEOUT seconds."""
    user = _active_by_id(user_id)
    if user is None:
        return False
    brand = workspaces.brand()
    _mail(
        user,
        brand=brand,
        subject=_("%(brand)s: set a new password") % {"brand": brand},
        paragraphs=[
            [
                _("Someone, probably you, asked to set a new password for %(email)s at %(brand)s.")
                % {"email": user.email, "brand": brand}
            ],
            [
                _("Choose a new password here:"),
                _link(origin, "accounts:password-reset-confirm", user, default_token_generator),
            ],
            [
                _works_once(user),
                _("If you did not ask, ignore this e-mail: your password stays as it is."),
            ],
        ],
    )
    logger.info("password reset link e-mailed to user %s", user.pk)
    return True


# --- invitations ----------------------------------------------------------------------------------


def invitation_send(*, user_id: int, origin: str, inviter: str) -> bool:
    """E-mails an invited person the link (on `origin`, the workspace host) to choose their
    password and sign in; nothing once they were deactivated or have chosen one."""
    user = _active_by_id(user_id)
    if user is None or user.has_usable_password():
        return False
    brand = workspaces.brand()
    _mail(
        user,
        brand=brand,
        subject=_("%(brand)s: you are invited") % {"brand": brand},
        paragraphs=[
            [
                _("%(inviter)s invited you to %(brand)s, as %(email)s, with the role %(role)s.")
                % {
                    "inviter": inviter,
                    "brand": brand,
                    "email": user.email,
                    "role": user.role.name if user.role else "",
                }
            ],
            [
                _("Choose your password and sign in here:"),
                _link(origin, "accounts:invitation", user, invitations),
            ],
            [
                _("The link works once, until %(until)s.") % {"until": _until(user, invitations.timeout)},
                _("If you did not expect this, ignore this e-mail."),
            ],
        ],
    )
    logger.info("invitation e-mailed to user %s", user.pk)
    return True


# --- password sign-in paused: the owner told, and signed in by a link ----------------------------


def sign_in_paused_tell(*, notice: "throttle.Notice", origin: str) -> None:
    """Password sign-in for an address was just paused after many wrong passwords
    (apps.accounts.throttle): if it is an active person's of this workspace, they are told by
    e-mail (a worker sends it), with a link that signs them in meanwhile."""
    user = _active_person(notice.email)
    if user is None:
        return
    from apps.accounts.tasks import send_sign_in_notice

    send_sign_in_notice.delay(
        user.pk,
        origin,
        notice.failures,
        notice.clients,
        notice.since.isoformat(),
        schema_name=connection.schema_name,
    )


def sign_in_notice_send(*, user_id: int, origin: str, failures: int, clients: int, since: str) -> bool:
    """The owner told that signing in with their password is paused, how many wrong passwords from
    how many addresses did it, and the link that signs them in anyway."""
    user = _active_by_id(user_id)
    if user is None:
        return False
    window = 60 * int(settings.ATRIUM_ACCOUNTS_GUESSES_WINDOW_MINUTES)
    started = _when(user, datetime.fromisoformat(since))
    brand = workspaces.brand()
    _mail(
        user,
        brand=brand,
        subject=_("%(brand)s: signing in with your password is paused") % {"brand": brand},
        paragraphs=[
            [
                _(
                    "%(failures)s wrong passwords were given for %(email)s at %(brand)s since "
                    "%(since)s, from %(clients)s different addresses."
                )
                % {
                    "failures": failures,
                    "email": user.email,
                    "brand": brand,
                    "since": started,
                    "clients": clients,
                },
                _(
                    "To protect your account, signing in with its password is paused, even with "
                    "the right password, until %(minutes)s minutes pass without another try."
                )
                % {"minutes": window // 60},
            ],
            [
                _("You can still sign in, with this link:"),
                _link(origin, "accounts:sign-in-link-use", user, sign_in_links),
                _("It works once, until %(until)s. The sign-in page sends another on request.")
                % {"until": _until(user, settings.PASSWORD_RESET_TIMEOUT)},
            ],
            [
                _(
                    "If these were not your tries, someone may be guessing your password: nothing "
                    "was given away. Choosing a new password, here, also ends the pause:"
                ),
                f"{origin.rstrip('/')}{reverse('accounts:password-reset')}",
            ],
        ],
    )
    logger.info("user %s told that their password sign-in is paused", user.pk)
    return True


def sign_in_link_request(*, email: str, origin: str) -> None:
    """Someone asked for a link to sign in as `email`: one is e-mailed when signing in with the
    password is paused for it and it is an active person's address. Nothing says which it was."""
    if not throttle.sign_in_paused(email):
        return
    user = _active_person(email)
    if user is None:
        return
    from apps.accounts.tasks import send_sign_in_link

    send_sign_in_link.delay(user.pk, origin, schema_name=connection.schema_name)


def sign_in_link_send(*, user_id: int, origin: str) -> bool:
    user = _active_by_id(user_id)
    if user is None:
        return False
    brand = workspaces.brand()
    _mail(
        user,
        brand=brand,
        subject=_("%(brand)s: your sign-in link") % {"brand": brand},
        paragraphs=[
            [
                _(
                    "Someone, probably you, asked for a link to sign in to %(brand)s as %(email)s "
                    "while signing in with the password is paused."
                )
                % {"email": user.email, "brand": brand}
            ],
            [_("Sign in here:"), _link(origin, "accounts:sign-in-link-use", user, sign_in_links)],
            [
                _works_once(user),
                _("If you did not ask, ignore this e-mail."),
            ],
        ],
    )
    logger.info("sign-in link e-mailed to user %s", user.pk)
    return True


def sign_in_link_person(*, uidb64: str, token: str) -> User | None:
    """The active person a sign-in link is for, while it works; None for any other link."""
    try:
        user_id = int(urlsafe_base64_decode(uidb64).decode())
    except (ValueError, UnicodeDecodeError):
        return None
    user = User.objects.filter(pk=user_id, is_active=True, role__isnull=False).first()
    if user is None or not sign_in_links.check_token(user, token):
        return None
    return user

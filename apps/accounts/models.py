"""People, roles and personal access tokens. Workspace schema (and, for operators, public)."""

from typing import Any, ClassVar

from django.contrib.auth.models import AbstractBaseUser, BaseUserManager, PermissionsMixin
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.accounts.access import effective_permissions
from apps.core import permissions
from apps.core.actors import Actor
from apps.core.db import connection, this_connection
from apps.core.permissions import Level
from apps.core.times import validate_time_zone
from apps.core.workspaces import current_workspace

# The built-in role of the client portal's external people (apps.platform.portal): it grants no
# permission, so no tool, page or API is theirs; they see what is shared with them on the portal.
PORTAL_ROLE = "portal"


class Role(models.Model):
    """A named set of permissions "<area>.<action>".

    The four system roles grant every permission up to their level (so areas added later extend
    them); custom roles, made by admins, list theirs. The built-in portal role grants none.
    """

    SYSTEM_LEVELS = {"owner": Level.OWNER, "admin": Level.ADMIN, "member": Level.WRITE, "viewer": Level.READ}

    key = models.SlugField(_("key"), max_length=64, unique=True)
    name = models.CharField(_("name"), max_length=100)
    description = models.CharField(_("description"), max_length=300, blank=True)
    is_system = models.BooleanField(_("built in"), default=False)
    permissions = ArrayField(
        models.CharField(max_length=100), default=list, blank=True, verbose_name=_("permissions")
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-is_system", "name"]
        verbose_name = _("role")

    def __str__(self) -> str:
        return self.name

    def granted_permissions(self) -> frozenset[str]:
        if self.key == PORTAL_ROLE:
            return frozenset()
        if self.is_system:
            return permissions.permissions_up_to(self.SYSTEM_LEVELS[self.key])
        return frozenset(code for code in self.permissions if permissions.get_permission(code))

    @property
    def permission_list(self) -> list[str]:
        return sorted(self.granted_permissions())


class UserManager(BaseUserManager["User"]):
    use_in_migrations = True

    def get_by_natural_key(self, username: str | None) -> "User":
        return self.get(email=(username or "").strip().lower())

    def create_user(self, email: str, password: str | None = None, **fields: Any) -> "User":
        user = self.model(email=email.strip().lower(), **fields)
        user.set_password(password)
        user.save(using=self._db)
        return user

    def create_superuser(self, email: str, password: str | None = None, **fields: Any) -> "User":
        fields.update(is_staff=True, is_superuser=True)
        return self.create_user(email, password, **fields)

    def person_by_email(self, email: str) -> "User":
        """The active person of this workspace with this e-mail address (any role), for naming
        someone to share with, hand over to or notify; PersonNotFound otherwise. Code below the
        accounts app reaches it through `get_user_model()` (apps.core.sharing)."""
        from apps.accounts.errors import PersonNotFound

        user = self.filter(email=email.strip().lower(), is_active=True).select_related("role").first()
        if user is None or user.role is None:
            raise PersonNotFound(email=email)
        return user


class User(AbstractBaseUser, PermissionsMixin):
    """A person of one workspace (or, in the public schema, an operator). E-mail is the login."""

    email = models.EmailField(_("email"), max_length=254, unique=True)
    full_name = models.CharField(_("full name"), max_length=150, blank=True)
    # Null only for operators in the public schema; every workspace person has a role.
    role = models.ForeignKey(
        Role, on_delete=models.PROTECT, null=True, blank=True, related_name="users", verbose_name=_("role")
    )
    is_active = models.BooleanField(_("active"), default=True)
    is_staff = models.BooleanField(
        _("operator"), default=False, help_text=_("May sign in to the operators' admin site.")
    )
    date_joined = models.DateTimeField(_("joined"), default=timezone.now)
    # An IANA name; empty: the workspace's zone (which is UTC unless the workspace has one).
    time_zone = models.CharField(
        _("time zone"),
        max_length=64,
        blank=True,
        default="",
        validators=[validate_time_zone],
        help_text=_("The pages show times in this zone. Empty: the workspace's."),
    )

    objects = UserManager()

    USERNAME_FIELD = "email"
    EMAIL_FIELD = "email"
    REQUIRED_FIELDS: ClassVar[list[str]] = []

    class Meta:
        ordering = ["email"]
        verbose_name = _("person")
        verbose_name_plural = _("people")
        constraints = [
            # E-mail addresses are compared without case: store them lower-cased, always.
            models.CheckConstraint(condition=Q(email=Lower("email")), name="accounts_user_email_lower"),
        ]

    def __str__(self) -> str:
        return self.email

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.email = self.email.strip().lower()
        super().save(*args, **kwargs)

    def has_perm(self, perm: str, obj: Any = None) -> bool:
        """In a workspace, roles decide (through `access.can`), superuser flag or not."""
        active = this_connection()
        if active.schema_name == "public":
            return super().has_perm(perm, obj)
        return str(perm) in effective_permissions(self, current_workspace(active))

    def has_module_perms(self, app_label: str) -> bool:
        if connection.schema_name == "public":
            return super().has_module_perms(app_label)
        return any(code.startswith(f"{app_label}.") for code in effective_permissions(self))

    def get_full_name(self) -> str:
        return self.full_name or self.email

    @property
    def is_portal(self) -> bool:
        """An external person of the client portal: signs in here, sees only what is shared with
        them on the portal's pages (apps.accounts.portal keeps them there)."""
        return self.role is not None and self.role.key == PORTAL_ROLE

    def get_short_name(self) -> str:
        return self.full_name.split(" ")[0] if self.full_name else self.email


class PersonalAccessToken(models.Model):
    """SPEC 5.2's `Authorization: Bearer` of the second scheme. Only a digest is stored."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="access_tokens")
    name = models.CharField(_("name"), max_length=100)
    digest = models.CharField(max_length=64, unique=True)
    last_four = models.CharField(max_length=4)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    expires_at = models.DateTimeField(_("expires"))
    last_used_at = models.DateTimeField(_("last used"), null=True, blank=True)
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("personal access token")
        indexes = [models.Index(fields=["expires_at"])]

    def __str__(self) -> str:
        return f"{self.name} (…{self.last_four})"

    @property
    def status(self) -> str:
        if self.revoked_at is not None:
            return "revoked"
        if self.expires_at <= timezone.now():
            return "expired"
        return "active"

    @property
    def is_active(self) -> bool:
        return self.status == "active"


def person(actor: Actor | None) -> User | None:
    """The actor as a row of the user model, for a foreign key that keeps who did something
    (`created_by`, `finished_by`); None when nobody did (the service itself)."""
    return actor if isinstance(actor, User) and actor.pk else None


# --- step-up codes (apps.accounts.otp) --------------------------------------------------------------


class OtpFactor(models.Model):
    """A person's step-up codes: their authenticator app (TOTP, RFC 6238), counted once confirmed
    by a first code, and the wrong codes given in a row, which lock the codes a while."""

    user = models.OneToOneField(User, on_delete=models.CASCADE, related_name="otp_factor")
    # The TOTP secret (base32), Fernet-encrypted (apps.core.encryption); empty: none enrolled.
    totp_secret = models.TextField(blank=True, default="")
    totp_confirmed_at = models.DateTimeField(null=True, blank=True)
    # The last 30-second step a code was accepted for: no code is taken twice within its window.
    totp_last_step = models.BigIntegerField(null=True, blank=True)
    failures = models.PositiveSmallIntegerField(default=0)
    locked_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("step-up factor")

    def __str__(self) -> str:
        return f"step-up codes of {self.user_id}"

    @property
    def has_totp(self) -> bool:
        return bool(self.totp_secret) and self.totp_confirmed_at is not None


class OtpEmailCode(models.Model):
    """A six-digit code e-mailed for a step-up: only its keyed digest is kept; used once."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="otp_email_codes")
    digest = models.CharField(max_length=64)
    sent_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("e-mailed step-up code")
        indexes = [models.Index(fields=["user", "-sent_at"], name="accounts_otp_code_user_sent")]

    def __str__(self) -> str:
        return f"code for {self.user_id} sent {self.sent_at:%Y-%m-%d %H:%M}"


class OtpRecoveryCode(models.Model):
    """One of the ten single-use codes of a person who lost their authenticator app: shown once
    (when the app is set up, or made anew on the profile page); only its keyed digest is kept."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="otp_recovery_codes")
    digest = models.CharField(max_length=64)
    created_at = models.DateTimeField(default=timezone.now)
    used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("step-up recovery code")

    def __str__(self) -> str:
        return f"recovery code of {self.user_id}"


class StepUp(models.Model):
    """A fresh step-up: a right code given by a person through one credential in one session,
    which lets them run HIGH RISK tools there until it expires (the workspace's setting)."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="step_ups")
    # The credential (Principal.credential: "pat:14") and the session (Mcp-Session-Id) it is for.
    credential = models.CharField(max_length=200)
    session_key = models.CharField(max_length=200)
    method = models.CharField(max_length=8)  # "totp" or "email"
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()

    class Meta:
        verbose_name = _("step-up")
        indexes = [
            models.Index(fields=["user", "credential", "session_key"], name="accounts_stepup_lookup"),
        ]

    def __str__(self) -> str:
        return f"step-up of {self.user_id} until {self.expires_at:%Y-%m-%d %H:%M}"

"""Writes about API keys: create, update, revoke, roll the signing secret; the budget ledger
(reserve, settle, release) and usage.

The ledger's rule: every change to a key's money takes the key's row lock first
(`SELECT ... FOR UPDATE`), then reads what it needs, then writes. Reservations of concurrent model
calls are therefore serialised per key, and no two of them can both see room that only one has.
"""

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypedDict, Unpack

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from apps.accounts.models import PersonalAccessToken, User
from apps.accounts.services import access_token_create
from apps.apikeys import clients, errors, selectors, webhooks
from apps.apikeys.models import (
    MAX_BUDGET_USD_CENTS,
    ApiKey,
    BudgetPeriod,
    Reservation,
    UsageDay,
)
from apps.apikeys.periods import local_day
from apps.catalogue import profiles
from apps.core import credentials, encryption, metrics, secrets, spending
from apps.core.actors import Actor
from apps.core.errors import or_not_found
from apps.core.recurrence import workspace_zone

logger = logging.getLogger(__name__)

DEFAULT_LABEL = "API key"
LABEL_MAX_LENGTH = 100
MAX_ROLL_OVERLAP = timedelta(days=7)


def _clean_label(label: Any) -> str:
    if label is None:
        label = ""
    if not isinstance(label, str):
        raise errors.LabelNotText()
    label = label.strip()
    if len(label) > LABEL_MAX_LENGTH:
        raise errors.LabelTooLong(most=LABEL_MAX_LENGTH)
    return label or DEFAULT_LABEL


def _clean_response_url(url: Any) -> str:
    if url is None or url == "":
        return ""
    if not isinstance(url, str):
        raise errors.WebhookUrlNotText()
    return webhooks.check_response_url(url).url


def _clean_budget(cents: Any) -> int | None:
    if cents is None:
        return None
    if isinstance(cents, bool) or not isinstance(cents, int):
        raise errors.BudgetNotCents()
    if not 0 <= cents <= MAX_BUDGET_USD_CENTS:
        raise errors.BudgetOutOfRange(most=MAX_BUDGET_USD_CENTS)
    return cents


def _clean_period(period: Any) -> str:
    if period not in BudgetPeriod.values:
        raise errors.UnknownPeriod(values=", ".join(BudgetPeriod.values))
    return str(period)


def _clean_profile(profile: Any) -> str:
    if profile is None or profile == "":
        return ""
    if not isinstance(profile, str) or profiles.get(profile) is None:
        known = ", ".join(known.key for known in profiles.PROFILES)
        raise errors.UnknownProfile(values=known)
    return profile


class KeyFields(TypedDict, total=False):
    """What a key's owner sets on it, each checked by its cleaner (`_CLEANERS`)."""

    label: Any
    response_url: Any
    budget_usd_cents: Any
    budget_period: Any
    profile: Any


_CLEANERS: dict[str, Callable[[Any], Any]] = {
    "label": _clean_label,
    "response_url": _clean_response_url,
    "budget_usd_cents": _clean_budget,
    "budget_period": _clean_period,
    "profile": _clean_profile,
}


def _cleaned(fields: Mapping[str, Any]) -> dict[str, Any]:
    """The given fields, checked and normalised (in a fixed order: the first refusal is the same
    whatever order they came in)."""
    return {name: clean(fields[name]) for name, clean in _CLEANERS.items() if name in fields}


# --- keys ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CreatedKey:
    key: ApiKey
    # Both shown once, in the create response, and never again.
    raw_key: str
    signing_secret: str


def _new_signing_secret() -> str:
    return secrets.generate(settings.SIGNING_SECRET_PREFIX)


def api_key_create(
    *,
    user: User,
    label: Any = "",
    response_url: Any = "",
    budget_usd_cents: Any = None,
    budget_period: Any = BudgetPeriod.MONTHLY,
    profile: Any = "",
) -> CreatedKey:
    fields = _cleaned(
        {
            "label": label,
            "response_url": response_url,
            "budget_usd_cents": budget_usd_cents,
            "budget_period": budget_period or BudgetPeriod.MONTHLY,
            "profile": profile,
        }
    )
    raw = secrets.generate(settings.API_KEY_PREFIX)
    signing_secret = _new_signing_secret()
    key = ApiKey.objects.create(
        user=user,
        digest=secrets.digest(raw),
        last_four=raw[-4:],
        signing_secret_encrypted=encryption.encrypt(signing_secret),
        **fields,
    )
    logger.info("api key %s created for user %s", key.pk, user.pk)
    return CreatedKey(key=key, raw_key=raw, signing_secret=signing_secret)


def _locked_own(*, key: ApiKey, actor: Actor, any_owner: bool = False) -> ApiKey:
    """The key, row-locked, if `actor` owns it (or `any_owner`: an admin of the workspace's people
    revoking anyone's); another person's key is not found."""
    keys = ApiKey.objects.select_for_update().filter(pk=key.pk)
    return or_not_found((keys if any_owner else keys.filter(user=actor.pk)).first())


@transaction.atomic
def api_key_update(*, actor: Actor, key: ApiKey, **given: Unpack[KeyFields]) -> ApiKey:
    """Changes what is given; what is left out stays as it is."""
    key = _locked_own(key=key, actor=actor)
    if key.revoked_at is not None:
        raise errors.RevokedKeyUnchangeable()
    changed = _cleaned(given)
    for name, value in changed.items():
        setattr(key, name, value)
    if changed:
        key.save(update_fields=[*changed, "updated_at"])
        # A door that keeps the credential keeps what the key was (its profile, its budget).
        credentials.revoked(user_ids=[key.user_id])
        logger.info("api key %s changed (%s)", key.pk, ", ".join(changed))
    return key


@transaction.atomic
def api_key_revoke(*, actor: Actor, key: ApiKey, any_owner: bool = False) -> ApiKey:
    """Revoking is for good; the key is kept (its usage is history) and refused with KEY_REVOKED.
    Revoking a revoked key changes nothing. `any_owner`: the caller (who checked the actor's
    right to) revokes another person's key."""
    key = _locked_own(key=key, actor=actor, any_owner=any_owner)
    if key.revoked_at is None:
        key.revoked_at = timezone.now()
        key.save(update_fields=["revoked_at", "updated_at"])
        credentials.revoked(user_ids=[key.user_id])
        logger.info("api key %s revoked", key.pk)
    return key


@transaction.atomic
def signing_secret_roll(
    *, actor: Actor, key: ApiKey, overlap: timedelta | None = None, now: datetime | None = None
) -> tuple[ApiKey, str]:
    """A new signing secret, returned once. The old one keeps signing beside it (header
    X-Signature-Previous) for `overlap` (default: settings.SIGNING_SECRET_ROLL_OVERLAP_HOURS), so
    receivers can switch without losing a webhook."""
    now = now or timezone.now()
    if overlap is None:
        overlap = timedelta(hours=settings.SIGNING_SECRET_ROLL_OVERLAP_HOURS)
    if not timedelta(0) <= overlap <= MAX_ROLL_OVERLAP:
        raise errors.OverlapOutOfRange()
    key = _locked_own(key=key, actor=actor)
    if key.revoked_at is not None:
        raise errors.KeyRevoked()
    new_secret = _new_signing_secret()
    if overlap > timedelta(0):
        key.previous_signing_secret_encrypted = key.signing_secret_encrypted
        key.previous_signing_secret_expires_at = now + overlap
    else:
        key.previous_signing_secret_encrypted = ""
        key.previous_signing_secret_expires_at = None
    key.signing_secret_encrypted = encryption.encrypt(new_secret)
    key.signing_secret_rolled_at = now
    key.save(
        update_fields=[
            "previous_signing_secret_encrypted",
            "previous_signing_secret_expires_at",
            "signing_secret_encrypted",
            "signing_secret_rolled_at",
            "updated_at",
        ]
    )
    logger.info("api key %s: signing secret rolled", key.pk)
    return key, new_secret


def signing_secrets(*, key: ApiKey, now: datetime | None = None) -> list[str]:
    """The secrets that sign this key's webhooks now: the current one first, then the previous one
    while its overlap lasts."""
    found = [encryption.decrypt(key.signing_secret_encrypted)]
    if key.has_previous_secret(now):
        found.append(encryption.decrypt(key.previous_signing_secret_encrypted))
    return found


def webhook_signature_headers(*, key: ApiKey, body: bytes, now: datetime | None = None) -> dict[str, str]:
    """The signature headers of one webhook delivery (SPEC 5.3): `X-Signature` with the current
    secret and, during a roll's overlap, `X-Signature-Previous` with the old one."""
    current, *previous = signing_secrets(key=key, now=now)
    headers = {"X-Signature": webhooks.signature(current, body)}
    if previous:
        headers["X-Signature-Previous"] = webhooks.signature(previous[0], body)
    return headers


def api_key_touch(*, key: ApiKey, now: datetime | None = None) -> None:
    now = now or timezone.now()
    if key.last_used_at is None or now - key.last_used_at > credentials.LAST_USED_EVERY:
        ApiKey.objects.filter(pk=key.pk).update(last_used_at=now)
        key.last_used_at = now


# --- the budget ledger --------------------------------------------------------------------------


def _money(micro_usd: int) -> str:
    return f"${micro_usd / 1_000_000:,.2f}"


def budget_exceeded_error(
    *, key: ApiKey, status: selectors.BudgetStatus, now: datetime, wanted_micro_usd: int = 0
) -> errors.BudgetExceeded:
    """SPEC 7.1's 429 BUDGET_EXCEEDED, saying when the budget resets (and Retry-After)."""
    resets_at = status.period.resets_at
    zone = workspace_zone()
    budget, left = _money(status.budget_micro_usd or 0), _money(status.remaining_micro_usd or 0)
    wanted = _money(wanted_micro_usd)
    when = resets_at.astimezone(zone).isoformat() if resets_at else ""
    details = {
        "budget_usd_cents": key.budget_usd_cents,
        "budget_period": key.budget_period,
        "spent_micro_usd": status.spent_micro_usd,
        "reserved_micro_usd": status.reserved_micro_usd,
        "resets_at": when or None,
    }
    spent = status.is_spent or not wanted_micro_usd
    if resets_at is None:
        if spent:
            return errors.TotalBudgetSpent(budget=budget, details=details)
        return errors.TotalBudgetShort(left=left, wanted=wanted, details=details)
    # Retry-After: when the period's budget comes back.
    headers = {"Retry-After": str(max(1, int((resets_at - now).total_seconds() + 0.999)))}
    period = status.period.kind
    if spent:
        return errors.PeriodBudgetSpent(
            period=period, budget=budget, when=when, zone=zone.key, headers=headers, details=details
        )
    return errors.PeriodBudgetShort(
        period=period, left=left, wanted=wanted, when=when, zone=zone.key, headers=headers, details=details
    )


def _usage_add(
    *,
    key_id: int,
    day: Any,
    spent_micro_usd: int = 0,
    calls: int = 0,
    conversations: int = 0,
    input_tokens: int = 0,
    output_tokens: int = 0,
) -> None:
    """Adds to one key's row of one day, creating it if needed, in one statement."""
    table = connection.ops.quote_name(UsageDay._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            INSERT INTO {table}
                (key_id, day, spent_micro_usd, calls, conversations, input_tokens, output_tokens)
            VALUES (%s, %s, %s, %s, %s, %s, %s)
            ON CONFLICT (key_id, day) DO UPDATE SET
                spent_micro_usd = {table}.spent_micro_usd + EXCLUDED.spent_micro_usd,
                calls = {table}.calls + EXCLUDED.calls,
                conversations = {table}.conversations + EXCLUDED.conversations,
                input_tokens = {table}.input_tokens + EXCLUDED.input_tokens,
                output_tokens = {table}.output_tokens + EXCLUDED.output_tokens
            """,  # noqa: S608  (the table name is ours; values are parameters)
            [key_id, day, spent_micro_usd, calls, conversations, input_tokens, output_tokens],
        )


def _key_id(key: ApiKey | int) -> int:
    return key if isinstance(key, int) else key.pk


@transaction.atomic
def budget_reserve(
    *,
    key: ApiKey | int,
    micro_usd: int,
    purpose: str = "",
    ttl: timedelta | None = None,
    now: datetime | None = None,
) -> Reservation:
    """Holds `micro_usd` (the most a model call can cost) against the key's budget, or raises
    BudgetExceeded (KeyRevoked for a revoked key). Settle or release it when the call ends; one
    left open past `ttl` is released by the sweeper."""
    if isinstance(micro_usd, bool) or not isinstance(micro_usd, int) or micro_usd < 0:
        raise ValueError("micro_usd must be a non-negative integer")
    now = now or timezone.now()
    locked = ApiKey.objects.select_for_update().get(pk=_key_id(key))
    if locked.revoked_at is not None:
        raise errors.KeyRevoked()
    status = selectors.budget_status(key=locked, now=now)
    if not status.fits(micro_usd):
        metrics.budget_event("exceeded")
        raise budget_exceeded_error(key=locked, status=status, now=now, wanted_micro_usd=micro_usd)
    ApiKey.objects.filter(pk=locked.pk).update(reserved_micro_usd=F("reserved_micro_usd") + micro_usd)
    transaction.on_commit(lambda: metrics.budget_event("reserved", microdollars=micro_usd))
    ttl = ttl or timedelta(seconds=settings.BUDGET_RESERVATION_TTL_SECONDS)
    return Reservation.objects.create(
        key=locked,
        amount_micro_usd=micro_usd,
        day=local_day(now, workspace_zone()),
        purpose=purpose[:200],
        expires_at=now + ttl,
    )


@transaction.atomic
def budget_settle(
    *,
    reservation: Reservation | int,
    micro_usd: int,
    now: datetime | None = None,
    input_tokens: int = 0,
    output_tokens: int = 0,
) -> Reservation:
    """Records the real cost of the call a reservation was for and frees the reservation, with
    the tokens the model's API reported for it (the key's day counts them: getBillingSummary).

    The cost is recorded even when it exceeds the reservation (money spent is spent: the budget
    then shows it, and further calls are refused) or when the sweeper already released the
    reservation (a slow worker, not a dead one). Settling twice records the cost once.
    """
    if isinstance(micro_usd, bool) or not isinstance(micro_usd, int) or micro_usd < 0:
        raise ValueError("micro_usd must be a non-negative integer")
    now = now or timezone.now()
    reservation_id = reservation if isinstance(reservation, int) else reservation.pk
    key_id = Reservation.objects.values_list("key_id", flat=True).get(pk=reservation_id)
    ApiKey.objects.select_for_update().filter(pk=key_id).values_list("pk").get()
    current = Reservation.objects.get(pk=reservation_id)
    if current.state == Reservation.State.SETTLED:
        return current
    held = current.amount_micro_usd if current.state == Reservation.State.RESERVED else 0
    ApiKey.objects.filter(pk=key_id).update(
        reserved_micro_usd=F("reserved_micro_usd") - held,
        spent_micro_usd=F("spent_micro_usd") + micro_usd,
        last_used_at=now,
    )
    _usage_add(
        key_id=key_id,
        day=current.day,
        spent_micro_usd=micro_usd,
        calls=1,
        input_tokens=max(0, int(input_tokens)),
        output_tokens=max(0, int(output_tokens)),
    )
    # What was held is either charged (settled) or given back (released): reserved = settled + released.
    charged = min(micro_usd, held) if held else 0
    transaction.on_commit(lambda: metrics.budget_event("settled", microdollars=micro_usd))
    if held > charged:
        transaction.on_commit(lambda: metrics.budget_event("released", microdollars=held - charged))
    current.state = Reservation.State.SETTLED
    current.cost_micro_usd = micro_usd
    current.finished_at = now
    current.save(update_fields=["state", "cost_micro_usd", "finished_at"])
    # Kept by the dispatcher around a tool's transaction: if the tool fails after this, its
    # rollback takes this settling with it, and the call is charged again (budget_charge_again).
    spending.charged(
        spending.Charge(
            key_id=key_id,
            micro_usd=micro_usd,
            input_tokens=max(0, int(input_tokens)),
            output_tokens=max(0, int(output_tokens)),
            day=current.day,
            purpose=current.purpose,
        )
    )
    return current


@transaction.atomic
def budget_charge_again(*, charge: spending.Charge, now: datetime | None = None) -> Reservation | None:
    """A settled call whose transaction rolled back (the tool that made it failed after the call)
    charged to its key again: the model was called, so the key pays, on the day the call was
    allowed, with a settled reservation of nothing held for the trail. None when the key has been
    deleted since. Noted like a settling (`spending.charged`): a rollback further out charges it
    again in turn."""
    now = now or timezone.now()
    if not ApiKey.objects.select_for_update().filter(pk=charge.key_id).exists():
        return None
    ApiKey.objects.filter(pk=charge.key_id).update(
        spent_micro_usd=F("spent_micro_usd") + charge.micro_usd, last_used_at=now
    )
    _usage_add(
        key_id=charge.key_id,
        day=charge.day,
        spent_micro_usd=charge.micro_usd,
        calls=1,
        input_tokens=charge.input_tokens,
        output_tokens=charge.output_tokens,
    )
    transaction.on_commit(lambda: metrics.budget_event("settled", microdollars=charge.micro_usd))
    spending.charged(charge)
    return Reservation.objects.create(
        key_id=charge.key_id,
        amount_micro_usd=0,
        cost_micro_usd=charge.micro_usd,
        state=Reservation.State.SETTLED,
        day=charge.day,
        purpose=charge.purpose,
        expires_at=now,
        finished_at=now,
    )


def _release(reservation_id: int, now: datetime) -> tuple[Reservation, bool]:
    with transaction.atomic():
        key_id = Reservation.objects.values_list("key_id", flat=True).get(pk=reservation_id)
        ApiKey.objects.select_for_update().filter(pk=key_id).values_list("pk").get()
        current = Reservation.objects.get(pk=reservation_id)
        if current.state != Reservation.State.RESERVED:
            return current, False
        ApiKey.objects.filter(pk=key_id).update(
            reserved_micro_usd=F("reserved_micro_usd") - current.amount_micro_usd
        )
        amount = current.amount_micro_usd
        transaction.on_commit(lambda: metrics.budget_event("released", microdollars=amount))
        current.state = Reservation.State.RELEASED
        current.finished_at = now
        current.save(update_fields=["state", "finished_at"])
        return current, True


def budget_release(*, reservation: Reservation | int, now: datetime | None = None) -> Reservation:
    """Frees a reservation whose call cost nothing (it failed before reaching the model, or was
    cancelled). Releasing a settled or released reservation changes nothing."""
    reservation_id = reservation if isinstance(reservation, int) else reservation.pk
    return _release(reservation_id, now or timezone.now())[0]


def budget_release_expired(*, now: datetime | None = None) -> int:
    """Releases reservations left open past their time (their worker died). Returns how many."""
    now = now or timezone.now()
    stale = Reservation.objects.filter(state=Reservation.State.RESERVED, expires_at__lt=now)
    released = sum(_release(pk, now)[1] for pk in list(stale.values_list("pk", flat=True)[:10_000]))
    if released:
        logger.warning("released %s budget reservations left by workers that stopped", released)
    return released


def usage_record_conversation(*, key: ApiKey | int, now: datetime | None = None) -> None:
    """Counts one gateway conversation on the key's usage of today (the usage screen shows it)."""
    now = now or timezone.now()
    key_id = _key_id(key)
    _usage_add(key_id=key_id, day=local_day(now, workspace_zone()), conversations=1)
    ApiKey.objects.filter(pk=key_id).update(last_used_at=now)


# --- quick-setup (SPEC 4.2) ---------------------------------------------------------------------


@dataclass(frozen=True)
class QuickSetup:
    client: clients.ClientKind
    server_name: str
    mcp_url: str
    token: PersonalAccessToken
    raw_token: str
    created: CreatedKey
    config: dict[str, Any]
    # The command line that adds the server, for clients that have one ("" otherwise).
    command: str


def unknown_client_error(client: Any) -> errors.UnknownClient:
    return errors.UnknownClient(client=client, names=", ".join(clients.names()))


@transaction.atomic
def quick_setup(
    *, user: User, client: str, base_url: str, server_name: str, label: str = "", profile: Any = None
) -> QuickSetup:
    """A fresh personal access token and API key, and the configuration that connects `client` to
    this workspace's MCP endpoint with them. Both secrets are shown once, in what this returns.
    With a `profile` (None: the one preselected for the client, "": none), the key is pinned to it
    and the URL names it."""
    kind = clients.get(client)
    if kind is None:
        raise unknown_client_error(client)
    if profile is None:
        profile = kind.profile
    label = (label or "").strip()[:80] or f"{kind.title} ({timezone.localdate():%Y-%m-%d})"
    created = api_key_create(user=user, label=label, profile=profile)
    token, raw_token = access_token_create(user=user, name=f"Quick setup: {label}"[:100])
    mcp_url = f"{base_url.rstrip('/')}/api/mcp"
    if created.key.profile:
        mcp_url = f"{mcp_url}?profile={created.key.profile}"
    server = clients.Server(
        name=server_name,
        url=mcp_url,
        headers={"Authorization": f"Bearer {raw_token}", "X-Api-Key": created.raw_key},
    )
    logger.info(
        "quick setup (%s) for user %s: token %s, key %s", kind.name, user.pk, token.pk, created.key.pk
    )
    return QuickSetup(
        client=kind,
        server_name=server_name,
        mcp_url=mcp_url,
        token=token,
        raw_token=raw_token,
        created=created,
        config=kind.build(server),
        command=kind.command(server) if kind.command is not None else "",
    )

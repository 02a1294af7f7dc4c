"""Spare workspace schemas: copies of the template made ahead of time by a worker, so creating a
workspace renames one (`ALTER SCHEMA ... RENAME`, a catalogue update) instead of copying ~270
tables, their constraints and indexes while someone waits.

A spare records the fingerprint of the template's applied migrations it was copied from; a spare
whose fingerprint is no longer the template's (a migration ran since) is never claimed, and the
next fill drops it. `settings.ATRIUM_SPARE_SCHEMAS` spares are kept (0 turns the pool off:
workspaces are then copied on demand, as `Workspace.create_schema` does when none is left).

A copy costs the database server a second or so of CPU, and a creation that claims a spare costs
a fifth of that, most of it the owner's password hash, which wants every core. So while
workspaces are being created (one in the last `settings.ATRIUM_SPARE_FILL_QUIET_SECONDS`), the
pool is topped up only when fewer than a quarter of it (or two) are ready (`low_water`): a burst
of sign-ups takes spares at a claim's cost, and the copies follow in the quiet after it (the fill
asked for after each creation runs once that much time has passed; beat's, every 10 minutes, too).
"""

import logging
import math
import secrets
from datetime import timedelta

from django.conf import settings
from django.db import models, transaction
from django.utils import timezone
from django_tenants.utils import get_tenant_base_schema, schema_exists

from apps.core import servers
from apps.core.db import connection
from apps.tenancy import cloning
from apps.tenancy.models import SpareSchema, Workspace

logger = logging.getLogger(__name__)

PREFIX = "spare_"
# One filler at a time across every worker (a session-level advisory lock, released at the end).
FILL_LOCK = 0x5A7E5C4E


def fingerprint() -> str:
    """What the template schema is now: a digest of its applied migrations."""
    return cloning.fingerprint(get_tenant_base_schema())


def claim(target: str) -> bool:
    """Renames a spare copy of the current template to `target`, in the caller's transaction (a
    rollback gives the spare back). False when none is ready."""
    if not settings.ATRIUM_SPARE_SCHEMAS or not schema_exists(get_tenant_base_schema()):
        return False
    # The template's version read once its migration, if one is running, has committed.
    cloning.hold_template(get_tenant_base_schema())
    spare = (
        SpareSchema.objects.select_for_update(skip_locked=True)
        .filter(fingerprint=fingerprint())
        .order_by("created_at")
        .first()
    )
    if spare is None:
        return False
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(f"ALTER SCHEMA {quote(spare.name)} RENAME TO {quote(target)}")
    spare.delete()
    return True


def request_fill() -> None:
    """Asks a worker to top the pool up (after each creation on the primary, outside any
    transaction): now, which copies only if the pool runs low, and once the quiet time has
    passed, which fills it."""
    from apps.tenancy.tasks import fill_spare_schemas

    quiet = settings.ATRIUM_SPARE_FILL_QUIET_SECONDS
    try:
        fill_spare_schemas.delay()
        if quiet:
            # A second more: the creation's own row, saved before its commit, is that much older.
            fill_spare_schemas.apply_async(countdown=quiet + 1)
    except Exception:  # the broker down costs a slower next creation, nothing more
        logger.warning("could not ask a worker to refill the spare schemas", exc_info=True)


def ready() -> bool:
    """Whether a spare of the current template is there to claim: a guess (another creation may
    claim it first), not a promise."""
    # Without a template its fingerprint is "", which no spare has.
    if not settings.ATRIUM_SPARE_SCHEMAS:
        return False
    return SpareSchema.objects.filter(fingerprint=fingerprint()).exists()


def low_water(wanted: int) -> int:
    """Below this many spares the pool is topped up even while workspaces are being created: a
    quarter of it, and never fewer than two (a small pool yielding would only leave creations to
    copy the template themselves, one core idle)."""
    return max(2, math.ceil(wanted / 4))


def creating() -> bool:
    """Whether a workspace was created on the primary (the spares' server) in the last
    ATRIUM_SPARE_FILL_QUIET_SECONDS."""
    quiet = settings.ATRIUM_SPARE_FILL_QUIET_SECONDS
    if not quiet:
        return False
    since = timezone.now() - timedelta(seconds=quiet)
    return Workspace.objects.filter(database=servers.PRIMARY, created_at__gt=since).exists()


def wants_copy(ready_now: int, wanted: int) -> bool:
    """Whether the filler makes another copy: the pool is short, and either quiet or low."""
    return ready_now < wanted and (ready_now < low_water(wanted) or not creating())


def fill(count: int | None = None) -> int:
    """Drops spares of an older template, then copies the template until `count` spares (default
    ATRIUM_SPARE_SCHEMAS) are ready, yielding to creations while `low_water` of them are
    (`wants_copy`). Returns how many it made; 0 if another filler holds the lock."""
    wanted = settings.ATRIUM_SPARE_SCHEMAS if count is None else count
    base = get_tenant_base_schema()
    if not schema_exists(base):
        return 0
    # Row by row, by any filler: another's lock held across its copies does not keep these.
    drop(SpareSchema.objects.exclude(fingerprint=fingerprint()))
    if not wants_copy(SpareSchema.objects.count(), wanted):
        return 0  # before the new connection below, which a creation would wait for
    # Before the lock, which is the session's: the copies below keep no plans of their own.
    cloning.fresh_backend()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [FILL_LOCK])
        if not cursor.fetchone()[0]:
            return 0
    made = 0
    try:
        while wants_copy(SpareSchema.objects.count(), wanted):
            name = PREFIX + secrets.token_hex(8)
            with transaction.atomic():
                # A spare lost in a crash is only a copy to make again: its commit need not wait
                # for the disk.
                with connection.cursor() as cursor:
                    cursor.execute("SET LOCAL synchronous_commit TO off")
                cloning.clone_schema(base, name)
                # Read after the copy, which holds the template's version (`hold_template`), so
                # a migration committed while this filler ran names what was copied.
                SpareSchema.objects.create(name=name, fingerprint=fingerprint())
            made += 1
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [FILL_LOCK])
    if made:
        logger.info("%d spare workspace schemas made", made)
    return made


def drop(spares: "models.QuerySet[SpareSchema]") -> int:
    """Drops `spares` (those of an older template), but any being claimed right now."""
    dropped = 0
    for spare in spares:
        with transaction.atomic():
            locked = SpareSchema.objects.select_for_update(skip_locked=True).filter(pk=spare.pk).first()
            if locked is None:  # being claimed right now
                continue
            with connection.cursor() as cursor:
                cursor.execute(f"DROP SCHEMA IF EXISTS {connection.ops.quote_name(locked.name)} CASCADE")
            locked.delete()
            dropped += 1
    return dropped

"""What an area may know of the service's API keys and of what they spent, without importing
the door that keeps them: the API-keys app fills this interface from its `AppConfig.ready()`.

Tasks ask whether a key may pay for a task's agent steps (`key_of`); Group Accounts show the
workspace's spend (`spend`); Platform lists keys with their budgets and use, and revokes one
(`listed`, `revoke`), and sums their use between two days (`used_between`).

A model call made inside a tool is paid for even when the tool then fails: the meter notes each
cost it settles (`charged`), the dispatcher collects them around the tool's transaction
(`collected`), and when that transaction rolled back it has the keys charged again
(`charge_again`), since the call was made all the same (a refused answer is no way round a budget).
A tool's model call is metered on the ledger's own connection where it can be (apps.apikeys.apart):
its charges are committed already, and marked `apart`, never charged again.

The rates the meter prices model calls with are the gateway's (its configured prices, USD per
million tokens): it fills `rates()` from its `AppConfig.ready()`, so that what a tool says a call
costs is what the meter charges, read from the one place the meter reads.
"""

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Protocol

from django.db import DatabaseError

from apps.core.actors import Actor

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class KeyInfo:
    id: int
    label: str
    active: bool
    owner_id: int

    @property
    def status(self) -> str:
        return "active" if self.active else "revoked"


@dataclass(frozen=True)
class SpendSummary:
    today_micro_usd: int
    this_month_micro_usd: int
    total_micro_usd: int
    reserved_micro_usd: int
    active_keys: int


@dataclass(frozen=True)
class KeyListing:
    """A key as a list shows it: never its secret, only its last four characters."""

    id: int
    label: str
    owner_id: int
    owner_email: str
    last_four: str
    profile: str
    budget_usd_cents: int | None
    budget_period: str
    spent_in_period_micro_usd: int
    spent_total_micro_usd: int
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None


@dataclass(frozen=True)
class KeyUse:
    """What one key spent between two days (the workspace's calendar, both included)."""

    id: int
    label: str
    owner_email: str
    active: bool
    budget_usd_cents: int | None
    budget_period: str
    spent_in_period_micro_usd: int
    spent_micro_usd: int
    model_calls: int
    conversations: int
    input_tokens: int = 0
    output_tokens: int = 0


@dataclass(frozen=True)
class Charge:
    """A model call's cost as the meter settled it against a key, in a transaction that may yet
    roll back (no content: what the trail of reservations keeps)."""

    key_id: int
    micro_usd: int
    input_tokens: int
    output_tokens: int
    # The workspace-local day the spend counts on (the day the call was allowed).
    day: date
    purpose: str
    # Settled on the ledger's own connection, committed already (apps.apikeys.apart): no rollback
    # of the caller's takes it, so it is never charged again.
    apart: bool = False


class Keys(Protocol):
    def key_of(self, *, key_id: int, owner_id: int | None = None) -> KeyInfo | None:
        """The key `key_id` (revoked or not), when it belongs to the person `owner_id` if given."""
        ...

    def spend(self, *, user: Actor | None = None) -> SpendSummary:
        """What the workspace (or one person's keys) spent: today, this month, in total."""
        ...

    def listed(self, *, owner_id: int | None, active_only: bool = False) -> list[KeyListing]:
        """The keys of the person `owner_id` (None: everyone's), newest first."""
        ...

    def revoke(self, *, actor: Actor, key_id: int, any_owner: bool = False) -> KeyListing | None:
        """Revokes the key for good, at once for every door and process: `actor`'s own, or anyone's
        with `any_owner`. None: no such key (of theirs). A revoked key stays as it was."""
        ...

    def used_between(self, *, start: date, end: date, owner_id: int | None = None) -> list[KeyUse]:
        """Every key's use from `start` to `end` (the person `owner_id`'s only, if given), those
        used first; keys unused then are listed too, with zeros."""
        ...

    def charge_again(self, charge: Charge) -> None:
        """Charges `charge` to its key once more, its settling having been rolled back (a key
        deleted since: nothing). Noted in turn (`charged`): a rollback further out charges it again."""
        ...


_keys: Keys | None = None


def register(keys: Keys) -> None:
    global _keys
    _keys = keys


def keys() -> Keys:
    if _keys is None:
        raise LookupError("no API keys are installed (apps.apikeys registers them)")
    return _keys


# The charges settled inside the innermost `collected` block of this thread or task.
_collecting: ContextVar[list[Charge] | None] = ContextVar("spending_collecting", default=None)


def charged(charge: Charge) -> None:
    """Noted by the meter as it settles a call: kept by the `collected` block around it, if any."""
    collecting = _collecting.get()
    if collecting is not None:
        collecting.append(charge)


@contextmanager
def collected() -> Iterator[list[Charge]]:
    """The charges settled inside the block. Put it around a transaction: when the block ends
    with an error, that transaction rolled back and took them with it (`charge_again` them);
    otherwise they stand, and a `collected` block further out keeps them too. Charges settled
    `apart` stand either way: a block further out keeps them even when this one failed."""
    outer = _collecting.get()
    mine: list[Charge] = []
    token = _collecting.set(mine)
    failed = True
    try:
        yield mine
        failed = False
    finally:
        _collecting.reset(token)
        if outer is not None:
            outer.extend(charge for charge in mine if charge.apart or not failed)


def charge_again(charges: list[Charge]) -> None:
    """Each of `charges`, whose transaction rolled back, charged to its key once more. Called while
    another error is being answered: a failure here is logged (with the money it concerns), never
    raised over that error."""
    for charge in charges:
        if charge.apart:
            continue
        try:
            keys().charge_again(charge)
        except (DatabaseError, LookupError):
            logger.exception(
                "a model call's cost of %d µUSD could not be charged to API key %s again after its "
                "tool failed (%s)",
                charge.micro_usd,
                charge.key_id,
                charge.purpose,
            )


@dataclass(frozen=True)
class ModelRate:
    """What the meter charges for one model's tokens: USD per million (micro-dollars per token)."""

    model: str
    input: Decimal
    output: Decimal
    cache_read: Decimal
    cache_write: Decimal
    # The model the gateway's agent calls now (the others are priced, not called).
    in_use: bool


_rates: Callable[[], list[ModelRate]] | None = None


def register_rates(rates: Callable[[], list[ModelRate]]) -> None:
    global _rates
    _rates = rates


def rates() -> list[ModelRate]:
    """The model rates the meter prices with, the one in use first; empty: no door meters models."""
    return _rates() if _rates is not None else []

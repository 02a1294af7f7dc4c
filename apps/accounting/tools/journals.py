"""Period close: the lock date, manual journals (posted, approved, reversed) and the journal entries."""

from datetime import date
from decimal import Decimal
from typing import Annotated, Literal

from django.utils import timezone
from pydantic import Field

from apps.accounting.lib import ledger
from apps.accounting.lib.money import currency_code, round_money
from apps.accounting.models import Account, DraftJournal, JournalEntry, JournalLine
from apps.accounting.permissions import AccountingPerm
from apps.accounting.selectors import journals as selectors
from apps.accounting.services import journals
from apps.accounting.shapes import Amount
from apps.accounting.tools.common import Currency, Decimalish
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import In, Limit, Offset, Out, Page, id_field, paginate
from apps.core.clean import plain

ZERO = Decimal(0)
EntryId = Annotated[int, id_field("listJournals")]
DraftId = Annotated[
    int, id_field("listJournals", description="A draft journal's id (status awaiting_approval)")
]
Narration = Annotated[str, Field(min_length=1, max_length=300, description="Why: shown on the entry")]


# --- setLockDate ------------------------------------------------------------------------------------


class LockDateOut(Out):
    lock_date: date | None = Field(description="Nothing posts on or before it")
    previous: date | None


@tool("setLockDate", permission=AccountingPerm.ADMIN, title="Set the lock date", idempotent=True)
def set_lock_date(
    ctx: ToolContext,
    *,
    lock_date: Annotated[date | None, Field(description="Close up to this day; null reopens all")],
) -> LockDateOut:
    """Close the books up to a day (nothing posts on or before it); getAccountingSummary shows it."""
    previous = journals.lock_date_set(actor=ctx.actor, lock_date=lock_date)
    return LockDateOut(lock_date=ledger.books().lock_date, previous=previous)


class DutiesOut(Out):
    separate_duties: bool = Field(description="On: a document's creator may not approve or post it")
    previous: bool


@tool(
    "setSeparationOfDuties",
    permission=AccountingPerm.ADMIN,
    title="Separate creating from approving",
    idempotent=True,
)
def set_separation_of_duties(
    ctx: ToolContext,
    *,
    on: Annotated[bool, Field(description="True: another person must approve")],
) -> DutiesOut:
    """Require that who created an invoice, credit note or bill is not who approves or posts it."""
    previous = journals.duties_set(actor=ctx.actor, on=on)
    return DutiesOut(separate_duties=ledger.books().separate_duties, previous=previous)


# --- journal entries --------------------------------------------------------------------------------


class JournalLineOut(Out):
    account: str
    account_name: str
    debit: Amount
    credit: Amount
    base_amount: Amount | None = Field(description="Signed (debit positive), base currency; null on a draft")
    description: str

    @classmethod
    def of(cls, line: JournalLine, currency: str, base: str) -> "JournalLineOut":
        amount = round_money(line.amount, currency)
        return cls(
            account=line.account.code,
            account_name=line.account.name,
            debit=amount if amount > 0 else round_money(ZERO, currency),
            credit=-amount if amount < 0 else round_money(ZERO, currency),
            base_amount=round_money(line.base_amount, base),
            description=line.description,
        )


class JournalOut(Out):
    id: int = Field(description="The entry's id; a draft's own id (approveJournal, discardJournal)")
    status: Literal["posted", "awaiting_approval", "discarded"] = Field(
        description="posted; a draft journal awaiting another person's approval, or discarded"
    )
    date: date
    journal: str = Field(description="SAL, PUR, BNK or GEN")
    narration: str
    source: str = Field(description="manual, or what posted it (invoice:12, bill:3)")
    currency: str
    rate: Amount | None = Field(description="Base currency per unit; null on a draft")
    reverses: int | None = Field(description="Entry it reverses")
    reversed_by: int | None = Field(description="Entry reversing it")
    lines: list[JournalLineOut]

    @classmethod
    def of(cls, entry: JournalEntry) -> "JournalOut":
        base = ledger.books().base_currency
        reversal = JournalEntry.objects.filter(reverses=entry).values_list("pk", flat=True).first()
        return cls(
            id=entry.pk,
            status="posted",
            date=entry.date,
            journal=entry.journal.code,
            narration=entry.memo,
            source=entry.source,
            currency=entry.currency,
            rate=plain(entry.rate),
            reverses=entry.reverses_id,
            reversed_by=reversal,
            lines=[
                JournalLineOut.of(line, entry.currency, base)
                for line in entry.lines.select_related("account")
            ],
        )

    @classmethod
    def of_draft(cls, draft: DraftJournal) -> "JournalOut":
        lines = journals.draft_lines(draft)
        names = dict(
            Account.objects.filter(code__in=[line.account for line in lines]).values_list("code", "name")
        )
        return cls(
            id=draft.pk,
            status=draft.status,  # type: ignore[arg-type]
            date=draft.date,
            journal=journals.JOURNAL,
            narration=draft.narration,
            source=journals.MANUAL,
            currency=draft.currency,
            rate=None,
            reverses=None,
            reversed_by=None,
            lines=[
                JournalLineOut(
                    account=line.account,
                    account_name=names.get(line.account, ""),
                    debit=round_money(line.debit, draft.currency),
                    credit=round_money(line.credit, draft.currency),
                    base_amount=None,
                    description=line.description or draft.narration,
                )
                for line in lines
            ],
        )

    @classmethod
    def of_any(cls, row: "JournalEntry | DraftJournal") -> "JournalOut":
        return cls.of_draft(row) if isinstance(row, DraftJournal) else cls.of(row)


class JournalLineIn(In):
    account: Annotated[str, Field(min_length=1, max_length=10, description="Account code")]
    debit: Decimalish = ZERO
    credit: Decimalish = ZERO
    description: Annotated[str, Field(max_length=300, description="Default: the narration")] = ""


class PostedJournalOut(JournalOut):
    reversal: JournalOut | None = Field(description="Posted for reverseOn")
    reverse_on: date | None = Field(description="Its reversal's day, posted with it")
    note: str = Field(description="What happened: posted, or saved as a draft awaiting approval")

    @classmethod
    def answer(cls, row: "JournalEntry | DraftJournal") -> "PostedJournalOut":
        if isinstance(row, DraftJournal):
            note = (
                f"Not posted: the books separate duties, so it was saved as draft journal {row.pk}, "
                "awaiting approval. Another person with accounting.post posts it with approveJournal "
                "(or discards it with discardJournal)."
            )
            return cls(
                **JournalOut.of_draft(row).model_dump(), reversal=None, reverse_on=row.reverse_on, note=note
            )
        reversal = JournalEntry.objects.filter(reverses=row).first()
        return cls(
            **JournalOut.of(row).model_dump(),
            reversal=JournalOut.of(reversal) if reversal else None,
            reverse_on=reversal.date if reversal else None,
            note=f"Posted as entry {row.pk}.",
        )


@tool("postJournal", permission=AccountingPerm.POST, title="Post a manual journal", markers=Marker.HIGH_RISK)
def post_journal(
    ctx: ToolContext,
    *,
    on: Annotated[date, Field(description="Its date; not in a locked period")],
    narration: Narration,
    lines: Annotated[
        list[JournalLineIn], Field(min_length=2, max_length=100, description="Debits must equal credits")
    ],
    currency: Currency | None = None,
    reverse_on: Annotated[
        date | None, Field(description="Also post its reversal that day (accruals)")
    ] = None,
) -> PostedJournalOut:
    """Post a balanced manual journal (accrual, prepayment, correction); reverseJournal undoes one."""
    made = journals.journal_post(
        actor=ctx.actor,
        day=on,
        narration=narration,
        lines=[
            journals.JournalLineData(line.account, line.debit, line.credit, line.description.strip())
            for line in lines
        ],
        currency=currency_code(currency) if currency else None,
        reverse_on=reverse_on,
    )
    return PostedJournalOut.answer(made)


def _approve_checked(ctx: ToolContext, *, draft_id: int) -> bool:
    """approveJournal's confirmation, asked once this person may post the draft: it balances, its
    period is open, they did not create it."""
    journals.approve_check(actor=ctx.actor, draft=journals.draft_get(draft_id=draft_id))
    return True


@tool(
    "approveJournal",
    permission=AccountingPerm.POST,
    title="Approve a draft journal",
    markers=Marker.HIGH_RISK,
    confirm_if=_approve_checked,
)
def approve_journal(ctx: ToolContext, *, draft_id: DraftId) -> PostedJournalOut:
    """Post a manual journal awaiting approval; its creator may not, while duties are separated."""
    return PostedJournalOut.answer(journals.journal_approve(actor=ctx.actor, draft_id=draft_id))


@tool(
    "discardJournal",
    permission=AccountingPerm.POST,
    title="Discard a draft journal",
    markers=Marker.DESTRUCTIVE,
)
def discard_journal(ctx: ToolContext, *, draft_id: DraftId) -> JournalOut:
    """Discard a manual journal awaiting approval without posting it."""
    return JournalOut.of_draft(journals.journal_discard(actor=ctx.actor, draft_id=draft_id))


@tool("reverseJournal", permission=AccountingPerm.POST, title="Reverse a manual journal")
def reverse_journal(
    ctx: ToolContext,
    *,
    entry_id: EntryId,
    on: Annotated[date | None, Field(description="Day of the reversal; default today")] = None,
    narration: Annotated[str, Field(max_length=300, description="Default: Reversal of ...")] = "",
) -> JournalOut:
    """Post the reversing entry of a manual journal of postJournal; a document is voided instead."""
    entry = journals.journal_get(entry_id=entry_id)
    reversal = journals.journal_reverse(
        actor=ctx.actor, entry=entry, day=on or timezone.localdate(), narration=narration
    )
    return JournalOut.of(reversal)


@tool("listJournals", permission=AccountingPerm.VIEW, title="List journal entries", read_only=True)
def list_journals(
    ctx: ToolContext,
    *,
    entry_id: Annotated[int | None, Field(ge=1, description="Only this entry (a draft, with status)")] = None,
    manual: Annotated[bool, Field(description="Only manual journals and their reversals")] = False,
    account: Annotated[
        str | None, Field(max_length=10, description="Only entries on this account code")
    ] = None,
    start: Annotated[date | None, Field(description="From this day")] = None,
    end: Annotated[date | None, Field(description="Up to this day")] = None,
    status: Annotated[
        Literal["posted", "awaiting_approval", "discarded"],
        Field(description="Posted entries, or draft journals awaiting approval or discarded"),
    ] = "posted",
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[JournalOut]:
    """Journal entries with their lines, newest first: manual journals, or what documents posted."""
    if status != "posted":
        drafts = selectors.drafts(
            actor=ctx.actor, draft_id=entry_id, status=status, account=account, start=start, end=end
        )
        return paginate(drafts, limit=limit, offset=offset, item=JournalOut.of_draft)
    rows = selectors.entries(
        actor=ctx.actor, entry_id=entry_id, manual=manual, account=account, start=start, end=end
    )
    return paginate(rows, limit=limit, offset=offset, item=JournalOut.of)

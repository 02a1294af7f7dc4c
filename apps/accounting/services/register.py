"""The company register: the workspace's companies, the filings they owe and when, their
corporate events, their domains, and reminders before filings fall due.

Due dates follow the UK rules (Companies Act 2006, the Companies House and HMRC deadlines), the
jurisdiction of every company the register holds (England and Wales, Scotland, Northern Ireland):

- confirmation statement (CS01): a review period of 12 months from incorporation, then from the
  date the last statement was made up to; due 14 days after the period ends.
- annual accounts (AA): the financial year ends on the accounting reference date (ARD); private
  companies and LLPs file 9 months after, public companies 6 months after (s442). The first
  period runs from incorporation to the first ARD more than 6 months later (s391); when it is
  longer than 12 months the deadline is 21 months (public: 18) from incorporation, or 3 months
  after the period if that is later. A period ending on a month's last day is due on the last
  day of the month (s443).
- corporation tax (companies, not LLPs): payment 9 months and 1 day after the period, the CT600
  return 12 months after.
- notices of change: officers (AP01, TM01) and persons with significant control (PSC01, PSC07)
  within 14 days of the change, an allotment of shares (SH01) within one month.

A filing marked filed opens the next one of its cycle. Reminders are notifications, sent by a
daily sweep (`send_filing_reminders`) at each company's lead times to the people who may mark
filings filed; each lead time is sent once per filing.
"""

import calendar
import logging
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

import idna
from dateutil.relativedelta import relativedelta
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounting.errors import CompanyRegistered, DomainOfAnotherCompany, WrongStatus
from apps.accounting.models import CompanyDomain, CompanyPerson, CorporateEvent, Filing, RegisteredCompany
from apps.accounting.permissions import AccountingPerm
from apps.accounting.providers import companies_house
from apps.core.actors import Actor, actor_id, can, require
from apps.core.errors import invalid

logger = logging.getLogger(__name__)

Kind = Filing.Kind
Type = RegisteredCompany.Type
CYCLES = (Kind.CONFIRMATION_STATEMENT, Kind.ACCOUNTS, Kind.CORPORATION_TAX, Kind.TAX_RETURN)
FORMS: dict[str, str] = {
    Kind.CONFIRMATION_STATEMENT: "CS01",
    Kind.ACCOUNTS: "AA",
    Kind.CORPORATION_TAX: "CT",
    Kind.TAX_RETURN: "CT600",
}
EventKind = CorporateEvent.Kind
# Notices a corporate event owes the register: (form, form for an LLP, time allowed).
NOTICES: dict[str, tuple[str, str, relativedelta]] = {
    EventKind.OFFICER_APPOINTED: ("AP01", "LLAP01", relativedelta(days=14)),
    EventKind.OFFICER_RESIGNED: ("TM01", "LLTM01", relativedelta(days=14)),
    EventKind.PSC_ADDED: ("PSC01", "LLPSC01", relativedelta(days=14)),
    EventKind.PSC_CEASED: ("PSC07", "LLPSC07", relativedelta(days=14)),
    EventKind.SHARE_ALLOTMENT: ("SH01", "SH01", relativedelta(months=1)),
}
MAX_REMINDER_DAYS = 365


# --- dates --------------------------------------------------------------------------------------


def _month_end(day: date) -> bool:
    return day.day == calendar.monthrange(day.year, day.month)[1]


def add_months(day: date, months: int) -> date:
    """`months` after `day`; from a month's last day, to the last day of that month (s443)."""
    later = day + relativedelta(months=months)
    if _month_end(day):
        return later.replace(day=calendar.monthrange(later.year, later.month)[1])
    return later


def ard_in(year: int, ard: tuple[int, int]) -> date:
    """The accounting reference date in `year` (31 in a 30-day month is its last day)."""
    day, month = ard
    return date(year, month, min(day, calendar.monthrange(year, month)[1]))


def default_ard(incorporated_on: date) -> tuple[int, int]:
    """The ARD a UK company gets: the last day of the month of its incorporation's anniversary."""
    return calendar.monthrange(incorporated_on.year, incorporated_on.month)[1], incorporated_on.month


def first_period_end(company: RegisteredCompany) -> date:
    """The end of the first accounting reference period: the first ARD more than 6 months after
    incorporation."""
    start = company.incorporated_on + relativedelta(months=6)
    end = ard_in(start.year, ard_of(company))
    return end if end > start else ard_in(start.year + 1, ard_of(company))


def ard_of(company: RegisteredCompany) -> tuple[int, int]:
    return company.ard_day, company.ard_month


def due_on(company: RegisteredCompany, kind: str, period_end: date) -> date:
    """When the filing of `kind` for the period ending on `period_end` is due."""
    if kind == Kind.CONFIRMATION_STATEMENT:
        return period_end + timedelta(days=14)
    if kind == Kind.CORPORATION_TAX:
        return period_end + relativedelta(months=9) + timedelta(days=1)
    if kind == Kind.TAX_RETURN:
        return period_end + relativedelta(months=12)
    public = company.company_type == Type.PLC
    due = add_months(period_end, 6 if public else 9)
    if period_end == first_period_end(company) and period_end > company.incorporated_on + relativedelta(
        months=12
    ):
        due = max(add_months(company.incorporated_on, 18 if public else 21), add_months(period_end, 3))
    return due


def cycles_of(company: RegisteredCompany) -> tuple[str, ...]:
    # An LLP's members are taxed on its profits: it owes no corporation tax of its own.
    if company.company_type == Type.LLP:
        return (Kind.CONFIRMATION_STATEMENT, Kind.ACCOUNTS)
    return CYCLES


def _next_period_end(company: RegisteredCompany, kind: str, today: date, hint: date | None) -> date:
    """The period of the next filing of `kind`: after the last one filed, or the register's own
    next date (`hint`), or the first of the company's periods still not past its due date."""
    last = company.filings.filter(kind=kind, status=Filing.Status.FILED).order_by("-period_end").first()
    if kind == Kind.CONFIRMATION_STATEMENT:
        if last is not None:
            made_up = min(last.filed_on or last.period_end, last.period_end)
            return add_months(made_up, 12)
        if hint:
            return hint
        end = add_months(company.incorporated_on, 12)
        while due_on(company, kind, end) < today:
            end = add_months(end, 12)
        return end
    if last is not None:
        return ard_in(last.period_end.year + 1, ard_of(company))
    if hint:
        return hint
    end = first_period_end(company)
    while due_on(company, kind, end) < today:
        end = ard_in(end.year + 1, ard_of(company))
    return end


def schedule(
    company: RegisteredCompany, *, today: date | None = None, hints: dict[str, Any] | None = None
) -> None:
    """Opens the next filing of every cycle the company owes and has none open of."""
    today = today or timezone.localdate()
    hints = hints or {}
    accounts_hint = (hints.get("accounts") or (None, None))[0]
    open_kinds = set(company.filings.filter(status=Filing.Status.OPEN).values_list("kind", flat=True))
    for kind in cycles_of(company):
        if kind in open_kinds:
            continue
        hint = (
            (hints.get("confirmation_statement") or (None, None))[0]
            if kind == Kind.CONFIRMATION_STATEMENT
            else accounts_hint
        )
        end = _next_period_end(company, kind, today, hint)
        Filing.objects.create(
            company=company, kind=kind, form=FORMS[kind], period_end=end, due_on=due_on(company, kind, end)
        )


def _reschedule(company: RegisteredCompany) -> None:
    """After the ARD, the type or the incorporation date changed: the open filings of the cycles
    are computed again (notices of events keep their dates)."""
    company.filings.filter(status=Filing.Status.OPEN, kind__in=CYCLES).delete()
    schedule(company)


# --- companies ----------------------------------------------------------------------------------

FIELDS = (
    "name",
    "jurisdiction",
    "company_type",
    "registered_office",
    "incorporated_on",
    "ard",
    "sic_codes",
)


def _parse_ard(value: str) -> tuple[int, int]:
    try:
        month, day = (int(part) for part in value.split("-"))
        # 02-29 is allowed (a leap year's day): it is the 28th in other years.
        if not 1 <= day <= calendar.monthrange(2024, month)[1]:
            raise ValueError(value)
    except (ValueError, TypeError):
        raise invalid("accountsReferenceDate", _("give a day of the year as MM-DD, e.g. 03-31")) from None
    return day, month


def _apply(company: RegisteredCompany, fields: dict[str, Any]) -> None:
    for name in FIELDS:
        if name not in fields:
            continue
        value = fields[name]
        if name == "ard":
            if value is None:
                raise invalid("accountsReferenceDate", _("a company always has one"))
            company.ard_day, company.ard_month = _parse_ard(value)
        elif name == "sic_codes":
            codes = [str(code).strip() for code in value or []]
            if len(codes) > 4:
                raise invalid("sicCodes", _("the register takes at most 4"))
            bad = [code for code in codes if not (code.isdigit() and len(code) in (4, 5))]
            if bad:
                raise invalid(
                    "sicCodes", _("{code} is not a SIC code (4 or 5 digits, e.g. 62020)"), code=bad[0]
                )
            company.sic_codes = list(dict.fromkeys(codes))
        elif value is None and name in ("name", "incorporated_on", "jurisdiction", "company_type"):
            raise invalid(name, _("cannot be cleared"))
        else:
            setattr(company, name, value if value is not None else "")
    company.name = (company.name or "").strip()
    if len(company.name) > 160 or len(company.registered_office) > 500:
        raise invalid("name" if len(company.name) > 160 else "registeredOffice", _("is too long"))
    if not company.name:
        raise invalid("name", _("give the company's name, or take it from the register"))
    if company.incorporated_on is None:
        raise invalid("incorporatedOn", _("give the date of incorporation, or take it from the register"))
    if company.incorporated_on > timezone.localdate():
        raise invalid("incorporatedOn", _("is in the future"))


@transaction.atomic
def company_register(
    *, actor: Actor, number: str, fields: dict[str, Any], from_register: bool
) -> tuple[RegisteredCompany, companies_house.Entry | None]:
    """Registers one of the workspace's companies, its details read from the public register
    (`from_register`; what `fields` give wins) or typed in, and opens its filings."""
    require(actor, AccountingPerm.ADMIN)
    number = companies_house.company_number(number)
    existing = RegisteredCompany.objects.filter(number=number, deleted_at__isnull=True).first()
    if existing is not None:
        raise CompanyRegistered(number=number, id=existing.pk)
    entry = companies_house.provider().company(number) if from_register else None
    company = RegisteredCompany(number=number, created_by_id=actor_id(actor))
    company.jurisdiction = companies_house.jurisdiction_of(number)
    if entry is not None:
        company.name = entry.name
        company.register_status = entry.status
        company.company_type = entry.company_type
        if entry.jurisdiction in RegisteredCompany.Jurisdiction.values:
            company.jurisdiction = entry.jurisdiction
        company.registered_office = entry.registered_office
        company.incorporated_on = entry.incorporated_on
        company.sic_codes = entry.sic_codes
        company.ard_day, company.ard_month = entry.ard or default_ard(entry.incorporated_on)
        company.checked_at = timezone.now()
    _apply(company, fields)
    if "ard" not in fields and entry is None:
        company.ard_day, company.ard_month = default_ard(company.incorporated_on)
    company.save()
    if entry is not None:
        CompanyPerson.objects.bulk_create(
            CompanyPerson(
                company=company,
                kind=CompanyPerson.Kind.OFFICER,
                name=officer.name[:160],
                role=officer.role[:120],
                appointed_on=officer.appointed_on,
                ceased_on=officer.resigned_on,
            )
            for officer in entry.officers
        )
    schedule(company, hints=entry.next_due if entry is not None and "ard" not in fields else None)
    logger.info("company %s registered (from the register: %s)", company.pk, entry is not None)
    return company, entry


@transaction.atomic
def company_update(*, actor: Actor, company: RegisteredCompany, fields: dict[str, Any]) -> list[str]:
    require(actor, AccountingPerm.ADMIN)
    before = {name: getattr(company, name) for name in (*FIELDS[:-2], "sic_codes", "ard_day", "ard_month")}
    _apply(company, fields)
    company.save()
    changed = [name for name, value in before.items() if getattr(company, name) != value]
    if {"ard_day", "ard_month", "company_type", "incorporated_on"} & set(changed):
        _reschedule(company)
    return sorted({"ard" if name.startswith("ard_") else name for name in changed})


def company_examine(*, actor: Actor, number: str) -> tuple[companies_house.Entry, RegisteredCompany | None]:
    """The company as the public register shows it, and ours of that number, if registered."""
    require(actor, AccountingPerm.VIEW)
    number = companies_house.company_number(number)
    entry = companies_house.provider().company(number)
    ours = RegisteredCompany.objects.restrict(actor).filter(number=number).first()
    if ours is not None:
        RegisteredCompany.objects.filter(pk=ours.pk).update(checked_at=timezone.now())
    return entry, ours


def differences(entry: companies_house.Entry, company: RegisteredCompany) -> list[str]:
    """Where our record of a company differs from the register's."""
    found = []
    pairs = [
        ("name", entry.name, company.name),
        ("registeredOffice", entry.registered_office, company.registered_office),
        ("incorporatedOn", entry.incorporated_on, company.incorporated_on),
        ("sicCodes", sorted(entry.sic_codes), sorted(company.sic_codes)),
        ("accountsReferenceDate", entry.ard, ard_of(company)),
    ]
    for label, theirs, ours in pairs:
        if theirs and theirs != ours:
            found.append(f"{label}: register {theirs}, ours {ours}")
    active = {
        p.name.casefold() for p in company.people.filter(kind=CompanyPerson.Kind.OFFICER, ceased_on=None)
    }
    listed = {o.name.casefold() for o in entry.officers if o.resigned_on is None}
    for name in sorted(listed - active):
        found.append(f"officer on the register only: {name}")
    for name in sorted(active - listed):
        found.append(f"officer in our records only: {name}")
    return found


# --- filings ------------------------------------------------------------------------------------


@transaction.atomic
def filing_complete(
    *, actor: Actor, filing: Filing, filed_on: date, reference: str
) -> tuple[Filing, Filing | None]:
    """Marks a filing filed and opens the next one of its cycle (returned)."""
    require(actor, AccountingPerm.POST)
    filing = Filing.objects.select_for_update().get(pk=filing.pk)
    if filing.status != Filing.Status.OPEN:
        raise WrongStatus(
            label=_("Filing"), id=filing.pk, status=filing.get_status_display(), wanted=_("to file")
        )
    if len(reference) > 100:
        raise invalid("reference", _("at most 100 characters"))
    if filed_on > timezone.localdate():
        raise invalid("filedOn", _("is in the future"))
    company = filing.company
    if filed_on < company.incorporated_on:
        raise invalid("filedOn", _("is before the company was incorporated"))
    filing.status, filing.filed_on, filing.reference = Filing.Status.FILED, filed_on, reference.strip()
    filing.filed_by_id = actor_id(actor)
    filing.save()
    following = None
    if filing.kind in cycles_of(company):
        schedule(company)
        following = company.filings.filter(kind=filing.kind, status=Filing.Status.OPEN).first()
    return filing, following


@transaction.atomic
def reminders_set(*, actor: Actor, company: RegisteredCompany, days: list[int]) -> list[int]:
    require(actor, AccountingPerm.EDIT)
    wanted = sorted(set(days), reverse=True)
    if any(day < 0 or day > MAX_REMINDER_DAYS for day in wanted):
        raise invalid(
            "leadDays",
            _("each is 0 to {most} days before the due date"),
            most=MAX_REMINDER_DAYS,
        )
    company.reminder_days = wanted
    company.save(update_fields=["reminder_days", "updated_at"])
    return wanted


def reminders_send(*, today: date | None = None) -> int:
    """Sends the reminders due today in the current workspace; returns how many filings were
    reminded of. One notification per filing and sweep, for the nearest lead time reached."""
    from apps.accounts.models import User
    from apps.notifications import api as notifications

    today = today or timezone.localdate()
    people: list[Any] | None = None
    sent = 0
    filings = Filing.objects.filter(
        status=Filing.Status.OPEN, deleted_at=None, company__deleted_at=None
    ).select_related("company")
    for filing in filings.exclude(company__reminder_days=[]):
        reached = [
            day for day in filing.company.reminder_days if filing.due_on - timedelta(days=day) <= today
        ]
        fresh = [day for day in reached if day not in filing.reminded]
        if not fresh:
            continue
        if people is None:
            people = [p for p in User.objects.filter(is_active=True) if can(p, AccountingPerm.POST)]
        left = (filing.due_on - today).days
        when = (
            _("due in %(days)d day(s), on %(due)s") % {"days": left, "due": filing.due_on}
            if left >= 0
            else _("overdue since %(due)s") % {"due": filing.due_on}
        )
        title = _("%(form)s of %(company)s %(when)s") % {
            "form": filing.get_kind_display(),
            "company": filing.company.name,
            "when": when,
        }
        body = _("Made up to %(end)s. When it is filed, mark it with markFilingComplete (filing %(id)s).") % {
            "end": filing.period_end,
            "id": filing.pk,
        }
        priority = notifications.Priority.HIGH if left <= 7 else notifications.Priority.NORMAL
        with transaction.atomic():
            for person in people:
                notifications.notify(
                    recipient=person,
                    title=title,
                    body=body,
                    kind=notifications.Kind.SYSTEM,
                    priority=priority,
                )
            filing.reminded = sorted({*filing.reminded, *fresh})
            filing.save(update_fields=["reminded", "updated_at"])
        sent += 1
    if sent:
        logger.info("filing reminders: %s filing(s)", sent)
    return sent


# --- corporate events ---------------------------------------------------------------------------

PERSON_EVENTS: dict[str, tuple[str, bool]] = {
    EventKind.OFFICER_APPOINTED: (CompanyPerson.Kind.OFFICER, True),
    EventKind.OFFICER_RESIGNED: (CompanyPerson.Kind.OFFICER, False),
    EventKind.PSC_ADDED: (CompanyPerson.Kind.PSC, True),
    EventKind.PSC_CEASED: (CompanyPerson.Kind.PSC, False),
}


@transaction.atomic
def event_add(
    *, actor: Actor, company: RegisteredCompany, kind: str, on: date, detail: str, role: str
) -> tuple[CorporateEvent, Filing | None]:
    """Records what happened to the company and its effect on our records (an officer appointed
    or gone, the new office or name), and opens the notice the register is owed, if any."""
    require(actor, AccountingPerm.EDIT)
    detail = detail.strip()
    if not detail:
        raise invalid("detail", _("say what happened (for an officer or PSC: their name)"))
    if on > timezone.localdate():
        raise invalid("on", _("is in the future: record an event once it has happened"))
    if on < company.incorporated_on:
        raise invalid("on", _("is before the company was incorporated"))
    person = None
    if kind in PERSON_EVENTS:
        person_kind, starts = PERSON_EVENTS[kind]
        if starts:
            person = CompanyPerson.objects.create(
                company=company,
                kind=person_kind,
                name=detail[:160],
                role=role.strip()[:120] or ("director" if person_kind == CompanyPerson.Kind.OFFICER else ""),
                appointed_on=on,
            )
        else:
            current = company.people.filter(kind=person_kind, ceased_on=None)
            person = current.filter(name__iexact=detail).first()
            if person is None:
                names = ", ".join(current.values_list("name", flat=True)[:20]) or _("none")
                raise invalid(
                    "detail",
                    _("no current {person_kind} named {detail!r} (current: {names})"),
                    person_kind=person_kind,
                    detail=detail,
                    names=names,
                )
            if person.appointed_on and on < person.appointed_on:
                raise invalid("on", _("is before their appointment"))
            person.ceased_on = on
            person.save(update_fields=["ceased_on"])
    elif kind == EventKind.OFFICE_MOVED:
        company.registered_office = detail
        company.save(update_fields=["registered_office", "updated_at"])
    elif kind == EventKind.NAME_CHANGED:
        company.name = detail[:160]
        company.save(update_fields=["name", "updated_at"])
    event = CorporateEvent.objects.create(
        company=company, kind=kind, date=on, detail=detail, person=person, recorded_by_id=actor_id(actor)
    )
    notice = None
    if kind in NOTICES:
        form, llp_form, allowed = NOTICES[kind]
        notice = Filing.objects.create(
            company=company,
            kind=Kind.EVENT_NOTICE,
            form=llp_form if company.company_type == Type.LLP else form,
            period_end=on,
            due_on=on + allowed,
            event=event,
        )
    return event, notice


# --- domains ------------------------------------------------------------------------------------


def domain_name(value: str) -> str:
    """A host name under IDNA 2008, in its lower-case ASCII form, or a clear error."""
    name = value.strip().rstrip(".").lower()
    name = name.removeprefix("http://").removeprefix("https://").split("/", 1)[0]
    try:
        ascii_name = idna.encode(name, uts46=True).decode()
    except (idna.IDNAError, UnicodeError):
        raise invalid("domain", _("{value!r} is not a valid domain name"), value=value) from None
    labels = ascii_name.split(".")
    if len(labels) < 2 or len(ascii_name) > 253 or labels[-1].isdigit():
        raise invalid(
            "domain",
            _("{value!r} is not a domain name with a top-level domain, e.g. example.co.uk"),
            value=value,
        )
    return ascii_name


@transaction.atomic
def domain_manage(
    *, actor: Actor, company: RegisteredCompany, action: str, domain: str, purpose: str
) -> CompanyDomain | None:
    require(actor, AccountingPerm.ADMIN)
    name = domain_name(domain)
    found = CompanyDomain.objects.select_related("company").filter(domain=name).first()
    if action == "remove":
        if found is None or found.company_id != company.pk:
            raise invalid(
                "domain", _("{name} is not one of {company}'s domains"), name=name, company=company.name
            )
        found.delete()
        return None
    if found is not None and found.company_id != company.pk:
        raise DomainOfAnotherCompany(domain=name, company=found.company.name)
    if found is None:
        found = CompanyDomain(company=company, domain=name)
    found.purpose = purpose
    found.save()
    return found


# --- the settings page --------------------------------------------------------------------------


@dataclass(frozen=True)
class CompanyRow:
    company: RegisteredCompany
    officers: list[CompanyPerson]
    year_end: date  # the ARD, in a year without 29 February


def page(*, actor: Actor) -> dict[str, Any]:
    """What the Accounting page shows of the register: companies, open filings, latest events."""
    companies = RegisteredCompany.objects.restrict(actor).prefetch_related("people", "domains")
    rows = [
        CompanyRow(
            company=company,
            officers=[
                p
                for p in company.people.all()
                if p.kind == CompanyPerson.Kind.OFFICER and p.ceased_on is None
            ],
            year_end=ard_in(2023, ard_of(company)),
        )
        for company in companies[:50]
    ]
    filings = Filing.objects.restrict(actor).filter(status=Filing.Status.OPEN, company__in=companies)
    events = CorporateEvent.objects.filter(company__in=companies).select_related("company")
    return {
        "companies": rows,
        "filings": filings.select_related("company").order_by("due_on", "id")[:50],
        "events": events[:20],
        "today": timezone.localdate(),
    }

"""The company register: our companies, their filings and reminders, corporate events and
domains (apps.accounting.services.register), and the public register
(apps.accounting.providers.companies_house)."""

import datetime
from typing import Annotated, Literal

from django.utils import timezone
from pydantic import Field

from apps.accounting.models import CompanyDomain, Filing, RegisteredCompany
from apps.accounting.permissions import AccountingPerm
from apps.accounting.services import register
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import Changes, Out, id_field

CompanyId = Annotated[int, id_field("getCompanyFilings")]
Number = Annotated[str, Field(description="e.g. 01234567 or SC123456")]


class CompanyFields(Changes):
    name: str | None = None
    company_type: Literal["ltd", "plc", "llp"] | None = None
    registered_office: str | None = None
    incorporated_on: datetime.date | None = None
    accounts_reference_date: Annotated[str | None, Field(description="MM-DD")] = None
    sic_codes: list[str] | None = None

    def fields(self) -> dict[str, object]:
        given = self.given()
        if "accounts_reference_date" in given:
            given["ard"] = given.pop("accounts_reference_date")
        return given


class PersonOut(Out):
    kind: str
    name: str
    role: str
    appointed_on: datetime.date | None
    ceased_on: datetime.date | None


class DomainOut(Out):
    domain: str
    purpose: str


class CompanyOut(Out):
    id: int
    name: str
    number: str
    jurisdiction: str
    company_type: str
    register_status: str
    registered_office: str
    incorporated_on: datetime.date
    accounts_reference_date: str = Field(description="MM-DD")
    sic_codes: list[str]
    reminder_days: list[int]
    people: list[PersonOut] = Field(description="Officers and persons with significant control")
    domains: list[DomainOut]

    @classmethod
    def of(cls, company: RegisteredCompany) -> "CompanyOut":
        return cls.of_record(
            company,
            accounts_reference_date=f"{company.ard_month:02d}-{company.ard_day:02d}",
            people=[PersonOut.of_record(person) for person in company.people.all()],
            domains=[DomainOut.of_record(domain) for domain in company.domains.all()],
        )


class FilingOut(Out):
    id: int
    company_id: int
    kind: str
    form: str
    period_end: datetime.date = Field(description="Made up to")
    due_on: datetime.date
    status: str
    overdue: bool
    filed_on: datetime.date | None
    reference: str

    @classmethod
    def of(cls, filing: Filing) -> "FilingOut":
        late = filing.status == Filing.Status.OPEN and filing.due_on < timezone.localdate()
        return cls.of_record(filing, overdue=late)


class RegisteredOut(Out):
    company: CompanyOut
    filings: list[FilingOut]


@tool(
    "registerCompany",
    permission=AccountingPerm.ADMIN,
    title="Register a company",
    markers=Marker.HIGH_RISK,
)
def register_company(
    ctx: ToolContext,
    *,
    number: Number,
    company: Annotated[CompanyFields | None, Field(description="Overrides the register's")] = None,
    from_register: Annotated[bool, Field(description="Read the public register")] = True,
) -> RegisteredOut:
    """Add our company and open its filings (just to look one up: examineCorporateRegister)."""
    made, _entry = register.company_register(
        actor=ctx.actor,
        number=number,
        fields=company.fields() if company else {},
        from_register=from_register,
    )
    return RegisteredOut(company=CompanyOut.of(made), filings=[FilingOut.of(f) for f in made.filings.all()])


class CompanyChangedOut(Out):
    company: CompanyOut
    changed: list[str]


@tool("updateRegisteredCompany", permission=AccountingPerm.ADMIN, title="Update a company")
def update_registered_company(
    ctx: ToolContext,
    *,
    company_id: CompanyId,
    company: Annotated[CompanyFields, Field(description="Changes")],
) -> CompanyChangedOut:
    """Change our company's details; a new year end or type recomputes its filings."""
    found = RegisteredCompany.objects.fetch(ctx.actor, company_id, "change", lock=True)
    changed = register.company_update(actor=ctx.actor, company=found, fields=company.fields())
    return CompanyChangedOut(company=CompanyOut.of(found), changed=changed)


class OfficerOut(Out):
    name: str
    role: str
    appointed_on: datetime.date | None
    resigned_on: datetime.date | None


class FiledOut(Out):
    date: datetime.date
    form: str
    description: str


class ExaminedOut(Out):
    number: str
    name: str
    status: str
    company_type: str
    jurisdiction: str
    incorporated_on: datetime.date
    registered_office: str
    sic_codes: list[str]
    next_accounts_due: datetime.date | None
    next_statement_due: datetime.date | None
    officers: list[OfficerOut]
    recent_filings: list[FiledOut]
    registered_id: int | None = Field(description="Ours, if registered")
    differences: list[str] = Field(description="Where our record differs")


@tool(
    "examineCorporateRegister",
    permission=AccountingPerm.VIEW,
    title="Public register lookup",
    read_only=True,
    open_world=True,
)
def examine_corporate_register(ctx: ToolContext, *, number: Number) -> ExaminedOut:
    """A company's profile, officers and filings on the public register (to add ours: registerCompany)."""
    entry, ours = register.company_examine(actor=ctx.actor, number=number)
    return ExaminedOut.of_record(
        entry,
        next_accounts_due=entry.next_due["accounts"][1],
        next_statement_due=entry.next_due["confirmation_statement"][1],
        officers=[OfficerOut.of_record(officer) for officer in entry.officers[:50]],
        recent_filings=[FiledOut.of_record(filed) for filed in entry.filings[:10]],
        registered_id=ours.pk if ours else None,
        differences=register.differences(entry, ours) if ours else [],
    )


class FilingsOut(Out):
    companies: list[CompanyOut]
    filings: list[FilingOut]


@tool("getCompanyFilings", permission=AccountingPerm.VIEW, title="Company filings", read_only=True)
def get_company_filings(
    ctx: ToolContext,
    *,
    company_id: Annotated[
        int | None, id_field("getCompanyFilings", description="Default: every company")
    ] = None,
    status: Annotated[Literal["open", "filed", "all"], Field(description="open: still to file")] = "open",
    due_within_days: Annotated[int | None, Field(ge=0, description="Only due by today + this")] = None,
) -> FilingsOut:
    """Our companies and their filings by due date: confirmation statements, accounts, tax."""
    companies = RegisteredCompany.objects.restrict(ctx.actor).prefetch_related("people", "domains")
    if company_id is not None:
        companies = companies.filter(pk=RegisteredCompany.objects.fetch(ctx.actor, company_id).pk)
    filings = Filing.objects.restrict(ctx.actor).filter(company__in=companies)
    if status != "all":
        filings = filings.filter(status=status)
    if due_within_days is not None:
        filings = filings.filter(due_on__lte=timezone.localdate() + datetime.timedelta(days=due_within_days))
    return FilingsOut(
        companies=[CompanyOut.of(company) for company in companies[:50]],
        filings=[FilingOut.of(filing) for filing in filings.order_by("due_on", "id")[:200]],
    )


class FilingDoneOut(Out):
    filing: FilingOut
    next: FilingOut | None = Field(description="The next one of its cycle, now open")


@tool(
    "markFilingComplete",
    permission=AccountingPerm.POST,
    title="Mark a filing as filed",
    markers=Marker.HIGH_RISK,
)
def mark_filing_complete(
    ctx: ToolContext,
    *,
    filing_id: Annotated[int, id_field("getCompanyFilings")],
    filed_on: Annotated[datetime.date | None, Field(description="Default today")] = None,
    reference: Annotated[str, Field(description="Submission or payment ref")] = "",
) -> FilingDoneOut:
    """Record a filing as made; the next of its cycle opens with its due date."""
    found = Filing.objects.fetch(ctx.actor, filing_id, "change")
    done, following = register.filing_complete(
        actor=ctx.actor, filing=found, filed_on=filed_on or timezone.localdate(), reference=reference
    )
    return FilingDoneOut(filing=FilingOut.of(done), next=FilingOut.of(following) if following else None)


class ReminderOut(Out):
    filing_id: int
    form: str
    due_on: datetime.date
    remind_on: datetime.date


class RemindersOut(Out):
    company_id: int
    lead_days: list[int]
    upcoming: list[ReminderOut]


@tool("setFilingReminders", permission=AccountingPerm.EDIT, title="Set filing reminders")
def set_filing_reminders(
    ctx: ToolContext,
    *,
    company_id: CompanyId,
    lead_days: Annotated[
        list[int], Field(max_length=6, description="Days before each due date; [] stops them")
    ],
) -> RemindersOut:
    """Choose how many days before each filing's due date people who may file are notified."""
    found = RegisteredCompany.objects.fetch(ctx.actor, company_id, "change", lock=True)
    days = register.reminders_set(actor=ctx.actor, company=found, days=lead_days)
    today = timezone.localdate()
    upcoming = []
    for filing in found.filings.filter(status=Filing.Status.OPEN).order_by("due_on", "id"):
        dates = [filing.due_on - datetime.timedelta(days=day) for day in days if day not in filing.reminded]
        if dates:
            when = max(today, min(dates))
            upcoming.append(
                ReminderOut(filing_id=filing.pk, form=filing.form, due_on=filing.due_on, remind_on=when)
            )
    return RemindersOut(company_id=found.pk, lead_days=days, upcoming=upcoming)


class EventOut(Out):
    id: int
    kind: str
    date: datetime.date
    detail: str


class EventAddedOut(Out):
    event: EventOut
    notice: FilingOut | None = Field(description="The notice the register is owed, with its due date")


@tool("addCorporateEvent", permission=AccountingPerm.EDIT, title="Record a corporate event")
def add_corporate_event(
    ctx: ToolContext,
    *,
    company_id: CompanyId,
    kind: Annotated[
        Literal[
            "appointment",
            "resignation",
            "psc_added",
            "psc_ceased",
            "office_moved",
            "renamed",
            "allotment",
            "other",
        ],
        Field(description="appointment/resignation: officers"),
    ],
    on: Annotated[datetime.date, Field(description="Day it took effect")],
    detail: Annotated[str, Field(description="Person's name, new address or name, or what")],
    role: Annotated[str, Field(description="Officer role or PSC control")] = "",
) -> EventAddedOut:
    """Record an officer or PSC change, share allotment, new office or name; opens the notice owed."""
    found = RegisteredCompany.objects.fetch(ctx.actor, company_id, "change", lock=True)
    event, notice = register.event_add(
        actor=ctx.actor, company=found, kind=kind, on=on, detail=detail, role=role
    )
    return EventAddedOut(event=EventOut.of_record(event), notice=FilingOut.of(notice) if notice else None)


class DomainsOut(Out):
    company_id: int
    domains: list[DomainOut]


@tool(
    "manageCompanyDomain",
    permission=AccountingPerm.ADMIN,
    title="Company domains",
    markers=Marker.HIGH_RISK,
)
def manage_company_domain(
    ctx: ToolContext,
    *,
    company_id: CompanyId,
    action: Annotated[Literal["add", "remove"], Field(description="add: also sets purpose")],
    domain: Annotated[str, Field(description="e.g. example.co.uk")],
    purpose: Annotated[Literal["web", "mail", "both"], Field(description="Its use")] = "both",
) -> DomainsOut:
    """Add or remove a company's web or e-mail domain."""
    found = RegisteredCompany.objects.fetch(ctx.actor, company_id, "change", lock=True)
    register.domain_manage(actor=ctx.actor, company=found, action=action, domain=domain, purpose=purpose)
    domains = CompanyDomain.objects.filter(company=found)
    return DomainsOut(company_id=found.pk, domains=[DomainOut.of_record(domain) for domain in domains])

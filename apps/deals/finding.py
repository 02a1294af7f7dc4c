"""Deal finders (writes and runs): a saved ideal-customer profile searched, on its schedule or
when asked, over the workspace's contacts and group accounts and, when configured, the enrichment
provider (apps.deals.enrichment).

A record matches when every criterion it can be judged on matches (a group account has no job
title or country, a contact no industry but its accounts'), and at least one criterion is judged.
Its score is the share of the given criteria it matched. Leads are kept once per finder (by
address, else company domain, else the provider's id); a run updates the ones it finds again and
never brings back a dismissed one. Dedupe: a provider lead whose address is a contact's, or whose
company domain is a contact's or a group account's, is `existing` with that contact or account.

A private finder's run acts as the person who runs it (a scheduled one: its owner): it sees the
contacts and group accounts they see. A finder everyone sees (and one nobody owns any more)
searches those every person sees (`ANYONE`): its leads are everyone's, so none may be made from
someone's private contact (apps.core.records, "Records made from others")."""

import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.models import person
from apps.contacts import api as contacts_api
from apps.core.actors import Actor, require
from apps.core.errors import AppError, invalid
from apps.core.records import ANYONE, Anyone, unique_name
from apps.core.sharing import Visibility
from apps.deals import enrichment
from apps.deals.errors import WrongFinderState
from apps.deals.models import DealFinder, FoundLead
from apps.deals.permissions import DealsPerm
from apps.groupaccounts import api as groupaccounts_api

logger = logging.getLogger(__name__)
CRITERIA = ("keywords", "industries", "countries", "titles", "tags")
INTERVAL = {DealFinder.Schedule.DAILY: timedelta(days=1), DealFinder.Schedule.WEEKLY: timedelta(days=7)}


@dataclass
class RunResult:
    found: int = 0
    new: int = 0
    existing: int = 0
    credits: int = 0


def clean_criteria(criteria: dict[str, list[str]]) -> dict[str, list[str]]:
    cleaned: dict[str, list[str]] = {}
    for key in CRITERIA:
        values: list[str] = []
        for value in criteria.get(key) or []:
            text = " ".join(str(value).split())
            if len(text) > 100:
                raise invalid(key, _("at most 100 characters a value ({start!r}...)"), start=text[:20])
            if key == "countries":
                text = text.upper()
                if len(text) != 2 or not text.isalpha():
                    raise invalid(
                        "countries", _("{value!r} is not a two-letter country code (ISO 3166-1)"), value=value
                    )
            elif key != "keywords":
                text = text.lower()
            if text and text.lower() not in {v.lower() for v in values}:
                values.append(text)
        if values:
            cleaned[key] = values
    if not cleaned:
        raise invalid("criteria", _("give at least one of keywords, industries, countries, titles or tags"))
    return cleaned


def _clean_sources(sources: list[str]) -> list[str]:
    chosen = [source for source in DealFinder.SOURCES if source in sources]
    if not chosen:
        raise invalid("sources", _("choose contacts, accounts and/or provider"))
    if "provider" in chosen and not enrichment.configured():
        raise invalid("sources", _("no enrichment provider is configured here; use contacts and accounts"))
    return chosen


def finder_create(
    *,
    actor: Actor,
    name: str,
    criteria: dict[str, list[str]],
    sources: list[str],
    schedule: str = DealFinder.Schedule.DAILY,
    max_leads: int = 50,
    private: bool = False,
) -> DealFinder:
    require(actor, DealsPerm.FINDERS)
    finder = DealFinder(
        owner=person(actor),
        created_by=person(actor),
        schedule=schedule,
        max_leads=max_leads,
        visibility=Visibility.PRIVATE if private else Visibility.WORKSPACE,
    )
    finder.name = unique_name(finder, name, what="a deal finder", limit=120)
    finder.criteria = clean_criteria(criteria)
    finder.sources = _clean_sources(sources)
    finder.next_run_at = timezone.now() if schedule != DealFinder.Schedule.MANUAL else None
    finder.save()
    logger.info("deal finder %s created", finder.pk)
    return finder


def finder_control(*, actor: Actor, finder: DealFinder, action: str) -> RunResult | None:
    """run (now, whatever its schedule), pause, resume or stop (for good)."""
    require(actor, DealsPerm.FINDERS)
    if finder.status == DealFinder.Status.STOPPED:
        raise WrongFinderState(finder=finder.pk, status=finder.status, action=action)
    if action == "run":
        return finder_run(finder=finder, actor=actor)
    allowed = {"pause": DealFinder.Status.ACTIVE, "resume": DealFinder.Status.PAUSED}
    if action in allowed and finder.status != allowed[action]:
        raise WrongFinderState(finder=finder.pk, status=finder.status, action=action)
    finder.status = {
        "pause": DealFinder.Status.PAUSED,
        "resume": DealFinder.Status.ACTIVE,
        "stop": DealFinder.Status.STOPPED,
    }[action]
    if action == "resume" and finder.schedule != DealFinder.Schedule.MANUAL:
        finder.next_run_at = timezone.now()
    finder.save(update_fields=["status", "next_run_at", "updated_at"])
    return None


# --- matching ----------------------------------------------------------------------------------


def _any_text(fields: tuple[str, ...], words: list[str]) -> Q:
    found = Q(pk__in=[])
    for word in words:
        for field in fields:
            found |= Q(**{f"{field}__icontains": word})
    return found


def _contact_rows(reader: Actor | Anyone, criteria: dict[str, list[str]]) -> Any:
    rows = contacts_api.contacts(reader)
    if "keywords" in criteria:
        fields = ("first_name", "last_name", "company", "organisation_name", "job_title", "notes")
        rows = rows.filter(
            _any_text(fields, criteria["keywords"])
            | Q(tags__overlap=[w.lower() for w in criteria["keywords"]])
        )
    if "titles" in criteria:
        rows = rows.filter(_any_text(("job_title",), criteria["titles"]))
    if "countries" in criteria:
        rows = rows.filter(country__in=criteria["countries"])
    if "tags" in criteria:
        rows = rows.filter(tags__overlap=criteria["tags"])
    if "industries" in criteria:
        linked = groupaccounts_api.contact_links().filter(
            _any_text(("account__industry",), criteria["industries"]),
            account__in=groupaccounts_api.accounts(reader),
        )
        rows = rows.filter(pk__in=linked.values("contact"))
    return rows


def _account_rows(reader: Actor | Anyone, criteria: dict[str, list[str]]) -> Any:
    judged = {"keywords", "industries", "tags"} & set(criteria)
    if not judged:
        return groupaccounts_api.accounts(reader).none()
    rows = groupaccounts_api.accounts(reader)
    if "keywords" in criteria:
        rows = rows.filter(
            _any_text(("name", "description", "industry"), criteria["keywords"])
            | Q(tags__overlap=[w.lower() for w in criteria["keywords"]])
        )
    if "industries" in criteria:
        rows = rows.filter(_any_text(("industry",), criteria["industries"]))
    if "tags" in criteria:
        rows = rows.filter(tags__overlap=criteria["tags"])
    return rows


def _matched(criteria: dict[str, list[str]], values: dict[str, str]) -> list[str]:
    """Which criteria `values` (the lead's keywords text, industry, country, title, tags) meet."""
    said = []
    text = values.get("text", "").lower()
    for key, wanted in criteria.items():
        have = values.get(key, "").lower()
        if key == "keywords":
            hit = next((w for w in wanted if w.lower() in text), None)
        elif key == "countries":
            hit = next((w for w in wanted if w.lower() == have), None)
        else:
            hit = next((w for w in wanted if w.lower() in have), None)
        if hit:
            said.append(f"{key}: {hit}")
    return said


def _score(criteria: dict[str, list[str]], matched: list[str]) -> int:
    return round(100 * len(matched) / max(1, len(criteria)))


def _domain(email: str) -> str:
    return email.rpartition("@")[2].lower() if "@" in email else ""


# --- running -----------------------------------------------------------------------------------


def _keep(finder: DealFinder, key: str, fields: dict[str, Any], result: RunResult) -> None:
    existing = FoundLead.objects.filter(finder=finder, key=key).first()
    status = (
        FoundLead.Status.EXISTING
        if fields.get("contact") or fields.get("group_account")
        else FoundLead.Status.NEW
    )
    if existing is None:
        FoundLead.objects.create(finder=finder, key=key, status=status, **fields)
    else:
        for name, value in fields.items():
            setattr(existing, name, value)
        if existing.status != FoundLead.Status.DISMISSED:
            existing.status = status
        existing.save()
    result.found += 1
    if status == FoundLead.Status.NEW:
        result.new += 1
    else:
        result.existing += 1


def _from_contacts(finder: DealFinder, reader: Actor | Anyone, result: RunResult) -> None:
    criteria = finder.criteria
    industries: dict[int, str] = {}
    rows = list(_contact_rows(reader, criteria)[: finder.max_leads])
    accounts = groupaccounts_api.accounts(reader)
    links = groupaccounts_api.contact_links().filter(contact__in=rows, account__in=accounts)
    for link in links.select_related("account"):
        industries.setdefault(link.contact_id, link.account.industry)
    for contact in rows:
        values = {
            "text": " ".join(
                [contact.display_name, contact.company, contact.job_title, contact.notes, *contact.tags]
            ),
            "industries": industries.get(contact.pk, ""),
            "countries": contact.country,
            "titles": contact.job_title,
            "tags": " ".join(contact.tags),
        }
        matched = _matched(criteria, values)
        key = contact.email.lower() if contact.email else f"contact:{contact.pk}"
        _keep(
            finder,
            key,
            {
                "source": FoundLead.Source.CONTACT,
                "name": contact.display_name[:200],
                "email": contact.email.lower(),
                "company": (contact.company or contact.organisation_name)[:200],
                "domain": _domain(contact.email),
                "title": contact.job_title,
                "country": contact.country,
                "industry": industries.get(contact.pk, "")[:100],
                "contact": contact,
                "matched": matched,
                "score": _score(criteria, matched),
            },
            result,
        )


def _from_accounts(finder: DealFinder, reader: Actor | Anyone, result: RunResult) -> None:
    criteria = finder.criteria
    for account in _account_rows(reader, criteria)[: finder.max_leads]:
        values = {
            "text": " ".join([account.name, account.description, account.industry, *account.tags]),
            "industries": account.industry,
            "tags": " ".join(account.tags),
        }
        matched = _matched(criteria, values)
        domain = account.email_domains[0].lower() if account.email_domains else ""
        _keep(
            finder,
            f"domain:{domain}" if domain else f"account:{account.pk}",
            {
                "source": FoundLead.Source.ACCOUNT,
                "name": account.name[:200],
                "company": account.name[:200],
                "domain": domain,
                "industry": account.industry[:100],
                "group_account": account,
                "matched": matched,
                "score": _score(criteria, matched),
            },
            result,
        )


def _existing_contact(
    reader: Actor | Anyone, email: str, domain: str
) -> tuple[contacts_api.Contact | None, groupaccounts_api.GroupAccount | None]:
    contacts = contacts_api.contacts(reader)
    if email:
        found = contacts.filter(email__iexact=email).first()
        if found is not None:
            return found, None
    if domain:
        found = contacts.filter(email__iendswith=f"@{domain}").order_by("id").first()
        account = (
            groupaccounts_api.accounts(reader)
            .filter(Q(email_domains__contains=[domain]) | Q(website__icontains=domain))
            .first()
        )
        return found, account
    return None, None


def _from_provider(finder: DealFinder, reader: Actor | Anyone, result: RunResult) -> None:
    people, credits = enrichment.search(finder.criteria, size=finder.max_leads)
    result.credits += credits
    for found in people:
        domain = found.domain or _domain(found.email)
        contact, account = _existing_contact(reader, found.email, domain)
        values = {
            "text": " ".join([found.name, found.company, found.title, found.industry]),
            "industries": found.industry,
            "countries": found.country,
            "titles": found.title,
        }
        matched = _matched(finder.criteria, values)
        key = found.email or (f"domain:{domain}" if domain else f"provider:{found.ref}")
        _keep(
            finder,
            key,
            {
                "source": FoundLead.Source.PROVIDER,
                "name": found.name,
                "email": found.email,
                "company": found.company,
                "domain": domain,
                "title": found.title,
                "country": found.country,
                "industry": found.industry,
                "contact": contact,
                "group_account": account,
                "provider_ref": found.ref,
                "matched": matched,
                "score": _score(finder.criteria, matched),
            },
            result,
        )


def finder_run(*, finder: DealFinder, actor: Actor | None = None) -> RunResult:
    """Runs a finder over its sources now. A provider that fails is recorded on the finder
    (`problem`) and raised, with what the other sources found kept."""
    result = RunResult()
    runner = actor if actor is not None else finder.owner
    # The leads are as visible as the finder: one everyone sees finds only what everyone sees
    # (a lead made from someone's private contact would show it to all).
    shared = finder.visibility != Visibility.PRIVATE
    reader: Actor | Anyone = runner if runner is not None and not shared else ANYONE
    problem: AppError | None = None
    with transaction.atomic():
        if "contacts" in finder.sources:
            _from_contacts(finder, reader, result)
        if "accounts" in finder.sources:
            _from_accounts(finder, reader, result)
    if "provider" in finder.sources:
        try:
            with transaction.atomic():
                _from_provider(finder, reader, result)
        except AppError as error:
            problem = error
    now = timezone.now()
    finder.last_run_at = now
    finder.problem = str(problem.message)[:300] if problem else ""
    finder.credits_used += result.credits
    interval = INTERVAL.get(finder.schedule)  # type: ignore[call-overload]
    finder.next_run_at = now + interval if interval and finder.status == DealFinder.Status.ACTIVE else None
    finder.save(update_fields=["last_run_at", "problem", "credits_used", "next_run_at", "updated_at"])
    logger.info("deal finder %s ran: %s found, %s new", finder.pk, result.found, result.new)
    if problem is not None:
        raise problem
    return result


def run_due() -> int:
    """Celery beat: the active finders whose next run is due; a failing one is recorded on it
    and the others go on. Returns how many ran."""
    ran = 0
    due = DealFinder.objects.filter(
        status=DealFinder.Status.ACTIVE, deleted_at__isnull=True, next_run_at__lte=timezone.now()
    ).select_related("owner")
    for finder in due:
        try:
            finder_run(finder=finder)
        except AppError as error:
            logger.warning("deal finder %s: run failed (%s)", finder.pk, error.code)
        ran += 1
    return ran

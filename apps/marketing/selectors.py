"""Reads about marketing: the campaigns and segments an actor may see, a campaign's figures
(clicks first: opens are unreliable since Apple Mail Privacy Protection), and the dashboard."""

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Q, QuerySet, Sum

from apps.contacts import api as contacts_api
from apps.core.actors import Actor
from apps.core.search import matching
from apps.mail import api as mail
from apps.marketing.models import Campaign, Click, Consent, LandingPage, Segment, Send
from apps.marketing.sending import source_of


def campaigns(actor: Actor, *, query: str = "", status: str | None = None) -> QuerySet[Campaign]:
    rows = Campaign.objects.restrict(actor).select_related("owner", "segment")
    if status:
        rows = rows.filter(status=status)
    if query:
        rows = matching(rows, query, ("name", "subject", "body"))
    return rows.order_by("-created_at", "-id")


def segments(actor: Actor, *, query: str = "") -> QuerySet[Segment]:
    rows = Segment.objects.restrict(actor)
    if query:
        rows = matching(rows, query, ("name", "description"))
    return rows.order_by("name", "id")


@dataclass
class Figures:
    recipients: int = 0
    queued: int = 0
    sent: int = 0
    failed: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    clicks: int = 0
    clickers: int = 0
    opens: int = 0
    unsubscribes: int = 0
    complaints: int = 0
    bounced: int = 0
    # Of `bounced`, those that bounced after they were sent (the others were refused at sending).
    returned: int = 0
    # Of the campaign's landing pages (apps.marketing.landing): visits, and forms sent from them.
    visits: int = 0
    conversions: int = 0

    @property
    def click_rate(self) -> float:
        return round(self.clickers / self.sent, 4) if self.sent else 0.0

    @property
    def delivered(self) -> int:
        return max(self.sent - self.returned, 0)


def figures(campaign: Campaign) -> Figures:
    rows = Send.objects.filter(campaign=campaign)
    counted = rows.aggregate(
        recipients=Count("id"),
        queued=Count("id", filter=Q(state=Send.State.QUEUED)),
        sent=Count("id", filter=Q(state=Send.State.SENT)),
        failed=Count("id", filter=Q(state=Send.State.FAILED)),
        clickers=Count("id", filter=Q(clicked_at__isnull=False)),
        opens=Count("id", filter=Q(opened_at__isnull=False)),
    )
    skipped = dict(
        rows.filter(state=Send.State.SKIPPED)
        .values_list("reason")
        .annotate(n=Count("id"))
        .values_list("reason", "n")
    )
    gone = mail.suppression_counts(source=source_of(campaign.pk))
    sent_to = list(rows.filter(state=Send.State.SENT).values_list("email", flat=True))
    returned = mail.suppression_counts(source=source_of(campaign.pk), among=sent_to) if sent_to else {}
    return Figures(
        **counted,
        skipped=skipped,
        clicks=Click.objects.filter(send__campaign=campaign).count(),
        unsubscribes=gone.get("unsubscribed", 0),
        complaints=gone.get("complained", 0),
        bounced=gone.get("bounced", 0),
        returned=returned.get("bounced", 0),
        **landing_figures(campaign),
    )


def landing_figures(campaign: Campaign) -> dict[str, int]:
    """A campaign's live landing pages' visits and conversions, together."""
    counted = (
        LandingPage.objects.live().filter(campaign=campaign).aggregate(v=Sum("visits"), c=Sum("conversions"))
    )
    return {"visits": counted["v"] or 0, "conversions": counted["c"] or 0}


def landing_pages(actor: Actor) -> list[LandingPage]:
    return list(
        LandingPage.objects.restrict(actor)
        .select_related("owner", "campaign")
        .order_by("-updated_at", "-id")[:100]
    )


def consents(actor: Actor) -> QuerySet[Consent]:
    """The consent recorded for the contacts the actor sees: another person's private contact is
    not counted either."""
    return Consent.objects.filter(contact__in=contacts_api.contacts(actor).values("pk"))


def dashboard(actor: Actor) -> dict[str, Any]:
    rows = Campaign.objects.restrict(actor)
    by_status = dict(rows.values_list("status").annotate(n=Count("id")).values_list("status", "n"))
    consent = dict(consents(actor).values_list("status").annotate(n=Count("id")).values_list("status", "n"))
    return {
        "campaigns": {status.value: by_status.get(status.value, 0) for status in Campaign.Status},
        "segments": Segment.objects.restrict(actor).count(),
        "consent": {status.value: consent.get(status.value, 0) for status in Consent.Status},
        "suppressed": mail.suppression_counts(),
        "recent": list(rows.select_related("owner", "segment").order_by("-created_at", "-id")[:5]),
    }

"""Marketing's figures over a period (per campaign and per sequence: sent, delivered, bounced,
clicks, unsubscribes, conversions; opens last and flagged unreliable since Apple Mail Privacy
Protection), and recommendations and campaign suggestions computed from them by fixed rules, each
saying why. No model is asked: the same figures give the same advice."""

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.db.models import Count, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.core.actors import Actor
from apps.marketing import selectors, sending, sequences
from apps.marketing.models import (
    Campaign,
    Click,
    Consent,
    Conversion,
    EmailSequence,
    Enrollment,
    MarketingSettings,
    Segment,
    StepSend,
)

UNSUBSCRIBE_ALARM = 0.02  # more than 2 in 100 messages unsubscribed: the content or audience is off
LOW_CLICK_RATE = 0.01
MIN_SENT = 20  # fewer messages say nothing yet
MIN_CLICKS_FOR_HOUR = 10
SEGMENTS_LOOKED_AT = 10


@dataclass
class Row:
    kind: str  # campaign or sequence
    id: int
    name: str
    status: str
    sent: int = 0
    delivered: int = 0
    bounced: int = 0
    clicks: int = 0
    unique_clicks: int = 0
    unsubscribes: int = 0
    conversions: int | None = None
    opens: int = 0

    @property
    def click_rate(self) -> float:
        return round(self.unique_clicks / self.sent, 4) if self.sent else 0.0

    @property
    def unsubscribe_rate(self) -> float:
        return round(self.unsubscribes / self.sent, 4) if self.sent else 0.0


@dataclass
class Analytics:
    since: datetime
    until: datetime
    rows: list[Row] = field(default_factory=list)

    def total(self, name: str) -> int:
        return sum(getattr(row, name) or 0 for row in self.rows)


def period(since: datetime | None, until: datetime | None) -> tuple[datetime, datetime]:
    until = until or timezone.now()
    return since or until - timedelta(days=30), until


def analytics(actor: Actor, *, since: datetime | None = None, until: datetime | None = None) -> Analytics:
    start, end = period(since, until)
    found = Analytics(since=start, until=end)
    campaigns = (
        Campaign.objects.restrict(actor)
        .filter(launched_at__isnull=False)
        .filter(Q(launched_at__lt=end) & (Q(finished_at__isnull=True) | Q(finished_at__gte=start)))
        .order_by("-launched_at", "-id")
    )
    for campaign in campaigns[:200]:
        figures = selectors.figures(campaign)
        found.rows.append(
            Row(
                "campaign",
                campaign.pk,
                campaign.name,
                campaign.status,
                sent=figures.sent,
                delivered=figures.delivered,
                bounced=figures.bounced,
                clicks=figures.clicks,
                unique_clicks=figures.clickers,
                unsubscribes=figures.unsubscribes,
                conversions=Conversion.objects.filter(
                    page__campaign=campaign, page__deleted_at__isnull=True, at__gte=start, at__lt=end
                ).count(),
                opens=figures.opens,
            )
        )
    for sequence in sequences.sequences(actor).exclude(status=EmailSequence.Status.DRAFT)[:200]:
        counted = sequences.figures(sequence, since=start, until=end)
        found.rows.append(
            Row(
                "sequence",
                sequence.pk,
                sequence.name,
                sequence.status,
                sent=counted["sent"],
                delivered=max(counted["sent"] - counted["returned"], 0),
                bounced=counted["bounced"],
                clicks=counted["clickers"],
                unique_clicks=counted["clickers"],
                unsubscribes=counted["unsubscribes"],
                conversions=counted["conversions"],
                opens=counted["opens"],
            )
        )
    return found


def best_hour(actor: Actor) -> tuple[int, int] | None:
    """The hour of the day (the workspace's marketing time zone) with the most clicks on campaign
    mail the actor sees, and its clicks; None below MIN_CLICKS_FOR_HOUR clicks in all."""
    zone = ZoneInfo(MarketingSettings.current().time_zone)
    visible = Campaign.objects.restrict(actor).values("pk")
    moments = Click.objects.filter(send__campaign__in=visible).values_list("at", flat=True)[:20_000]
    by_hour: dict[int, int] = {}
    for moment in moments:
        hour = moment.astimezone(zone).hour
        by_hour[hour] = by_hour.get(hour, 0) + 1
    if sum(by_hour.values()) < MIN_CLICKS_FOR_HOUR:
        return None
    hour = max(sorted(by_hour), key=lambda h: by_hour[h])
    return hour, by_hour[hour]


@dataclass
class Advice:
    kind: str
    title: str
    why: str
    next_tool: str
    record_id: int | None = None
    figures: dict[str, Any] = field(default_factory=dict)


def recommendations(actor: Actor) -> list[Advice]:
    """What to do next, by fixed rules on the workspace's own figures, most pressing first."""
    found: list[Advice] = []
    settings = MarketingSettings.current()
    if not settings.postal_address.strip():
        found.append(
            Advice(
                "postal_address",
                _("Set the postal address"),
                _("No campaign or sequence sends without it: every marketing e-mail must carry one."),
                "getMarketingDashboard",
            )
        )
    recent = analytics(actor, since=timezone.now() - timedelta(days=90))
    for row in recent.rows:
        if row.sent >= MIN_SENT and row.unsubscribe_rate > UNSUBSCRIBE_ALARM:
            found.append(
                Advice(
                    f"{row.kind}_unsubscribes",
                    _("Review {kind} {name!r}: many unsubscribe").format(kind=row.kind, name=row.name),
                    _("{n} of {sent} recipients unsubscribed ({rate:.1%}), above {alarm:.0%}.").format(
                        n=row.unsubscribes, sent=row.sent, rate=row.unsubscribe_rate, alarm=UNSUBSCRIBE_ALARM
                    ),
                    "getEmailSequence" if row.kind == "sequence" else "getCampaignPerformance",
                    row.id,
                    {"sent": row.sent, "unsubscribes": row.unsubscribes},
                )
            )
        elif row.kind == "campaign" and row.sent >= MIN_SENT and row.click_rate < LOW_CLICK_RATE:
            found.append(
                Advice(
                    "campaign_low_clicks",
                    _("Campaign {name!r} drew few clicks").format(name=row.name),
                    _(
                        "{n} of {sent} recipients clicked ({rate:.1%}): try a clearer offer or another "
                        "segment."
                    ).format(n=row.unique_clicks, sent=row.sent, rate=row.click_rate),
                    "getCampaignPerformance",
                    row.id,
                    {"sent": row.sent, "uniqueClicks": row.unique_clicks},
                )
            )
    idle = (
        sequences.sequences(actor)
        .filter(status=EmailSequence.Status.ACTIVE)
        .annotate(active=Count("enrollments", filter=Q(enrollments__state=Enrollment.State.ACTIVE)))
        .filter(active=0)
    )
    for sequence in idle[:10]:
        found.append(
            Advice(
                "sequence_idle",
                _("Sequence {name!r} is active with nobody in it").format(name=sequence.name),
                _("It sends nothing until contacts are enrolled."),
                "enrollInEmailSequence",
                sequence.pk,
            )
        )
    pending = selectors.consents(actor).filter(status=Consent.Status.PENDING).count()
    if pending:
        found.append(
            Advice(
                "consent_pending",
                _("{n} contacts have not confirmed their consent").format(n=pending),
                _("Double opt-in waits for their click; until then no marketing e-mail reaches them."),
                "getMarketingDashboard",
                figures={"pending": pending},
            )
        )
    hour = best_hour(actor)
    if hour is not None:
        found.append(
            Advice(
                "send_hour",
                _("Send around {hour}:00").format(hour=hour[0]),
                _("The most clicks on your campaigns came at {hour}:00 ({n} clicks, {zone} time).").format(
                    hour=hour[0], n=hour[1], zone=settings.time_zone
                ),
                "launchMarketingCampaign",
                figures={"hour": hour[0], "clicks": hour[1]},
            )
        )
    return found


def campaign_suggestions(actor: Actor, *, limit: int = 10) -> list[Advice]:
    """Campaigns worth writing, from the workspace's own figures, each with why."""
    found: list[Advice] = []
    hour = best_hour(actor)
    when = _(" Send around {hour}:00, when yours are clicked most.").format(hour=hour[0]) if hour else ""
    mailed = set(
        Campaign.objects.filter(launched_at__isnull=False, segment__isnull=False).values_list(
            "segment_id", flat=True
        )
    )
    never = Segment.objects.restrict(actor).exclude(pk__in=mailed).order_by("-created_at", "-id")
    for segment in never[:SEGMENTS_LOOKED_AT]:
        audience = sending.audience(actor, segment)
        if audience.reached:
            found.append(
                Advice(
                    "segment_never_mailed",
                    _("A first campaign to {name!r}").format(name=segment.name),
                    _(
                        "The segment was never mailed and {n} of its contacts may get marketing e-mail."
                    ).format(n=len(audience.reached))
                    + when,
                    "createMarketingCampaign",
                    segment.pk,
                    {"reachable": len(audience.reached), "members": audience.members},
                )
            )
    campaigns = (
        Campaign.objects.restrict(actor).filter(status=Campaign.Status.SENT).order_by("-finished_at", "-id")
    )
    for campaign in campaigns[:5]:
        clickers = campaign.sends.filter(clicked_at__isnull=False).count()
        if clickers:
            found.append(
                Advice(
                    "follow_up_clickers",
                    _("A follow-up to who clicked {name!r}").format(name=campaign.name),
                    _("{n} recipients clicked it: they showed interest, a next offer suits them.").format(
                        n=clickers
                    )
                    + when,
                    "createMarketingCampaign",
                    campaign.pk,
                    {"clickers": clickers},
                )
            )
    for sequence in sequences.sequences(actor).filter(goal_stage__gt="")[:5]:
        finished = sequence.enrollments.filter(state=Enrollment.State.COMPLETED).count()
        if finished:
            found.append(
                Advice(
                    "sequence_finished_without_goal",
                    _("A campaign for who finished {name!r} without reaching its goal").format(
                        name=sequence.name
                    ),
                    _("{n} contacts got every step and are not {stage} yet.").format(
                        n=finished, stage=sequence.goal_stage
                    )
                    + when,
                    "createMarketingCampaign",
                    sequence.pk,
                    {"completed": finished},
                )
            )
    return found[:limit]


def facts(actor: Actor) -> dict[str, Any]:
    """The workspace's figures a strategy is written from (counts only, no person's data)."""
    recent = analytics(actor, since=timezone.now() - timedelta(days=90))
    return {
        "campaigns90Days": sum(1 for row in recent.rows if row.kind == "campaign"),
        "sequences": sum(1 for row in recent.rows if row.kind == "sequence"),
        "sent": recent.total("sent"),
        "uniqueClicks": recent.total("unique_clicks"),
        "unsubscribes": recent.total("unsubscribes"),
        "segments": Segment.objects.restrict(actor).count(),
        "consenting": selectors.consents(actor).filter(status=Consent.Status.GRANTED).count(),
        "stepsSent": StepSend.objects.filter(
            state=StepSend.State.SENT, enrollment__sequence__in=sequences.sequences(actor).values("pk")
        ).count(),
    }

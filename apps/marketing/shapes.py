"""What the marketing tools answer (camelCase JSON)."""

from datetime import datetime
from typing import Annotated, Any

from pydantic import Field

from apps.catalogue.shapes import Out, PersonRef, id_field
from apps.marketing.models import Campaign, Segment
from apps.marketing.selectors import Figures

CampaignId = Annotated[int, id_field("searchMarketingCampaigns")]
SegmentId = Annotated[int, id_field("listMarketingSegments")]


class RuleOut(Out):
    field: str
    op: str
    value: Any = None


class SegmentOut(Out):
    id: int
    name: str
    description: str
    match: str = Field(description="all: every rule; any: one rule")
    rules: list[RuleOut]
    updated_at: datetime

    @classmethod
    def of(cls, segment: Segment) -> "SegmentOut":
        return cls.of_record(segment, rules=[RuleOut(**rule) for rule in segment.rules])


class FiguresOut(Out):
    recipients: int = Field(description="Snapshotted at launch, skipped ones included")
    sent: int
    delivered: int
    bounced: int
    clicks: int
    unique_clicks: int
    click_rate: float = Field(description="Unique clicks / sent")
    unsubscribes: int
    complaints: int
    queued: int
    failed: int
    skipped: dict[str, int] = Field(description="By reason")
    opens: int = Field(description="Unreliable (Apple Mail Privacy Protection): clicks first")
    landing_visits: int = Field(0, description="Of its landing pages")
    conversions: int = Field(0, description="Forms sent from its landing pages")

    @classmethod
    def of(cls, found: Figures) -> "FiguresOut":
        return cls(
            recipients=found.recipients,
            sent=found.sent,
            delivered=found.delivered,
            bounced=found.bounced,
            clicks=found.clicks,
            unique_clicks=found.clickers,
            click_rate=found.click_rate,
            unsubscribes=found.unsubscribes,
            complaints=found.complaints,
            queued=found.queued,
            failed=found.failed,
            skipped=found.skipped,
            opens=found.opens,
            landing_visits=found.visits,
            conversions=found.conversions,
        )


class CampaignSummary(Out):
    id: int
    name: str
    subject: str
    status: str
    autonomy: str
    visibility: str
    owner: PersonRef | None
    segment_id: int | None
    mailbox_id: int | None
    launched_at: datetime | None
    finished_at: datetime | None
    updated_at: datetime

    @classmethod
    def of(cls, campaign: Campaign) -> "CampaignSummary":
        return cls.of_record(campaign, segment_id=campaign.segment_id, mailbox_id=campaign.mailbox_id)


class CampaignOut(CampaignSummary):
    body: str
    segment: SegmentOut | None

    @classmethod
    def of(cls, campaign: Campaign) -> "CampaignOut":
        return cls.of_record(
            campaign,
            segment_id=campaign.segment_id,
            mailbox_id=campaign.mailbox_id,
            segment=SegmentOut.of(campaign.segment) if campaign.segment else None,
        )

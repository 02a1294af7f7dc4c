"""Marketing: the workspace's settings for marketing mail, consent per contact, segments (rules on
contact fields), e-mail campaigns with their autonomy level, and per recipient the row of what was
sent (a snapshot of the segment made at launch) with its clicks. Workspace schema.

The suppression list (unsubscribed, bounced, complained) is the mail app's, shared with Deals'
reachout: apps.mail.api. apps.marketing.sending runs the campaigns."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.core.records import Access, OwnedRecord, Record, RecordQuerySet, name_once
from apps.marketing.permissions import MarketingPerm

USER = settings.AUTH_USER_MODEL


class MarketingSettings(models.Model):
    """The workspace's one row (pk 1): what every campaign obeys."""

    # Printed in every footer (CAN-SPAM): no launch without it.
    postal_address = models.TextField(_("postal address"), blank=True)
    # Consent recorded for a contact waits for their click on a confirmation e-mail.
    double_opt_in = models.BooleanField(_("double opt-in"), default=False)
    # At most `frequency_cap` marketing e-mails per address in `frequency_days` days.
    frequency_cap = models.PositiveSmallIntegerField(_("frequency cap"), default=4)
    frequency_days = models.PositiveSmallIntegerField(_("over days"), default=7)
    # No marketing e-mail between these hours of the recipient's local time ([start, end) wrapping
    # past midnight; equal: no quiet hours).
    quiet_start = models.PositiveSmallIntegerField(_("quiet hours start"), default=21)
    quiet_end = models.PositiveSmallIntegerField(_("quiet hours end"), default=8)
    # A recipient whose contact names none (`data.timeZone`) is in this one.
    time_zone = models.CharField(_("time zone"), max_length=64, default="UTC")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("marketing settings")
        constraints = [models.CheckConstraint(condition=models.Q(pk=1), name="marketing_settings_one")]

    def __str__(self) -> str:
        return "marketing settings"

    @classmethod
    def current(cls) -> "MarketingSettings":
        found, _made = cls.objects.get_or_create(pk=1)
        return found


class Consent(models.Model):
    """A contact's consent to marketing e-mail: granted, pending (double opt-in: their confirming
    click awaited) or withdrawn."""

    class Status(models.TextChoices):
        GRANTED = "granted", _("granted")
        PENDING = "pending", _("awaiting confirmation")
        WITHDRAWN = "withdrawn", _("withdrawn")

    access = Access(MarketingPerm, visibility="workspace", manage=MarketingPerm.LAUNCH, label=_("Consent"))

    contact = models.OneToOneField("contacts.Contact", on_delete=models.CASCADE, related_name="+")
    status = models.CharField(_("status"), max_length=10, choices=Status.choices)
    # Where it was given ("signup form", "trade fair 2026"): never a person's name.
    source = models.CharField(_("source"), max_length=100, blank=True)
    recorded_at = models.DateTimeField(default=timezone.now)
    confirmed_at = models.DateTimeField(null=True, blank=True)
    recorded_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")

    objects = RecordQuerySet.as_manager()

    class Meta:
        ordering = ["-recorded_at", "-id"]
        verbose_name = _("marketing consent")

    def __str__(self) -> str:
        return f"consent {self.pk}"


class Segment(Record):
    class Match(models.TextChoices):
        ALL = "all", _("every rule")
        ANY = "any", _("any rule")

    access = Access(
        MarketingPerm,
        visibility="workspace",
        label=_("Segment"),
        find_with="listMarketingSegments",
        trash_hint=_("Create it again with createMarketingSegment."),
    )

    name = models.CharField(_("name"), max_length=120)
    description = models.CharField(_("description"), max_length=500, blank=True)
    match = models.CharField(_("match"), max_length=3, choices=Match.choices, default=Match.ALL)
    # [{"field": "country", "op": "equals", "value": "DE"}, ...] (apps.marketing.segments).
    rules = models.JSONField(_("rules"), default=list)

    class Meta:
        ordering = ["name", "id"]
        verbose_name = _("segment")
        constraints = [name_once("marketing_segment_name_once")]

    def __str__(self) -> str:
        return self.name


class Campaign(OwnedRecord):
    class Status(models.TextChoices):
        DRAFT = "draft", _("draft")
        SENDING = "sending", _("sending")
        PAUSED = "paused", _("paused")
        SENT = "sent", _("sent")

    class Autonomy(models.TextChoices):
        # A person launches it on the Settings page; an agent's launch is refused.
        MANUAL = "manual", _("a person launches it")
        # An agent launches it once the person confirms (the default).
        APPROVE = "approve", _("an agent launches it with the person's confirmation")
        # An agent launches it without asking.
        AUTONOMOUS = "autonomous", _("an agent launches it alone")

    access = Access(
        MarketingPerm,
        label=_("Campaign"),
        find_with="searchMarketingCampaigns",
        trash_hint=_("Create it again with createMarketingCampaign."),
    )

    name = models.CharField(_("name"), max_length=120)
    subject = models.CharField(_("subject"), max_length=200)
    # Plain text; links in it are tracked (apps.marketing.tracking). {first_name} and {name} fill in.
    body = models.TextField(_("body"))
    segment = models.ForeignKey(
        Segment, on_delete=models.PROTECT, null=True, blank=True, related_name="campaigns"
    )
    # The mail app's mailbox it is sent from; null once the mailbox is gone.
    mailbox = models.ForeignKey(
        "mail.Mailbox", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.DRAFT)
    autonomy = models.CharField(
        _("autonomy"), max_length=10, choices=Autonomy.choices, default=Autonomy.APPROVE
    )
    launched_at = models.DateTimeField(null=True, blank=True)
    launched_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("campaign")
        constraints = [name_once("marketing_campaign_name_once")]

    def __str__(self) -> str:
        return self.name


class Reported(models.TextChoices):
    """What came back about a sent message later (apps.marketing.bounces: a delivery report)."""

    SOFT_BOUNCE = "soft_bounce", _("bounced for now")
    HARD_BOUNCE = "hard_bounce", _("bounced")
    COMPLAINT = "complaint", _("marked as spam")


class Send(models.Model):
    """One recipient of a launched campaign: the segment's member as it was at launch. A queued
    row gets its outbox row (apps.mail) in the transaction that queues the message, so it is never
    sent twice; a skipped row says why."""

    class State(models.TextChoices):
        QUEUED = "queued", _("queued")
        SENT = "sent", _("sent")
        FAILED = "failed", _("refused by the mail server")
        SKIPPED = "skipped", _("skipped")

    class Reason(models.TextChoices):
        UNSUBSCRIBED = "unsubscribed", _("unsubscribed")
        BOUNCED = "bounced", _("bounced before")
        COMPLAINED = "complained", _("complained")
        SUPPRESSED = "suppressed", _("on the suppression list")
        NO_CONSENT = "no_consent", _("no consent")
        CAP = "cap", _("frequency cap reached")

    access = Access(
        MarketingPerm, through="campaign", label=_("Campaign recipient"), find_with="getMarketingCampaign"
    )

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="sends")
    contact = models.ForeignKey(
        "contacts.Contact", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    email = models.CharField(max_length=254)  # lower case
    name = models.CharField(max_length=200, blank=True)
    time_zone = models.CharField(max_length=64, blank=True)
    state = models.CharField(max_length=10, choices=State.choices, default=State.QUEUED)
    reason = models.CharField(max_length=15, choices=Reason.choices, blank=True)
    due_at = models.DateTimeField(null=True, blank=True)  # quiet hours move it
    outgoing = models.ForeignKey(
        "mail.Outgoing", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    message_id = models.CharField(max_length=998, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    opened_at = models.DateTimeField(null=True, blank=True)
    clicked_at = models.DateTimeField(null=True, blank=True)
    reported = models.CharField(max_length=12, choices=Reported.choices, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    objects = RecordQuerySet.as_manager()

    class Meta:
        ordering = ["campaign", "id"]
        constraints = [models.UniqueConstraint(fields=["campaign", "email"], name="marketing_send_once")]
        indexes = [
            models.Index(fields=["state", "due_at"], name="marketing_send_due"),
            models.Index(fields=["email", "sent_at"], name="marketing_send_cap"),
            models.Index(fields=["message_id"], name="marketing_send_message"),  # a report's
        ]

    def __str__(self) -> str:
        return f"send {self.pk}"


class Click(models.Model):
    """A click on a tracked link of a sent campaign message (apps.marketing.tracking)."""

    access = Access(MarketingPerm, through="send", label=_("Click"))

    send = models.ForeignKey(Send, on_delete=models.CASCADE, related_name="clicks")
    url = models.URLField(max_length=2000)
    at = models.DateTimeField(default=timezone.now)

    objects = RecordQuerySet.as_manager()

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["send", "at"], name="marketing_click_send")]

    def __str__(self) -> str:
        return f"click {self.pk}"


# --- content (createMarketingContent ... publishMarketingContent) --------------------------------


class ContentItem(OwnedRecord):
    """A piece of marketing content: an e-mail's body, a social post, a blog article or an ad, with
    variants to try (A/B) and where it went when published. Its HTML is sanitised on save (nh3)."""

    class Type(models.TextChoices):
        EMAIL = "email", _("e-mail")
        SOCIAL = "social", _("social post")
        BLOG = "blog", _("blog article")
        AD = "ad", _("ad")

    class Status(models.TextChoices):
        DRAFT = "draft", _("draft")
        SCHEDULED = "scheduled", _("scheduled")
        PUBLISHED = "published", _("published")

    access = Access(
        MarketingPerm,
        label=_("Marketing content"),
        find_with="searchMarketingContent",
        trash_hint=_("Create it again with createMarketingContent."),
    )

    name = models.CharField(_("name"), max_length=120)
    type = models.CharField(_("type"), max_length=10, choices=Type.choices)
    # E-mail: the subject; social and ads: the headline (not posted); blog: the title.
    title = models.CharField(_("title"), max_length=200, blank=True)
    # Sanitised HTML (apps.marketing.content.safe_html); social content is plain text.
    body = models.TextField(_("body"), blank=True)
    # Other versions of the body to try: [{"label": "B", "body": "..."}].
    variants = models.JSONField(_("variants"), default=list)
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.DRAFT)
    # Written by a model (generateMarketingContent): labelled as such where it is shown.
    ai_generated = models.BooleanField(_("made by a model"), default=False)
    # Where it went: "campaign:12", "social:34".
    published_to = models.CharField(_("published to"), max_length=60, blank=True)
    published_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-updated_at", "-id"]
        verbose_name = _("marketing content")
        constraints = [name_once("marketing_content_name_once")]


# --- e-mail sequences and marketing plans (apps.marketing.sequences, apps.marketing.plans) -------


class EmailSequence(OwnedRecord):
    """Steps of e-mail sent to each enrolled contact after its delay, through the same sending
    path as campaigns; a contact leaves on reply, unsubscribe or the goal."""

    class Status(models.TextChoices):
        DRAFT = "draft", _("draft")
        ACTIVE = "active", _("active")
        PAUSED = "paused", _("paused")

    access = Access(
        MarketingPerm,
        label=_("E-mail sequence"),
        find_with="getMarketingAnalytics",
        trash_hint=_("Create it again with createEmailSequence."),
    )

    name = models.CharField(_("name"), max_length=120)
    # [{"subject", "body", "delayHours", "condition", "aiGenerated"}, ...] (apps.marketing.sequences).
    steps = models.JSONField(_("steps"), default=list)
    # A contact reaching this lifecycle stage has reached the goal and leaves ("" : no goal).
    goal_stage = models.CharField(_("goal: lifecycle stage"), max_length=20, blank=True)
    mailbox = models.ForeignKey(
        "mail.Mailbox", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.DRAFT)
    activated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["name", "id"]
        verbose_name = _("e-mail sequence")
        constraints = [name_once("marketing_sequence_name_once")]

    def __str__(self) -> str:
        return self.name


class BrandKit(models.Model):
    """The workspace's one brand kit (pk 1): what designs and generated copy follow. Edited on
    Settings → Marketing; read by getBrandKit."""

    # "#RRGGBB" each: primary first.
    colours = models.JSONField(_("colours"), default=list)
    heading_font = models.CharField(_("heading font"), max_length=80, default="DejaVu Sans")
    body_font = models.CharField(_("body font"), max_length=80, default="DejaVu Sans")
    # Files ids of the logos (apps.files), first the main one.
    logo_file_ids = models.JSONField(_("logos"), default=list)
    # How the brand speaks ("warm, plain, no jargon"): given to the model that writes copy.
    voice = models.TextField(_("voice"), blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("brand kit")
        constraints = [models.CheckConstraint(condition=models.Q(pk=1), name="marketing_brand_kit_one")]

    def __str__(self) -> str:
        return "brand kit"

    @classmethod
    def current(cls) -> "BrandKit":
        found, _made = cls.objects.get_or_create(pk=1)
        return found


class Enrollment(models.Model):
    """One contact's way through a sequence: the step due next, or why they left. Enrolling again
    (explicit) starts a new `round`."""

    class State(models.TextChoices):
        ACTIVE = "active", _("active")
        COMPLETED = "completed", _("every step sent")
        REPLIED = "replied", _("replied")
        UNSUBSCRIBED = "unsubscribed", _("unsubscribed or suppressed")
        GOAL = "goal", _("reached the goal")
        NO_CONSENT = "no_consent", _("consent withdrawn")
        REMOVED = "removed", _("removed")

    access = Access(MarketingPerm, through="sequence", label=_("Enrollment"), find_with="getEmailSequence")

    sequence = models.ForeignKey(EmailSequence, on_delete=models.CASCADE, related_name="enrollments")
    contact = models.ForeignKey(
        "contacts.Contact", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    email = models.CharField(max_length=254)  # lower case
    name = models.CharField(max_length=200, blank=True)
    time_zone = models.CharField(max_length=64, blank=True)
    state = models.CharField(max_length=12, choices=State.choices, default=State.ACTIVE)
    round = models.PositiveSmallIntegerField(default=1)
    next_step = models.PositiveSmallIntegerField(default=0)  # index into the sequence's steps
    next_due_at = models.DateTimeField(null=True, blank=True)
    enrolled_at = models.DateTimeField(default=timezone.now)
    exited_at = models.DateTimeField(null=True, blank=True)

    objects = RecordQuerySet.as_manager()

    class Meta:
        ordering = ["sequence", "id"]
        constraints = [
            models.UniqueConstraint(fields=["sequence", "email"], name="marketing_enrollment_once")
        ]
        indexes = [models.Index(fields=["state", "next_due_at"], name="marketing_enrollment_due")]

    def __str__(self) -> str:
        return f"enrollment {self.pk}"


class StepSend(models.Model):
    """One step's message to one enrolled contact: made with its outbox row in one transaction
    before anything is sent, unique per (enrollment, round, step), so no step goes twice."""

    class State(models.TextChoices):
        QUEUED = "queued", _("queued")
        SENT = "sent", _("sent")
        FAILED = "failed", _("refused by the mail server")
        SKIPPED = "skipped", _("skipped: its condition was not met")

    access = Access(MarketingPerm, through="enrollment", label=_("Sequence message"))

    enrollment = models.ForeignKey(Enrollment, on_delete=models.CASCADE, related_name="sends")
    round = models.PositiveSmallIntegerField(default=1)
    step = models.PositiveSmallIntegerField()
    email = models.CharField(max_length=254)
    state = models.CharField(max_length=10, choices=State.choices, default=State.QUEUED)
    outgoing = models.ForeignKey(
        "mail.Outgoing", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    message_id = models.CharField(max_length=998, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    opened_at = models.DateTimeField(null=True, blank=True)
    clicked_at = models.DateTimeField(null=True, blank=True)
    reported = models.CharField(max_length=12, choices=Reported.choices, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    objects = RecordQuerySet.as_manager()

    class Meta:
        ordering = ["enrollment", "round", "step"]
        constraints = [
            models.UniqueConstraint(fields=["enrollment", "round", "step"], name="marketing_step_send_once")
        ]
        indexes = [
            models.Index(fields=["email", "sent_at"], name="marketing_step_send_cap"),
            models.Index(fields=["message_id"], name="marketing_step_send_message"),  # a report's
        ]

    def __str__(self) -> str:
        return f"step send {self.pk}"


class MarketingPlan(OwnedRecord):
    """Goals, channels, budget and period of the workspace's marketing, with its campaigns."""

    access = Access(
        MarketingPerm,
        label=_("Marketing plan"),
        find_with="getMarketingAnalytics",
        trash_hint=_("Create it again with createMarketingPlan."),
    )

    name = models.CharField(_("name"), max_length=120)
    summary = models.TextField(_("summary"), blank=True)
    # [{"text": "200 sign-ups", "metric": "clicks", "target": 200}, ...]
    goals = models.JSONField(_("goals"), default=list)
    channels = models.JSONField(_("channels"), default=list)
    budget = models.DecimalField(_("budget"), max_digits=14, decimal_places=2, null=True, blank=True)
    currency = models.CharField(_("currency"), max_length=3, blank=True)
    starts_on = models.DateField(_("starts"), null=True, blank=True)
    ends_on = models.DateField(_("ends"), null=True, blank=True)
    campaigns = models.ManyToManyField(Campaign, blank=True, related_name="plans")
    ai_generated = models.BooleanField(default=False)

    class Meta:
        ordering = ["-starts_on", "name", "id"]
        verbose_name = _("marketing plan")
        constraints = [name_once("marketing_plan_name_once")]

    def __str__(self) -> str:
        return self.name


# --- landing pages and designs (apps.marketing.landing, apps.marketing.designs) -----------------


class LandingPage(OwnedRecord):
    """A page on the workspace's host (`/p/<slug>/`) for people not signed in: blocks (heading,
    text, image, call to action, a Form Builder form), served while published and the workspace's.
    Its visits and conversions (the form sent from it, with the visit's UTM parameters) are
    counted; a campaign it belongs to shows them in its figures."""

    class Status(models.TextChoices):
        DRAFT = "draft", _("draft")
        PUBLISHED = "published", _("published")

    access = Access(
        MarketingPerm,
        label=_("Landing page"),
        find_with="getMarketingDashboard",
        trash_hint=_("Restore it with deleteLandingPage (restore: true) first if it is still needed."),
    )

    name = models.CharField(_("name"), max_length=120)
    slug = models.SlugField(_("address"), max_length=80)
    title = models.CharField(_("title"), max_length=200)
    # The Open Graph description and the search engines' summary.
    description = models.CharField(_("description"), max_length=300, blank=True)
    # [{"type": "heading"|"text"|"image"|"cta"|"form", ...}] (apps.marketing.landing.BLOCKS).
    blocks = models.JSONField(_("blocks"), default=list)
    campaign = models.ForeignKey(
        Campaign, on_delete=models.SET_NULL, null=True, blank=True, related_name="landing_pages"
    )
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.DRAFT)
    published_at = models.DateTimeField(null=True, blank=True)
    visits = models.PositiveIntegerField(_("visits"), default=0)
    conversions = models.PositiveIntegerField(_("conversions"), default=0)

    class Meta:
        ordering = ["-updated_at", "-id"]
        verbose_name = _("landing page")
        constraints = [
            name_once("marketing_landing_name_once"),
            models.UniqueConstraint(
                "slug", condition=models.Q(deleted_at__isnull=True), name="marketing_landing_slug_once"
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Visit(models.Model):
    """A counted visit of a published landing page (apps.marketing.visits.visited): the visitor as
    a keyed digest of their address, browser and the day (neither kept; a new digest each day), so
    that one visitor's reloads within 30 minutes count once, and the UTM parameters they came with."""

    page = models.ForeignKey(LandingPage, on_delete=models.CASCADE, related_name="visit_rows")
    visitor = models.CharField(max_length=64)
    utm = models.JSONField(default=dict, blank=True)
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name = _("landing page visit")
        indexes = [models.Index(fields=["page", "visitor", "at"], name="marketing_visit_visitor")]

    def __str__(self) -> str:
        return f"visit {self.pk}"


class Conversion(models.Model):
    """A form sent from a landing page: the submission (apps.forms) and the UTM parameters the
    visitor came with."""

    page = models.ForeignKey(LandingPage, on_delete=models.CASCADE, related_name="conversion_rows")
    submission_id = models.PositiveBigIntegerField()
    utm = models.JSONField(default=dict)
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name = _("landing page conversion")

    def __str__(self) -> str:
        return f"conversion {self.pk}"


class DesignAsset(OwnedRecord):
    """A design (an SVG and a PNG rendered from a size preset and the brand kit, refined in
    versions) or an image a model made; their files are in Files."""

    class Kind(models.TextChoices):
        DESIGN = "design", _("design")
        IMAGE = "image", _("generated image")

    access = Access(
        MarketingPerm,
        label=_("Design asset"),
        find_with="listDesignAssets",
        trash_hint=_("Restore it with deleteDesignAsset (restore: true) first if it is still needed."),
    )

    name = models.CharField(_("name"), max_length=120)
    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices)
    preset = models.CharField(_("size preset"), max_length=30, blank=True)
    width = models.PositiveIntegerField(default=0)
    height = models.PositiveIntegerField(default=0)
    # A design's headline, body, colours, layout and logo (apps.marketing.designs.render).
    spec = models.JSONField(default=dict)
    version = models.PositiveIntegerField(default=1)
    # The earlier versions: [{"version", "spec", "pngFileId", "svgFileId"}].
    history = models.JSONField(default=list)
    png_file_id = models.PositiveBigIntegerField(null=True, blank=True)
    svg_file_id = models.PositiveBigIntegerField(null=True, blank=True)
    prompt = models.TextField(_("prompt"), blank=True)
    ai_generated = models.BooleanField(_("made by a model"), default=False)

    class Meta:
        ordering = ["-updated_at", "-id"]
        verbose_name = _("design asset")
        constraints = [name_once("marketing_design_name_once")]

    def __str__(self) -> str:
        return self.name

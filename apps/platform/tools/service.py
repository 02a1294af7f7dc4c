"""The service itself, as a workspace sees it: what it used and what the meter charges, help from the
project's own pages, tickets to the service's operators, whether a task can be done here, and what
a mobile app of the workspace is built with.

Usage and rates come from the API keys' ledger and the gateway's prices (apps.core.spending, filled
by those doors), the calls from the catalogue's log of tool calls: no figure is kept twice.
"""

import logging
import re
import smtplib
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, Literal, cast

from django.conf import settings
from django.db.models import Count, Q
from django.urls import NoReverseMatch, reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from pydantic import Field

from apps.catalogue import dispatch, registry, search
from apps.catalogue.checks import description_body, first_sentence
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.models import ToolCall
from apps.catalogue.registry import tool
from apps.catalogue.shapes import Out
from apps.core import clean, spending
from apps.core.errors import invalid
from apps.core.permissions import area_title
from apps.core.recurrence import workspace_zone
from apps.core.workspaces import brand, current_workspace
from apps.mail import api as mail
from apps.platform import help
from apps.platform.errors import (
    BadAppId,
    BillingPeriodTooLong,
    HelpUnavailable,
    SupportTicketsTooMany,
    SupportTicketsTooManyToday,
    UnknownModel,
)
from apps.platform.models import SupportTicket
from apps.platform.permissions import PlatformPerm
from apps.tenancy.links import site_origin

logger = logging.getLogger(__name__)

MICRO = Decimal(1_000_000)
# The longest period getBillingSummary sums at once.
MOST_DAYS = 366
# Where the MCP door answers (routed before Django's URLs: apps.mcp.consumers).
MCP_PATH = "/api/mcp"
GATEWAY_PATH = "/api/agent"


def _usd(micro_usd: int) -> Decimal:
    return (Decimal(micro_usd) / MICRO).quantize(Decimal("0.000001"))


# --- usage and rates -------------------------------------------------------------------------------


class ModelRateOut(Out):
    model: str
    in_use: bool = Field(description="The model the service's agent calls now")
    input: Decimal = Field(description="USD per million input tokens")
    output: Decimal = Field(description="USD per million output tokens")
    cache_read: Decimal
    cache_write: Decimal
    estimate_usd: Decimal | None = Field(description="What the tokens asked about would cost")


def _rate(rate: spending.ModelRate, *, input_tokens: int = 0, output_tokens: int = 0) -> ModelRateOut:
    estimate = None
    if input_tokens or output_tokens:
        # The meter's arithmetic: micro-dollars per token, rounded up to a whole micro-dollar.
        micro = rate.input * input_tokens + rate.output * output_tokens
        estimate = _usd(int(micro.to_integral_value(rounding="ROUND_CEILING")))
    return ModelRateOut(
        model=rate.model,
        in_use=rate.in_use,
        input=rate.input,
        output=rate.output,
        cache_read=rate.cache_read,
        cache_write=rate.cache_write,
        estimate_usd=estimate,
    )


class RatesOut(Out):
    currency: str
    models: list[ModelRateOut] = Field(description="Empty: no model is priced, the agent answers without one")
    tool_call_usd: Decimal = Field(description="What one tool call costs in itself")
    metering: str


METERING = _(
    "Model calls of the service's agent (the message gateway, agent steps of tasks, the re-ranking of "
    "searchTools when on) are charged to an API key by the tokens used, at these rates; tool calls "
    "themselves are not charged."
)


@tool("checkRates", permission=PlatformPerm.VIEW, title="Rates the meter charges", read_only=True)
def check_rates(
    ctx: ToolContext,
    *,
    model: Annotated[str | None, Field(max_length=200, description="Only this model")] = None,
    input_tokens: Annotated[
        int, Field(ge=0, le=100_000_000, description="Tokens in, to estimate a cost")
    ] = 0,
    output_tokens: Annotated[int, Field(ge=0, le=100_000_000, description="and so many out")] = 0,
) -> RatesOut:
    """Show the model and tool rates the service meters AI use with, and estimate what tokens cost.

    What the workspace spent: getBillingSummary."""
    rates = spending.rates()
    if model is not None:
        chosen = [rate for rate in rates if rate.model == model.strip()]
        if not chosen:
            known = ", ".join(rate.model for rate in rates) or _("none (no model is configured)")
            raise UnknownModel(model=model, known=known)
        rates = chosen
    return RatesOut(
        currency="USD",
        models=[_rate(rate, input_tokens=input_tokens, output_tokens=output_tokens) for rate in rates],
        tool_call_usd=Decimal(0),
        metering=str(METERING),
    )


class KeyUseOut(Out):
    id: int
    label: str
    owner_email: str
    active: bool
    budget_usd_cents: int | None = Field(description="null: no limit")
    budget_period: str
    spent_in_budget_period_usd: Decimal
    spent_usd: Decimal = Field(description="In the period asked about")
    model_calls: int
    conversations: int
    input_tokens: int = Field(description="Read by the model in the period, cached included")
    output_tokens: int = Field(description="Written by the model in the period")


class AreaCallsOut(Out):
    area: str
    title: str
    calls: int
    failed: int = Field(description="Refused or failed calls among them")


class BillingSummaryOut(Out):
    start: date
    end: date
    currency: str
    spent_usd: Decimal = Field(description="Model use charged to the workspace's API keys in the period")
    model_calls: int
    conversations: int
    input_tokens: int = Field(description="The tokens the model read for the workspace in the period")
    output_tokens: int = Field(description="The tokens the model wrote for it")
    spent_this_month_usd: Decimal
    spent_all_time_usd: Decimal
    reserved_usd: Decimal = Field(description="Held for model calls under way")
    keys: list[KeyUseOut]
    tool_calls: int
    tool_calls_by_area: list[AreaCallsOut]
    model: ModelRateOut | None = Field(description="The model in use and its rates")


@tool("getBillingSummary", permission=PlatformPerm.ADMIN, title="Billing and usage summary", read_only=True)
def get_billing_summary(
    ctx: ToolContext,
    *,
    start: Annotated[date | None, Field(description="First day; default: the 1st of this month")] = None,
    end: Annotated[date | None, Field(description="Last day, included; default: today")] = None,
) -> BillingSummaryOut:
    """Summarise the workspace's metered use over a period: AI spend per API key, model and tool usage.

    The rates: checkRates. One person's keys: listApiKeys."""
    zone = workspace_zone()
    today = timezone.now().astimezone(zone).date()
    end = end or today
    start = start or end.replace(day=1)
    if end < start:
        raise invalid("end", _("must be on or after {start}"), start=start.isoformat())
    if (end - start).days >= MOST_DAYS:
        raise BillingPeriodTooLong(days=MOST_DAYS, start=start.isoformat(), end=end.isoformat())
    keys = spending.keys().used_between(start=start, end=end)
    totals = spending.keys().spend()
    since = datetime.combine(start, time.min, tzinfo=zone)
    until = datetime.combine(end + timedelta(days=1), time.min, tzinfo=zone)
    failed = ~Q(outcome=ToolCall.Outcome.OK)
    by_tool = (
        ToolCall.objects.filter(at__gte=since, at__lt=until)
        .values("tool")
        .annotate(calls=Count("id"), failed=Count("id", filter=failed))
    )
    by_area: dict[str, list[int]] = {}
    for row in by_tool:
        spec = registry.get(row["tool"])
        counts = by_area.setdefault(spec.area if spec is not None else "", [0, 0])
        counts[0] += row["calls"]
        counts[1] += row["failed"]
    in_use = next((rate for rate in spending.rates() if rate.in_use), None)
    return BillingSummaryOut(
        start=start,
        end=end,
        currency="USD",
        spent_usd=_usd(sum(key.spent_micro_usd for key in keys)),
        model_calls=sum(key.model_calls for key in keys),
        conversations=sum(key.conversations for key in keys),
        input_tokens=sum(key.input_tokens for key in keys),
        output_tokens=sum(key.output_tokens for key in keys),
        spent_this_month_usd=_usd(totals.this_month_micro_usd),
        spent_all_time_usd=_usd(totals.total_micro_usd),
        reserved_usd=_usd(totals.reserved_micro_usd),
        keys=[
            KeyUseOut(
                id=key.id,
                label=key.label,
                owner_email=key.owner_email,
                active=key.active,
                budget_usd_cents=key.budget_usd_cents,
                budget_period=key.budget_period,
                spent_in_budget_period_usd=_usd(key.spent_in_period_micro_usd),
                spent_usd=_usd(key.spent_micro_usd),
                model_calls=key.model_calls,
                conversations=key.conversations,
                input_tokens=key.input_tokens,
                output_tokens=key.output_tokens,
            )
            for key in keys
        ],
        tool_calls=sum(calls for calls, _failed in by_area.values()),
        tool_calls_by_area=[
            AreaCallsOut(
                area=area or "removed",
                title=str(area_title(area)) if area else str(_("Tools no longer in the catalogue")),
                calls=calls,
                failed=failed_calls,
            )
            for area, (calls, failed_calls) in sorted(
                by_area.items(), key=lambda item: (-item[1][0], item[0])
            )
        ],
        model=_rate(in_use) if in_use is not None else None,
    )


# --- help ------------------------------------------------------------------------------------------


class HelpArticleOut(Out):
    title: str = Field(description="The page's headings down to the article's")
    snippet: str
    link: str = Field(description="The served page, or the page's path in the project and its anchor")
    score: float


class HelpArticlesOut(Out):
    query: str
    articles: list[HelpArticleOut]


def _link(article: help.Article) -> str:
    served = help.SERVED.get(article.page)
    if served:
        try:
            return f"{site_origin()}{reverse(served)}#{article.anchor}"
        except NoReverseMatch:
            pass
    return f"docs/{article.page}#{article.anchor}"


@tool("searchHelpArticles", permission=PlatformPerm.VIEW, title="Search the help pages", read_only=True)
def search_help_articles(
    ctx: ToolContext,
    *,
    query: Annotated[str, Field(min_length=1, max_length=300, description="A question or words")],
    limit: Annotated[int, Field(ge=1, le=20, description="How many articles (1-20)")] = 5,
) -> HelpArticlesOut:
    """Search the service's own help and documentation pages for how something works, best first.

    Tools for a task: searchTools; whether it can be done here: assessFeasibility."""
    query = clean.text(query, field="query", limit=300, required=True)
    found = help.search(query, limit=limit)
    if found is None:
        raise HelpUnavailable()
    return HelpArticlesOut(
        query=query,
        articles=[
            HelpArticleOut(
                title=hit.article.title, snippet=hit.snippet, link=_link(hit.article), score=hit.score
            )
            for hit in found
        ],
    )


# --- support tickets to the service's operators ----------------------------------------------------


class SupportTicketOut(Out):
    id: int
    category: str
    subject: str
    status: str = Field(description="open, answered or closed")
    reply: str = Field(description="The operators' answer, once given")
    created_at: datetime
    updated_at: datetime


class CreatedTicketOut(Out):
    ticket: SupportTicketOut
    operators_notified: bool = Field(description="false: kept for the operators, no e-mail went out")
    your_tickets: list[SupportTicketOut] = Field(description="Your latest tickets and where they stand")


def _notify_operators(ticket: SupportTicket, who: str) -> bool:
    address = settings.PLATFORM_SUPPORT_EMAIL
    workspace = current_workspace()
    if not address:
        return False
    text = (
        f"Workspace: {workspace.name if workspace else ''} ({workspace.schema_name if workspace else ''}, "
        f"{site_origin()})\nFrom: {who}\nCategory: {ticket.category}\nTicket: {ticket.pk}\n\n{ticket.body}\n"
    )
    try:
        mail.send(
            [
                mail.Notice(
                    to=[address],
                    subject=f"[{brand()}] #{ticket.pk} {ticket.subject}",
                    text=text,
                    reply_to=who,
                )
            ]
        )
    except (OSError, smtplib.SMTPException) as error:
        logger.warning("support ticket %s: the operators were not told (%s)", ticket.pk, type(error).__name__)
        return False
    return True


@tool("createSupportTicket", permission=PlatformPerm.VIEW, title="Ask the service's operators")
def create_support_ticket(
    ctx: ToolContext,
    *,
    subject: Annotated[str, Field(max_length=200, description="One line the operators read first")],
    body: Annotated[str, Field(max_length=5000, description="What happened or what you need")],
    category: Annotated[
        Literal["question", "problem", "billing", "account", "feature"],
        Field(description="problem: something does not work; account: access, sign-in"),
    ] = "question",
) -> CreatedTicketOut:
    """Send a ticket to the operators of the service itself and see your tickets' state.

    A customer's ticket to this workspace: createCustomerServiceTicket."""
    subject = clean.text(subject, field="subject", limit=200, required=True)
    body = clean.long_text(body, field="body", limit=5000, required=True)
    now = timezone.now()
    mine = SupportTicket.objects.filter(requested_by=ctx.actor.pk)
    recent = mine.filter(created_at__gte=now - timedelta(hours=1)).count()
    if recent >= settings.PLATFORM_SUPPORT_TICKETS_PER_HOUR:
        raise SupportTicketsTooMany(count=recent, headers={"Retry-After": "3600"})
    today = SupportTicket.objects.filter(created_at__gte=now - timedelta(days=1)).count()
    if today >= settings.PLATFORM_SUPPORT_TICKETS_PER_DAY:
        raise SupportTicketsTooManyToday(count=today)
    ticket = SupportTicket.objects.create(
        requested_by_id=ctx.actor.pk, category=category, subject=subject, body=body
    )
    email = cast(str, getattr(ctx.actor, "email", ""))
    if _notify_operators(ticket, email):
        ticket.operators_notified = True
        ticket.save(update_fields=["operators_notified", "updated_at"])
    return CreatedTicketOut(
        ticket=SupportTicketOut.of_record(ticket),
        operators_notified=ticket.operators_notified,
        your_tickets=[SupportTicketOut.of_record(row) for row in mine.order_by("-created_at", "-id")[:10]],
    )


# --- feasibility -----------------------------------------------------------------------------------

Verdict = Literal["ready", "needs_permission", "needs_write_access", "needs_area", "no_tool"]
STATUS = {
    "": "ready",
    "role": "needs_permission",
    "scope": "needs_write_access",
    "area_not_installed": "needs_area",
}


class FeasibleToolOut(Out):
    name: str
    area: str
    summary: str
    status: Verdict = Field(description="ready: you may call it now")
    permission: str | None = Field(description="What your role lacks, for needs_permission")


class AreaRef(Out):
    area: str
    title: str


class FeasibilityOut(Out):
    verdict: Verdict = Field(description="As the best matching tool stands for you")
    tools: list[FeasibleToolOut]
    areas_not_installed: list[AreaRef] = Field(description="Installed by an admin with manageInstalledApps")
    permissions_missing: list[str]


@tool("assessFeasibility", permission=PlatformPerm.VIEW, title="Can this be done here", read_only=True)
def assess_feasibility(
    ctx: ToolContext,
    *,
    task: Annotated[str, Field(max_length=1000, description="The task in plain words")],
    limit: Annotated[int, Field(ge=1, le=10, description="How many candidate tools")] = 5,
) -> FeasibilityOut:
    """Say whether a task can be done with this workspace's tools and your role, and what is missing.

    Tools you may use now: searchTools."""
    task = clean.text(task, field="task", limit=1000, required=True)
    meta = {"catalogue"}
    candidates = [
        spec for spec in registry.all_tools() if spec.area not in meta and spec.name != "assessFeasibility"
    ]
    ranked = [spec for _score, spec in search.rank(candidates, task)][:limit]
    tools = []
    for spec in ranked:
        status = STATUS.get(dispatch.refusal_of(ctx.principal, spec), "needs_permission")
        tools.append(
            FeasibleToolOut(
                name=spec.name,
                area=spec.area,
                summary=first_sentence(description_body(spec))[:200],
                status=status,  # type: ignore[arg-type]
                permission=spec.permission.value if status == "needs_permission" else None,
            )
        )
    areas = dict.fromkeys(hit.area for hit in tools if hit.status == "needs_area")
    return FeasibilityOut(
        verdict=tools[0].status if tools else "no_tool",
        tools=tools,
        areas_not_installed=[AreaRef(area=area, title=str(area_title(area))) for area in areas],
        permissions_missing=sorted({hit.permission for hit in tools if hit.permission}),
    )


# --- the mobile app --------------------------------------------------------------------------------

APP_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$")
Platform = Literal["ios", "android"]


def _host() -> str:
    workspace = current_workspace()
    domain = workspace.get_primary_domain() if workspace is not None else None
    return domain.domain if domain is not None else "localhost"


def _default_app_id() -> str:
    labels = [re.sub(r"[^a-z0-9]", "", label.lower()) or "app" for label in reversed(_host().split("."))]
    labels = [label if label[0].isalpha() else f"x{label}" for label in labels]
    return ".".join(labels if len(labels) > 1 else [*labels, "atrium"])


class OAuthClientOut(Out):
    issuer: str
    metadata_url: str
    authorization_endpoint: str
    token_endpoint: str
    revocation_endpoint: str
    registration_endpoint: str = Field(description="Dynamic client registration (RFC 7591)")
    pkce: str = Field(description="The code challenge method every client must use")
    client_type: str
    scopes: list[str]
    redirect_uri: str = Field(description="The app's own scheme (RFC 8252), reverse domain name first")
    redirect_scheme_accepted: bool = Field(
        description="false: the server refuses the scheme until its operators allow it"
    )


class MobileBuildConfigOut(Out):
    app_id: str
    display_name: str
    workspace: str
    base_url: str
    mcp_endpoint: str
    gateway_endpoint: str
    oauth: OAuthClientOut


def _oauth(redirect_uri: str, scheme: str) -> OAuthClientOut:
    origin = site_origin()
    provider: dict[str, Any] = settings.OAUTH2_PROVIDER
    scopes = list(provider.get("SCOPES", {}))
    return OAuthClientOut(
        issuer=origin,
        metadata_url=origin + reverse("oauth2_provider:oauth-server-metadata"),
        authorization_endpoint=origin + reverse("oauth2_provider:authorize"),
        token_endpoint=origin + reverse("oauth2_provider:token"),
        revocation_endpoint=origin + reverse("oauth2_provider:revoke-token"),
        registration_endpoint=origin + reverse("oauth2_provider:dcr-register"),
        pkce="S256",
        client_type="public (token_endpoint_auth_method none)",
        scopes=scopes,
        redirect_uri=redirect_uri,
        redirect_scheme_accepted=scheme in {value.lower() for value in settings.OAUTH_REDIRECT_URI_SCHEMES},
    )


@tool(
    "gatherMobileBuildConfig",
    permission=PlatformPerm.ADMIN,
    title="Mobile app build settings",
    read_only=True,
)
def gather_mobile_build_config(
    ctx: ToolContext,
    *,
    app_id: Annotated[
        str | None, Field(max_length=150, description="Reverse domain name, e.g. com.example.atrium")
    ] = None,
) -> MobileBuildConfigOut:
    """Gather what a mobile app of this workspace is built with: its endpoints and OAuth client settings.

    The servers behind them: getMobileAppInfra; names, colours and icons: getMobileBrandingToolkit."""
    chosen = (app_id or "").strip() or _default_app_id()
    if not APP_ID.match(chosen):
        raise BadAppId(app_id=chosen)
    scheme = chosen.lower()
    workspace = current_workspace()
    origin = site_origin()
    return MobileBuildConfigOut(
        app_id=chosen,
        display_name=brand(),
        workspace=workspace.name if workspace else "",
        base_url=origin,
        mcp_endpoint=origin + MCP_PATH,
        gateway_endpoint=origin + GATEWAY_PATH,
        oauth=_oauth(f"{scheme}:/oauth/callback", scheme),
    )


class EndpointOut(Out):
    name: str
    url: str
    auth: str


class MobileInfraOut(Out):
    host: str
    tls: bool
    time_zone: str
    endpoints: list[EndpointOut]
    access_token_seconds: int
    refresh_token_seconds: int = Field(description="Idle life of a refresh token; each use rotates it")
    registrations_per_hour: int = Field(description="Client registrations one address may make")
    push_notifications: bool = Field(description="false: the app polls; the server sends no pushes")


@tool(
    "getMobileAppInfra", permission=PlatformPerm.VIEW, title="Servers a mobile app talks to", read_only=True
)
def get_mobile_app_infra(ctx: ToolContext) -> MobileInfraOut:
    """Describe the servers a mobile app of this workspace talks to: endpoints, token lives, limits.

    The settings to build it with: gatherMobileBuildConfig."""
    origin = site_origin()
    workspace = current_workspace()
    provider: dict[str, Any] = settings.OAUTH2_PROVIDER
    return MobileInfraOut(
        host=_host(),
        tls=origin.startswith("https://"),
        time_zone=workspace.time_zone if workspace else "UTC",
        endpoints=[
            EndpointOut(name="mcp", url=origin + MCP_PATH, auth="OAuth access token (Bearer)"),
            EndpointOut(name="agent", url=origin + GATEWAY_PATH, auth="Bearer token and X-Api-Key"),
            EndpointOut(
                name="oauth-metadata",
                url=origin + reverse("oauth2_provider:oauth-server-metadata"),
                auth="none",
            ),
            # Its MCP versions, tools' profiles and transport.
            EndpointOut(name="server-card", url=origin + reverse("mcp:server-card"), auth="none"),
        ],
        access_token_seconds=int(provider.get("ACCESS_TOKEN_EXPIRE_SECONDS", 0)),
        refresh_token_seconds=int(provider.get("REFRESH_TOKEN_EXPIRE_SECONDS", 0)),
        registrations_per_hour=int(settings.OAUTH_REGISTRATIONS_PER_HOUR),
        push_notifications=False,
    )


class ColourOut(Out):
    name: str
    hex: str


class IconOut(Out):
    platform: str
    purpose: str
    pixels: int


class BrandingOut(Out):
    brand_name: str
    short_name: str = Field(description="At most 12 characters, for a home screen")
    colours: list[ColourOut]
    logo_url: str
    icons: list[IconOut] = Field(description="The icon sizes the stores ask for, made from the logo")


STYLESHEET = Path("static") / "css" / "atrium.css"
LOGO = "icons/atrium.svg"
PALETTE = {
    "accent": "primary",
    "accent-ink": "on-primary",
    "ink": "text",
    "bg": "background",
    "danger": "error",
}
ICONS = {
    "ios": (("app store", 1024), ("home screen", 180), ("settings", 87), ("spotlight", 120)),
    "android": (("play store", 512), ("launcher xxxhdpi", 192), ("adaptive foreground", 432)),
}


def _palette() -> list[ColourOut]:
    path = Path(settings.BASE_DIR) / STYLESHEET
    try:
        source = path.read_text(encoding="utf-8")
    except OSError:
        return []
    found = dict(re.findall(r"--([a-z-]+):\s*(#[0-9a-fA-F]{3,8})\b", source))
    return [
        ColourOut(name=name, hex=found[variable]) for variable, name in PALETTE.items() if variable in found
    ]


@tool(
    "getMobileBrandingToolkit",
    permission=PlatformPerm.VIEW,
    title="Branding for a mobile app",
    read_only=True,
)
def get_mobile_branding_toolkit(
    ctx: ToolContext,
    *,
    platform: Annotated[
        Platform | None, Field(description="Only this store's icon sizes; null: both")
    ] = None,
) -> BrandingOut:
    """Give the brand a mobile app of this workspace wears: name, short name, colours, logo, icon sizes."""
    name = brand()
    short = name if len(name) <= 12 else name[:12].rsplit(" ", 1)[0] or name[:12]
    return BrandingOut(
        brand_name=name,
        short_name=short,
        colours=_palette(),
        logo_url=f"{site_origin()}{settings.STATIC_URL}{LOGO}",
        icons=[
            IconOut(platform=kind, purpose=purpose, pixels=pixels)
            for kind, sizes in ICONS.items()
            if platform in (None, kind)
            for purpose, pixels in sizes
        ],
    )

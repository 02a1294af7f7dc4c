"""The Marketing settings page: the campaigns people and agents made with their figures (launched,
paused, resumed here by a person too), the segments, the e-mail sequences with their enrolments,
the marketing plans, the landing pages with their visits and conversions, the designs and images,
the brand kit (edited here by the area's admins), the consent recorded, the suppression list,
and the workspace's rules for marketing mail (postal address, double opt-in, cap, quiet hours)."""

from typing import Any

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.contacts import api as contacts_api
from apps.core.actors import can
from apps.core.errors import invalid
from apps.core.pages import READ, page, paged
from apps.mail import api as mail
from apps.marketing import brand, selectors, sequences, services
from apps.marketing.forms import BrandKitForm, ConsentForm, SettingsForm
from apps.marketing.models import (
    Campaign,
    Consent,
    ContentItem,
    DesignAsset,
    MarketingPlan,
    MarketingSettings,
)
from apps.marketing.permissions import MarketingPerm


def _plans(user: Any) -> list[tuple[MarketingPlan, list[Campaign]]]:
    """The plans the person sees, each with the linked campaigns they see (never another's private one)."""
    found = list(MarketingPlan.objects.restrict(user).prefetch_related("campaigns")[:50])
    seen = set(selectors.campaigns(user).values_list("pk", flat=True))
    return [(plan, [c for c in plan.campaigns.all() if c.pk in seen]) for plan in found]


@page(MarketingPerm.VIEW, methods=READ)
def home(request: AuthenticatedHttpRequest) -> HttpResponse:
    user = request.user
    context = paged(request, selectors.campaigns(user))
    settings = MarketingSettings.current()
    seen = contacts_api.contacts(user).values("pk")
    return render(
        request,
        "marketing/home.html",
        {
            "nav": "marketing",
            **context,
            "shown": [(campaign, selectors.figures(campaign)) for campaign in context["page"]],
            "segments": list(selectors.segments(user)[:100]),
            "contents": list(ContentItem.objects.restrict(user, "view").select_related("owner")[:100]),
            "sequences": [(found, sequences.figures(found)) for found in sequences.sequences(user)[:50]],
            "plans": _plans(user),
            "consents": list(Consent.objects.filter(contact__in=seen).select_related("contact")[:100]),
            "suppressed": list(mail.suppression_list()[:100]) if can(user, MarketingPerm.ADMIN) else None,
            "settings": settings,
            "settings_form": SettingsForm(
                initial={
                    name: getattr(settings, name)
                    for name in (
                        "postal_address",
                        "double_opt_in",
                        "frequency_cap",
                        "frequency_days",
                        "quiet_start",
                        "quiet_end",
                        "time_zone",
                    )
                }
            )
            if can(user, MarketingPerm.ADMIN)
            else None,
            "consent_form": ConsentForm() if can(user, MarketingPerm.LAUNCH) else None,
            "may_launch": can(user, MarketingPerm.LAUNCH),
            "landing_pages": selectors.landing_pages(user),
            "seen_campaigns": set(selectors.campaigns(user).values_list("pk", flat=True)),
            "designs": list(DesignAsset.objects.restrict(user, "view").select_related("owner")[:100]),
            "kit": brand.kit(),
            "kit_colours": brand.colours(),
            "brand_form": _brand_form() if can(user, MarketingPerm.ADMIN) else None,
        },
    )


def _brand_form() -> BrandKitForm:
    kit = brand.kit()
    return BrandKitForm(
        initial={
            "colours": ", ".join(kit.colours),
            "heading_font": kit.heading_font,
            "body_font": kit.body_font,
            "logo_file_ids": ", ".join(str(value) for value in kit.logo_file_ids),
            "voice": kit.voice,
        }
    )


@page(MarketingPerm.ADMIN, methods=("POST",), back="marketing:home")
def save_brand(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = BrandKitForm(request.POST)
    if not form.is_valid():
        return _refused(request, form)
    brand.update(actor=request.user, fields=form.cleaned_data)
    messages.success(request, _("The brand kit is saved."))
    return redirect("marketing:home")


def _refused(
    request: AuthenticatedHttpRequest, form: SettingsForm | ConsentForm | BrandKitForm
) -> HttpResponse:
    messages.error(
        request, "; ".join(f"{name}: {error}" for name, errors in form.errors.items() for error in errors)
    )
    return redirect("marketing:home")


@page(MarketingPerm.ADMIN, methods=("POST",), back="marketing:home")
def save_settings(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = SettingsForm(request.POST)
    if not form.is_valid():
        return _refused(request, form)
    services.settings_update(actor=request.user, fields=form.cleaned_data)
    messages.success(request, _("The marketing settings are saved."))
    return redirect("marketing:home")


@page(MarketingPerm.LAUNCH, methods=("POST",), back="marketing:home")
def consent(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = ConsentForm(request.POST)
    if not form.is_valid():
        return _refused(request, form)
    contact = contacts_api.contact_by_email(request.user, form.cleaned_data["email"])
    if contact is None:
        raise invalid("email", _("no contact you may see has this address"))
    made = services.consent_record(
        actor=request.user,
        contact_id=contact.pk,
        status=form.cleaned_data["status"],
        source=form.cleaned_data["source"],
    )
    messages.success(request, _("Consent recorded: {status}.").format(status=made.get_status_display()))
    return redirect("marketing:home")


@page(MarketingPerm.LAUNCH, methods=("POST",), back="marketing:home")
def campaign_action(request: AuthenticatedHttpRequest, campaign_id: int) -> HttpResponse:
    """A person's launch (whatever the campaign's autonomy), pause or resume."""
    campaign = Campaign.objects.select_related("segment", "mailbox").fetch(
        request.user, campaign_id, "change"
    )
    if request.POST.get("action") == "pause":
        services.campaign_pause(actor=request.user, campaign=campaign)
        messages.success(request, _("The campaign is paused."))
    else:
        services.campaign_launch(actor=request.user, campaign=campaign)
        messages.success(request, _("The campaign is sending."))
    return redirect("marketing:home")

"""Writes about landing pages (createLandingPage, updateLandingPage, deleteLandingPage). Each checks
the actor's permission itself and logs ids only.

A page is a list of blocks, each checked on save: `heading` (text, level 1 or 2), `text`
(HTML, sanitised with nh3 as marketing content is), `image` (an https address and its alt text),
`cta` (a label and an http(s) address or `#form`) and at most one `form` (a Form Builder form the
person may see, which must be published for the workspace when the page is). Its address
(`/p/<slug>/`) is unique among the live pages. Publishing (HIGH RISK: the public sees it) needs
the LAUNCH permission; a published page's changes are live at once (its ETag changes)."""

import logging
import re
from typing import Any

from django.db.models import F
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _

from apps.core import clean, records
from apps.core.actors import Actor, require
from apps.core.errors import invalid
from apps.forms import api as forms
from apps.marketing.content import safe_body
from apps.marketing.models import Campaign, Conversion, LandingPage
from apps.marketing.permissions import MarketingPerm

logger = logging.getLogger(__name__)
Status = LandingPage.Status
FIELDS = ("name", "slug", "title", "description", "blocks", "campaign_id", "status", "visibility")
BLOCKS = ("heading", "text", "image", "cta", "form")
# What the public sees of a published page: a change of any asks a person first.
PUBLIC = ("slug", "title", "description", "blocks", "status", "visibility")
MOST_BLOCKS = 40
SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def _url(value: Any, field: str, *, form_anchor: bool = False) -> str:
    url = clean.text(value, field=field, limit=500)
    if form_anchor and url == "#form":
        return url
    if not re.fullmatch(r"https?://[^\s<>\"']+", url):
        raise invalid(field, _("{url!r} is not an http(s) address"), url=url[:60])
    return url


def _block(index: int, given: Any) -> tuple[dict[str, Any], bool]:
    """One block as kept, and whether unsafe HTML was taken out of it."""
    where = f"blocks[{index}]"
    if not isinstance(given, dict) or given.get("type") not in BLOCKS:
        raise invalid(f"{where}.type", _("one of {types}"), types=", ".join(BLOCKS))
    kind = given["type"]
    if kind == "heading":
        level = given.get("level") or 2
        if level not in (1, 2):
            raise invalid(f"{where}.level", _("1 or 2"))
        text = clean.text(given.get("text"), field=f"{where}.text", limit=200)
        if not text:
            raise invalid(f"{where}.text", _("is required and cannot be empty"))
        return {"type": kind, "text": text, "level": level}, False
    if kind == "text":
        body = safe_body("blog", given.get("html") or given.get("text"), field=f"{where}.html")
        if not body.text:
            raise invalid(f"{where}.html", _("is required and cannot be empty"))
        return {"type": kind, "html": body.text}, body.removed
    if kind == "image":
        alt = clean.text(given.get("alt"), field=f"{where}.alt", limit=200)
        if not alt:
            raise invalid(f"{where}.alt", _("describe the image for people who cannot see it"))
        return {"type": kind, "url": _url(given.get("url"), f"{where}.url"), "alt": alt}, False
    if kind == "cta":
        label = clean.text(given.get("label"), field=f"{where}.label", limit=80)
        if not label:
            raise invalid(f"{where}.label", _("is required and cannot be empty"))
        return {
            "type": kind,
            "label": label,
            "url": _url(given.get("url"), f"{where}.url", form_anchor=True),
        }, False
    form_id = given.get("formId")
    if not isinstance(form_id, int) or isinstance(form_id, bool):
        raise invalid(f"{where}.formId", _("the id of a Form Builder form (searchForms)"))
    return {"type": kind, "formId": form_id}, False


def _blocks(actor: Actor, value: Any) -> tuple[list[dict[str, Any]], bool]:
    given = list(value or [])
    if len(given) > MOST_BLOCKS:
        raise invalid("blocks", _("at most {count} blocks"), count=MOST_BLOCKS)
    kept, removed = [], False
    for index, block in enumerate(given):
        made, taken = _block(index, block)
        kept.append(made)
        removed = removed or taken
    form_ids = [block["formId"] for block in kept if block["type"] == "form"]
    if len(form_ids) > 1:
        raise invalid("blocks", _("at most one form block"))
    for form_id in form_ids:
        forms.form(actor=actor, form_id=form_id)  # one the person may see, or not found
    return kept, removed


def form_id(page: LandingPage) -> int | None:
    return next((block["formId"] for block in page.blocks if block["type"] == "form"), None)


def _slug(page: LandingPage, given: Any) -> str:
    slug = clean.text(given, field="slug", limit=80).lower() or slugify(page.name)[:80].strip("-")
    if not SLUG.fullmatch(slug):
        raise invalid("slug", _("{slug!r}: lower-case letters, digits and hyphens"), slug=slug[:80])
    taken = LandingPage.objects.filter(slug=slug, deleted_at__isnull=True).exclude(pk=page.pk).exists()
    if taken:
        raise invalid("slug", _("the address /p/{slug}/ is taken by another landing page"), slug=slug)
    return slug


def _apply(actor: Actor, page: LandingPage, fields: dict[str, Any], creating: bool) -> None:
    if "name" in fields or creating:
        page.name = records.unique_name(page, fields.get("name"), what=_("landing page"), limit=120)
    if "slug" in fields or creating:
        page.slug = _slug(page, fields.get("slug"))
    if "title" in fields or creating:
        page.title = clean.text(fields.get("title") or page.name, field="title", limit=200)
    if "description" in fields:
        page.description = clean.text(fields["description"], field="description", limit=300)
    removed = False
    if "blocks" in fields or creating:
        page.blocks, removed = _blocks(actor, fields.get("blocks"))
    if "campaign_id" in fields:
        given = fields["campaign_id"]
        page.campaign = Campaign.objects.fetch(actor, given, "view") if given else None
    if "visibility" in fields:
        page.visibility = fields["visibility"] or "workspace"
    if fields.get("status"):
        if fields["status"] not in Status.values:
            raise invalid("status", _("one of {states}"), states=", ".join(Status.values))
        if fields["status"] != page.status:
            require(actor, MarketingPerm.LAUNCH)
            page.status = fields["status"]
            page.published_at = timezone.now() if page.status == Status.PUBLISHED else None
    if page.status == Status.PUBLISHED:
        _publishable(page)
    page.sanitised = removed  # type: ignore[attr-defined]


def _publishable(page: LandingPage) -> None:
    """A published page is the public's: the workspace's, with blocks, its form public too."""
    if page.visibility != "workspace":
        raise invalid("visibility", _("a published landing page is the workspace's: it cannot be private"))
    if not page.blocks:
        raise invalid("blocks", _("a published landing page needs at least one block"))
    found = form_id(page)
    if found is not None and forms.public_form(found) is None:
        raise invalid(
            "blocks",
            _("form {id} is not published for the public: publish it with publishForm first"),
            id=found,
        )


def _public(page: LandingPage) -> tuple[Any, ...]:
    return tuple(getattr(page, name) for name in PUBLIC)


def check(*, actor: Actor, page: LandingPage | None, fields: dict[str, Any]) -> bool:
    """Whether these changes are HIGH RISK, having checked them all (the confirmation is asked
    only for what would be done): they publish the page, or change what the public sees of a
    published one (its content, address, or taking it down). Nothing is written."""
    probe = LandingPage(created_by_id=getattr(actor, "pk", None), owner_id=getattr(actor, "pk", None))
    if page is not None:
        probe = LandingPage.objects.get(pk=page.pk)
    was, seen = probe.status, _public(probe)
    _apply(actor, probe, fields, page is None)
    if was == Status.PUBLISHED and page is not None and page.visibility == "workspace":
        return _public(probe) != seen
    return probe.status == Status.PUBLISHED


def create(*, actor: Actor, fields: dict[str, Any]) -> LandingPage:
    return records.create(
        LandingPage, actor=actor, permission=MarketingPerm.EDIT, fields=fields, apply=_apply, owner=actor
    )


def update(*, actor: Actor, page: LandingPage, fields: dict[str, Any]) -> list[str]:
    return records.update(
        page, actor=actor, permission=MarketingPerm.EDIT, fields=fields, apply=_apply, names=FIELDS
    )


def delete(*, actor: Actor, page: LandingPage) -> None:
    """To the trash: its address answers 404 at once and is free for another page."""
    require(actor, MarketingPerm.DELETE)
    page.trash(actor)
    logger.info("marketing landing page %s deleted", page.pk)


def check_restore(*, page: LandingPage) -> None:
    """Refused (nothing written) unless the page is in the trash and its address is free."""
    if page.deleted_at is None:
        raise invalid("restore", _("landing page {id} is not in the trash"), id=page.pk)
    if LandingPage.objects.live().filter(slug=page.slug).exclude(pk=page.pk).exists():
        raise invalid(
            "restore",
            _("another live page has the address /p/{slug}/ now: change that page's slug first"),
            slug=page.slug,
        )


def restore(*, actor: Actor, page: LandingPage) -> None:
    """Back from the trash as a draft (publishing it again is a person's choice, HIGH RISK)."""
    require(actor, MarketingPerm.DELETE)
    check_restore(page=page)
    page.status = Status.DRAFT
    page.untrash(also=["status"])
    logger.info("marketing landing page %s restored", page.pk)


# --- the public side (apps.marketing.public) -----------------------------------------------------


def live(slug: str) -> LandingPage | None:
    return (
        LandingPage.objects.filter(
            slug=slug, status=Status.PUBLISHED, visibility="workspace", deleted_at__isnull=True
        )
        .select_related("campaign")
        .first()
    )


def converted(page: LandingPage, *, submission_id: int, utm: dict[str, str]) -> Conversion:
    made = Conversion.objects.create(page=page, submission_id=submission_id, utm=utm)
    LandingPage.objects.filter(pk=page.pk).update(conversions=F("conversions") + 1)
    logger.info("marketing landing page %s: conversion %s", page.pk, made.pk)
    return made


def figures(campaign: Campaign) -> dict[str, int]:
    """A campaign's landing pages' visits and conversions, together."""
    pages = list(LandingPage.objects.live().filter(campaign=campaign).values_list("visits", "conversions"))
    return {"visits": sum(row[0] for row in pages), "conversions": sum(row[1] for row in pages)}

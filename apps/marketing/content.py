"""Writes about marketing content (createMarketingContent ... publishMarketingContent). Each checks
the actor's permission itself and logs ids only.

A content item is e-mail, social, blog or ad copy with variants to try. Its HTML is sanitised on
save (nh3: scripts, styles, handlers and `javascript:` links go, and the answer says so); social
copy is plain text. Publishing sends it where its type says: e-mail copy becomes a draft
campaign's subject and body (launched as campaigns are), social copy is posted through
apps.social.api, blog copy needs the Blog area's public module (it has none yet: said so), ads
are placed by hand. Text a model wrote (generateMarketingContent) is labelled where it goes."""

import html
import json
import logging
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import nh3
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.core import clean, modelcalls, records
from apps.core.actors import Actor, require
from apps.core.errors import invalid
from apps.marketing import errors, services
from apps.marketing.errors import ContentNowhereToPublish, ContentState
from apps.marketing.models import Campaign, ContentItem
from apps.marketing.permissions import MarketingPerm
from apps.marketing.proposals import model_failure
from apps.social import api as social

logger = logging.getLogger(__name__)
Type = ContentItem.Type
Status = ContentItem.Status
FIELDS = ("name", "type", "title", "body", "variants", "visibility")
TAGS = {
    "a", "b", "blockquote", "br", "code", "em", "h1", "h2", "h3", "h4", "hr", "i", "img", "li", "ol",
    "p", "s", "small", "span", "strong", "sub", "sup", "table", "tbody", "td", "th", "thead", "tr", "u",
    "ul",
}  # fmt: skip
ATTRIBUTES = {"a": {"href", "title"}, "img": {"src", "alt", "width", "height"}, "td": {"colspan"}}
SCHEMES = {"http", "https", "mailto"}
BODY_LIMIT = 100_000
VARIANTS = 5
AI_LABEL = "Written with AI."


@dataclass(frozen=True)
class Safe:
    text: str
    # Something was taken out (a script, a handler, a tag not allowed).
    removed: bool


def safe_body(kind: str, value: Any, *, field: str = "body") -> Safe:
    """The body as kept: plain text for social copy, sanitised HTML for the rest."""
    raw = clean.long_text(value, field=field, limit=BODY_LIMIT)
    if kind == Type.SOCIAL:
        text = plain(raw)
        return Safe(text, text != raw.strip())
    cleaned = nh3.clean(raw, tags=TAGS, attributes=ATTRIBUTES, url_schemes=SCHEMES, link_rel="noopener")
    return Safe(cleaned, _squeezed(cleaned) != _squeezed(raw))


def _squeezed(value: str) -> str:
    squeezed = re.sub(r"\s+", "", html.unescape(value)).replace("'", '"')
    return squeezed.replace('rel="noopener"', "").replace("/>", ">")


def plain(value: str) -> str:
    """The text of some HTML: paragraphs and breaks as lines, tags gone, entities read."""
    marked = re.sub(r"(?i)<br\s*/?>|</(p|h[1-6]|li|div|blockquote|tr)>", "\n", value)
    text = html.unescape(nh3.clean(marked, tags=set()))
    return "\n".join(line.strip() for line in text.splitlines() if line.strip())


def _variants(kind: str, value: Any) -> tuple[list[dict[str, str]], bool]:
    given = list(value or [])
    if len(given) > VARIANTS:
        raise invalid("variants", _("at most {count} variants"), count=VARIANTS)
    kept, removed, labels = [], False, set()
    for index, variant in enumerate(given):
        label = clean.text(variant.get("label") or chr(ord("B") + index), field="variants.label", limit=20)
        if label.lower() in labels:
            raise invalid("variants", _("the label {label!r} is given twice"), label=label)
        labels.add(label.lower())
        body = safe_body(kind, variant.get("body"), field="variants.body")
        if not body.text:
            raise invalid("variants", _("variant {label!r} has no text"), label=label)
        kept.append({"label": label, "body": body.text})
        removed = removed or body.removed
    return kept, removed


def _apply(actor: Actor, item: ContentItem, fields: dict[str, Any], creating: bool) -> None:
    if not creating and item.status == Status.PUBLISHED and set(fields) - {"name", "visibility"}:
        raise ContentState(
            id=item.pk,
            status=item.status,
            what=_("its text is what went out; copy it into new content with createMarketingContent."),
        )
    if "name" in fields or creating:
        item.name = records.unique_name(item, fields.get("name"), what=_("content"), limit=120)
    if creating:
        item.type = fields.get("type") or ""
        if item.type not in Type.values:
            raise invalid("type", _("one of {types}"), types=", ".join(Type.values))
    elif "type" in fields and fields["type"] != item.type:
        raise invalid("type", _("is fixed once made: make new content of the other type"))
    if "title" in fields or creating:
        title = fields.get("title") or ""
        item.title = services.subject_line(title) if item.type == Type.EMAIL and title else title
        item.title = clean.text(item.title, field="title", limit=200)
    removed = False
    if "body" in fields or creating:
        body = safe_body(item.type, fields.get("body"))
        if not body.text:  # an update too: the item's text is its version A
            raise invalid("body", _("is required and cannot be empty"))
        item.body, removed = body.text, body.removed
    if "variants" in fields:
        item.variants, also = _variants(item.type, fields["variants"])
        removed = removed or also
    if "visibility" in fields:
        item.visibility = fields["visibility"] or "workspace"
    if "ai_generated" in fields:
        item.ai_generated = bool(fields["ai_generated"])
    item.sanitised = removed  # type: ignore[attr-defined]


def create(*, actor: Actor, fields: dict[str, Any]) -> ContentItem:
    return records.create(
        ContentItem, actor=actor, permission=MarketingPerm.EDIT, fields=fields, apply=_apply, owner=actor
    )


def update(*, actor: Actor, item: ContentItem, fields: dict[str, Any]) -> list[str]:
    return records.update(
        item, actor=actor, permission=MarketingPerm.EDIT, fields=fields, apply=_apply, names=FIELDS
    )


def delete(*, actor: Actor, item: ContentItem) -> None:
    """To the trash; what was published stays where it went (a campaign, a social post)."""
    require(actor, MarketingPerm.DELETE)
    item.trash(actor)
    logger.info("marketing content %s deleted", item.pk)


# --- publishing -----------------------------------------------------------------------------------


def body_of(item: ContentItem, variant: str = "") -> str:
    if not variant or variant.upper() == "A":
        return item.body
    for given in item.variants:
        if given["label"].lower() == variant.lower():
            return str(given["body"])
    labels = ", ".join(["A", *(given["label"] for given in item.variants)])
    raise invalid(
        "variant", _("{variant!r} is not one of its variants ({labels})"), variant=variant, labels=labels
    )


def social_text(item: ContentItem, variant: str = "") -> str:
    text = body_of(item, variant)
    return f"{text}\n\n{AI_LABEL}" if item.ai_generated else text


def email_body(item: ContentItem, variant: str = "") -> str:
    """A campaign's body is plain text (its links tracked): the HTML's text, with the label."""
    text = plain(body_of(item, variant))
    return f"{text}\n\n{AI_LABEL}" if item.ai_generated else text


def _draft_campaign(actor: Actor, campaign_id: int) -> Campaign:
    found: Campaign = Campaign.objects.fetch(actor, campaign_id, "change")
    if found.status != Campaign.Status.DRAFT:
        raise invalid(
            "campaignId",
            _("campaign {id} is {status}: only a draft takes new content"),
            id=found.pk,
            status=found.status,
        )
    return found


def publish_check(
    *,
    actor: Actor,
    item: ContentItem,
    variant: str,
    campaign_id: int | None,
    account_id: int | None,
    at: datetime | None,
) -> str:
    """What publishing would do, once everything about it is right (before the confirmation)."""
    require(actor, MarketingPerm.LAUNCH)
    if item.status != Status.DRAFT:
        raise ContentState(
            id=item.pk, status=item.status, what=_("it went out already; publish new content instead.")
        )
    if item.type == Type.EMAIL:
        if not item.title:
            raise ContentNowhereToPublish(
                id=item.pk, type=item.type, why=_("e-mail content needs a title (the subject): give one.")
            )
        email_body(item, variant)
        if campaign_id is not None:
            return _("the body of draft campaign {id}").format(id=_draft_campaign(actor, campaign_id).pk)
        return _("the body of a new draft campaign")
    if item.type == Type.SOCIAL:
        if account_id is None:
            names = ", ".join(f"{account.pk} ({account})" for account in social.accounts_or_refusal())
            raise invalid("accountId", _("name the account to post to: {accounts}"), accounts=names)
        return social.check(account_id=account_id, text=social_text(item, variant), at=at)
    if item.type == Type.BLOG:
        raise ContentNowhereToPublish(
            id=item.pk,
            type=item.type,
            why=_(
                "the Blog area offers no public module to publish through yet; make the post with "
                "createBlogPost from this content's title and body (getMarketingContent)."
            ),
        )
    raise ContentNowhereToPublish(
        id=item.pk,
        type=item.type,
        why=_("no ad network is connected to this workspace; place the ad's copy by hand."),
    )


@dataclass
class Published:
    item: ContentItem
    campaign: Campaign | None = None
    social_post: Any = None


def publish(
    *,
    actor: Actor,
    item: ContentItem,
    variant: str = "",
    campaign_id: int | None = None,
    account_id: int | None = None,
    at: datetime | None = None,
) -> Published:
    publish_check(
        actor=actor, item=item, variant=variant, campaign_id=campaign_id, account_id=account_id, at=at
    )
    done = Published(item)
    item.published_at = timezone.now()
    if item.type == Type.SOCIAL:
        # Posted outside any transaction: the network is called before `post` answers.
        assert account_id is not None
        done.social_post = social.post(
            actor=actor,
            account_id=account_id,
            text=social_text(item, variant),
            at=at,
            source=f"marketing:content:{item.pk}",
        )
        item.published_to = f"social:{done.social_post.pk}"
        failed = done.social_post.state == social.SocialPost.State.FAILED
        item.status = Status.DRAFT if failed else (Status.SCHEDULED if at else Status.PUBLISHED)
        item.save(update_fields=["status", "published_to", "published_at", "updated_at"])
    else:
        with transaction.atomic():
            fields = {"subject": item.title, "body": email_body(item, variant)}
            if campaign_id is not None:
                done.campaign = _draft_campaign(actor, campaign_id)
                services.campaign_update(actor=actor, campaign=done.campaign, fields=fields)
            else:
                name = free_name(item.name, Campaign)
                done.campaign = services.campaign_create(actor=actor, fields={"name": name, **fields})
            item.published_to = f"campaign:{done.campaign.pk}"
            item.status = Status.PUBLISHED
            item.save(update_fields=["status", "published_to", "published_at", "updated_at"])
    logger.info("marketing content %s published to %s", item.pk, item.published_to)
    return done


def free_name(name: str, model: Any = ContentItem) -> str:
    """`name` for a new record of `model`, numbered when a live one has it already."""
    name = " ".join(name.split())[:120]
    taken = {
        value.lower()
        for value in model.objects.filter(name__istartswith=name[:100], deleted_at__isnull=True).values_list(
            "name", flat=True
        )
    }
    candidate, number = name[:120], 2
    while candidate.lower() in taken:
        candidate, number = f"{name[:110]} ({number})", number + 1
    return candidate


# --- made by a model (generateMarketingContent) ---------------------------------------------------

SHAPES: dict[str, str] = {
    Type.EMAIL: "a marketing e-mail: title its subject line (one line), body simple HTML (<p>, <a>, <ul>)",
    Type.SOCIAL: "a social media post: title a short internal label, body plain text under 280 characters",
    Type.BLOG: "a blog article: title its headline, body HTML with <h2> sections and <p> paragraphs",
    Type.AD: "an ad: title its headline (under 40 characters), body its description (under 150 characters)",
}


@dataclass(frozen=True)
class Written:
    title: str
    body: str
    variants: list[dict[str, str]]
    model: str
    cost_micro_usd: int


def write(*, api_key_id: int | None, tool: str, kind: str, brief: str, voice: str, variants: int) -> Written:
    """Copy of `kind` the model writes from `brief`, in the brand's `voice`, with `variants` more
    versions of the body (metered against the caller's API key)."""
    system = (
        f"You write marketing copy. Write {SHAPES[kind]}. "
        + (f"The brand's voice: {voice}. " if voice else "")
        + f"Also write {variants} alternative bodies to test against it. Answer with one JSON object "
        '{"title": "...", "body": "...", "variants": ["...", ...]} and nothing else.'
    )
    try:
        answer = modelcalls.provider().write(
            api_key_id=api_key_id, system=system, text=brief, max_tokens=3000, purpose=tool
        )
    except modelcalls.ModelCallError as error:
        raise model_failure(error, tool) from None
    if answer.cut:
        raise errors.MarketingModelCallFailed(
            tool=tool, problem="its answer was cut at the most tokens allowed"
        )
    body = answer.text.strip()
    start, end = body.find("{"), body.rfind("}")
    try:
        found = json.loads(body[start : end + 1]) if 0 <= start < end else None
    except ValueError:
        found = None
    if not isinstance(found, dict) or not isinstance(found.get("body"), str) or not found["body"].strip():
        raise errors.MarketingModelCallFailed(
            tool=tool, problem="its answer was not the JSON object asked for"
        )
    others = [text for text in found.get("variants") or [] if isinstance(text, str) and text.strip()]
    return Written(
        title=str(found.get("title") or "")[:200].replace("\n", " ").strip(),
        body=found["body"],
        variants=[
            {"label": chr(ord("B") + index), "body": text} for index, text in enumerate(others[:variants])
        ],
        model=answer.model,
        cost_micro_usd=answer.cost_micro_usd,
    )

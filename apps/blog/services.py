"""Writes about the blog. Each checks the actor's permission itself and logs ids only.

Publishing: `post_publish` publishes now, or schedules for a time that the sweeper
(`publish_due`, every minute from Celery beat: apps.blog.tasks) keeps; a schedule is a row's
`publish_at`, so none is lost across restarts. Every publish, unpublish and `cache_clear` counts
the blog's cache generation up (`Cache`), which the public pages' ETags carry.
"""

import logging
import re
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _

from apps.blog import html
from apps.blog.errors import PostNotPublished, PrivatePost
from apps.blog.models import Cache, Category, Comment, Image, Post
from apps.blog.permissions import BlogPerm
from apps.core import clean, records
from apps.core.actors import require
from apps.core.errors import invalid
from apps.core.search import tags as clean_tags

logger = logging.getLogger(__name__)
FIELDS = (
    "title",
    "slug",
    "language",
    "body",
    "excerpt",
    "seo_title",
    "seo_description",
    "tags",
    "visibility",
    "owner",
)
LANGUAGE = re.compile(r"^[a-z]{2,3}(-[a-z0-9]{2,8})*$")
# What makes a translation stale when its original changes.
SOURCE_FIELDS = ("title", "body", "excerpt")


def language_code(value: Any, field: str = "language") -> str:
    code = clean.text(value, field=field, limit=12, required=True).lower().replace("_", "-")
    if not LANGUAGE.match(code):
        raise invalid(field, _("{code!r} is not a language tag such as en, de or pt-br"), code=code)
    return code


def post_create(*, actor: Any, fields: dict[str, Any]) -> tuple[Post, bool]:
    """A new draft, its author's. Answers the post and whether its HTML was sanitised."""
    sanitised: list[bool] = []

    def apply(actor: Any, post: Post, given: dict[str, Any], creating: bool) -> None:
        sanitised.append(_apply(actor, post, given, creating))

    with transaction.atomic():
        post = records.create(
            Post, actor=actor, permission=BlogPerm.EDIT, fields=fields, apply=apply, owner=actor
        )
        _set_categories(actor, post, fields.get("categories"))
    return post, any(sanitised)


def post_update(*, actor: Any, post: Post, fields: dict[str, Any]) -> tuple[list[str], bool]:
    """Changes some fields; answers the names changed and whether the HTML was sanitised. A change
    of an original's title, body or excerpt makes its translations stale."""
    sanitised: list[bool] = []

    def apply(actor: Any, record: Post, given: dict[str, Any], creating: bool) -> None:
        sanitised.append(_apply(actor, record, given, creating))

    with transaction.atomic():
        changed = records.update(
            post, actor=actor, permission=BlogPerm.EDIT, fields=fields, apply=apply, names=FIELDS
        )
        if "categories" in fields:
            before = set(post.categories.values_list("pk", flat=True))
            _set_categories(actor, post, fields["categories"])
            if set(post.categories.values_list("pk", flat=True)) != before:
                changed.append("categories")
        if post.translation_of_id is None and set(changed) & set(SOURCE_FIELDS):
            Post.objects.filter(pk=post.pk).update(version=F("version") + 1)
            post.refresh_from_db(fields=["version"])
        if post.status == Post.Status.PUBLISHED and changed:
            cache_bump()
    return changed, any(sanitised)


class _DryRun(Exception):
    """Rolls back a check's savepoint."""


def post_check(*, actor: Any, post: Post, fields: dict[str, Any]) -> list[str]:
    """The fields these changes would change, every check of `post_update` made, nothing kept (its
    savepoint rolled back): a published post's change is confirmed first, and only what would be
    done is asked."""
    changed: list[str] = []
    try:
        with transaction.atomic():
            changed, _sanitised = post_update(actor=actor, post=Post.objects.get(pk=post.pk), fields=fields)
            raise _DryRun
    except _DryRun:
        pass
    return changed


def _apply(actor: Any, post: Post, fields: dict[str, Any], creating: bool) -> bool:
    sanitised = False
    if "title" in fields or creating:
        post.title = clean.text(fields.get("title"), field="title", limit=200, required=True)
    if "language" in fields or creating:
        post.language = language_code(fields.get("language") or "en")
        if not creating:
            _language_free(post)
    if "body" in fields or creating:
        cleaned = html.post_html(fields.get("body") or "", markdown=fields.get("body_format") == "markdown")
        post.body, sanitised = cleaned.html, cleaned.removed
    if "excerpt" in fields:
        post.excerpt = clean.long_text(fields["excerpt"] or "", field="excerpt", limit=1000)
    if "seo_title" in fields:
        post.seo_title = clean.text(fields["seo_title"] or "", field="seoTitle", limit=200)
    if "seo_description" in fields:
        post.seo_description = clean.text(fields["seo_description"] or "", field="seoDescription", limit=300)
    if "tags" in fields:
        post.tags = clean_tags(fields["tags"] or [])
    if "visibility" in fields:
        post.visibility = fields["visibility"] or "workspace"
        if post.visibility == "private" and post.status in (Post.Status.PUBLISHED, Post.Status.SCHEDULED):
            raise invalid(
                "visibility", _("a {status} post stays visible to the workspace; unpublish it first"),
                status=post.status,
            )  # fmt: skip
    if fields.get("owner_email"):
        post.owner = clean.able(
            clean.person_by_email(fields["owner_email"], field="ownerEmail"),
            BlogPerm.EDIT,
            field="ownerEmail",
        )
    if "slug" in fields or creating or "language" in fields:
        post.slug = _slug(post, fields.get("slug") if "slug" in fields else (post.slug or None))
    return sanitised


def _language_free(post: Post) -> None:
    """A post of a translation group (an original or its translation) keeps a language of its own:
    two posts of one language in a group would lose the other language's and give the public pages
    two alternates for one."""
    original = post.original
    group = Post.objects.live().filter(Q(pk=original.pk) | Q(translation_of=original)).exclude(pk=post.pk)
    same = group.filter(language=post.language).first()
    if same is not None:
        raise invalid(
            "language",
            _("post {id} of its translations is in {language} already; a group has one post a language"),
            id=same.pk,
            language=post.language,
        )


def _slug(post: Post, given: Any) -> str:
    """The slug given (refused when another live post of the language has it), or one made from
    the title (numbered when taken)."""
    others = Post.objects.filter(language=post.language, deleted_at__isnull=True).exclude(pk=post.pk)
    if given:
        slug = slugify(str(given), allow_unicode=True)[:120].strip("-")
        if not slug:
            raise invalid("slug", _("{given!r} has no letters or digits to make a slug of"), given=str(given))
        taken = others.filter(slug=slug).first()
        if taken is not None:
            raise invalid(
                "slug",
                _("{slug!r} is taken in {language} by post {id}; choose another"),
                slug=slug,
                language=post.language,
                id=taken.pk,
            )
        return slug
    base = slugify(post.title, allow_unicode=True)[:110].strip("-") or "post"
    slug, number = base, 1
    while others.filter(slug=slug).exists():
        number += 1
        slug = f"{base}-{number}"
    return slug


def _set_categories(actor: Any, post: Post, names: Any) -> None:
    if names is None:
        return
    found = []
    for raw in names:
        name = clean.text(raw, field="categories", limit=80, required=True)
        slug = slugify(name, allow_unicode=True)[:80] or "category"
        category = Category.objects.live().filter(slug=slug).first()
        if category is None:
            category = Category.objects.create(name=name, slug=slug, created_by=actor)
        found.append(category)
    post.categories.set(found)


def post_delete(*, actor: Any, post: Post) -> None:
    """To the trash; a published post leaves the public pages at once."""
    require(actor, BlogPerm.DELETE)
    was_public = post.status == Post.Status.PUBLISHED
    post.trash(actor)
    if was_public:
        cache_bump()
    logger.info("blog post %s deleted", post.pk)


def post_publish(*, actor: Any, post: Post, at: datetime | None = None, now: datetime | None = None) -> Post:
    """Published now, or scheduled for `at` (in the future), which the sweeper keeps."""
    require(actor, BlogPerm.PUBLISH)
    now = now or timezone.now()
    if post.visibility != "workspace":
        raise PrivatePost(id=post.pk)
    if at is not None and at <= now:
        raise invalid("at", _("must be in the future; leave it out to publish now"))
    with transaction.atomic():
        if at is not None:
            post.status, post.publish_at = Post.Status.SCHEDULED, at
            post.save(update_fields=["status", "publish_at", "updated_at"])
        else:
            post.status, post.publish_at, post.published_at = Post.Status.PUBLISHED, None, now
            post.save(update_fields=["status", "publish_at", "published_at", "updated_at"])
        cache_bump()
    logger.info("blog post %s %s", post.pk, post.status)
    return post


def post_unpublish(*, actor: Any, post: Post) -> str:
    """Off the public pages (a scheduled post loses its time and is a draft again). Answers the
    status it had."""
    require(actor, BlogPerm.PUBLISH)
    before = post.status
    if before == Post.Status.SCHEDULED:
        post.status = Post.Status.DRAFT
    elif before == Post.Status.PUBLISHED:
        post.status = Post.Status.UNPUBLISHED
    else:
        raise PostNotPublished(id=post.pk, status=post.status, what=_("unpublishBlogPost takes"))
    post.publish_at = None
    with transaction.atomic():
        post.save(update_fields=["status", "publish_at", "updated_at"])
        cache_bump()
    return before


def publish_due(now: datetime | None = None) -> int:
    """The scheduled posts whose time has come, published at that time (the sweeper, in the
    current workspace). A post made private meanwhile stays scheduled. Answers how many."""
    now = now or timezone.now()
    published = 0
    with transaction.atomic():
        due = (
            Post.objects.select_for_update(skip_locked=True)
            .filter(status=Post.Status.SCHEDULED, publish_at__lte=now, deleted_at__isnull=True)
            .filter(visibility="workspace")
        )
        for post in due:
            post.status, post.published_at, post.publish_at = Post.Status.PUBLISHED, post.publish_at, None
            post.save(update_fields=["status", "published_at", "publish_at", "updated_at"])
            published += 1
            logger.info("blog post %s published on schedule", post.pk)
        if published:
            cache_bump()
    return published


def cache_bump() -> int:
    """The public pages' generation counted up; answers the new one."""
    now = timezone.now()
    if not Cache.objects.update(generation=F("generation") + 1, cleared_at=now):
        Cache.objects.create(generation=2, cleared_at=now)
    return generation()


def generation() -> int:
    row = Cache.objects.first()
    return row.generation if row is not None else 1


def cache_clear(*, actor: Any) -> int:
    require(actor, BlogPerm.PUBLISH)
    return cache_bump()


# --- comments ---------------------------------------------------------------------------------------


def comment_create(*, actor: Any, post: Post, body: str, parent_id: int | None = None) -> Comment:
    """A comment by a person of the workspace, under their name: approved at once."""
    require(actor, BlogPerm.EDIT)
    text = html.comment_html(clean.long_text(body, field="body", limit=5000, required=True))
    if not html.text_of(text):
        raise invalid("body", _("has no text once its markup is taken out"))
    parent = _parent(post, parent_id)
    return Comment.objects.create(
        post=post,
        parent=parent,
        author=actor,
        # Shown on the public page: their name, never their address (get_full_name falls back to it).
        author_name=(actor.full_name or _("Team"))[:100],
        author_email=actor.email,
        body=text,
        status=Comment.Status.APPROVED,
        created_by=actor,
    )


def _parent(post: Post, parent_id: int | None) -> Comment | None:
    if parent_id is None:
        return None
    parent = Comment.objects.live().filter(pk=parent_id, post=post).first()
    if parent is None:
        raise invalid("parentId", _("comment {id} is not a comment on this post"), id=parent_id)
    return parent


def comment_public(*, post: Post, name: str, email: str, body: str) -> Comment:
    """A comment from the public page: pending until someone moderates it."""
    if not post.is_public:
        raise PostNotPublished(id=post.pk, status=post.status, what=_("comments are taken on"))
    text = html.comment_html(clean.long_text(body, field="body", limit=5000, required=True))
    if not html.text_of(text):
        raise invalid("body", _("has no text once its markup is taken out"))
    return Comment.objects.create(
        post=post,
        author_name=clean.text(name, field="name", limit=100, required=True),
        author_email=clean.email(email),
        body=text,
        status=Comment.Status.PENDING,
    )


def comment_moderate(*, actor: Any, comment: Comment, status: str) -> bool:
    require(actor, BlogPerm.PUBLISH)
    if status not in Comment.Status.values:
        raise invalid("status", _("must be one of {choices}"), choices=", ".join(Comment.Status.values))
    if comment.status == status:
        return False
    comment.status = status
    comment.save(update_fields=["status", "updated_at"])
    if comment.post.status == Post.Status.PUBLISHED:
        cache_bump()
    return True


def comment_delete(*, actor: Any, comment: Comment) -> None:
    require(actor, BlogPerm.PUBLISH)
    comment.trash(actor)
    if comment.post.status == Post.Status.PUBLISHED:
        cache_bump()
    logger.info("blog comment %s deleted", comment.pk)


# --- what a model wrote or drew ---------------------------------------------------------------------


def translation_create(
    *, actor: Any, original: Post, language: str, title: str, body: str, excerpt: str
) -> tuple[Post, bool]:
    """A draft translation of `original` (the group's original) in `language`, made by a model. A
    private original's translation is private to the original's author too."""
    require(actor, BlogPerm.EDIT)
    with transaction.atomic():
        post, sanitised = post_create(
            actor=actor,
            fields={
                "title": title or original.title,
                "language": language,
                "body": body,
                "excerpt": excerpt,
                "slug": original.slug if not _taken(original.slug, language) else None,
                "tags": original.tags,
                "seo_title": "",
                "seo_description": "",
                "visibility": original.visibility,
            },
        )
        if original.visibility == "private":
            post.owner = original.owner
        post.translation_of = original
        post.source_version = original.version
        post.ai_generated = True
        post.featured_image = original.featured_image
        post.save(
            update_fields=["owner", "translation_of", "source_version", "ai_generated", "featured_image"]
        )
        post.categories.set(original.categories.all())
    return post, sanitised


def _taken(slug: str, language: str) -> bool:
    return Post.objects.filter(slug=slug, language=language, deleted_at__isnull=True).exists()


def polished(*, actor: Any, post: Post, body: str, title: str | None) -> tuple[list[str], bool]:
    fields: dict[str, Any] = {"body": body}
    if title:
        fields["title"] = title
    changed, sanitised = post_update(actor=actor, post=post, fields=fields)
    if changed and not post.ai_generated:
        post.ai_generated = True
        post.save(update_fields=["ai_generated"])
    return changed, sanitised


def image_add(
    *, actor: Any, post: Post, data: bytes, width: int, height: int, alt: str, prompt: str, model: str
) -> Image:
    require(actor, BlogPerm.EDIT)
    return Image.objects.create(
        post=post,
        data=data,
        width=width,
        height=height,
        alt=alt,
        prompt=prompt,
        model=model,
        created_by=actor,
    )


def image_feature(*, actor: Any, post: Post, image: Image) -> None:
    require(actor, BlogPerm.EDIT)
    post.featured_image = image
    post.save(update_fields=["featured_image", "updated_at"])
    if post.status == Post.Status.PUBLISHED:
        cache_bump()


def image_insert(*, actor: Any, post: Post, image: Image, url: str, caption: str) -> None:
    """The image in the post's body, at its end, as a figure with its alt text and caption."""
    from django.utils.html import escape

    figure = f'<figure><img src="{escape(url)}" alt="{escape(image.alt)}" loading="lazy">'
    if caption:
        figure += f"<figcaption>{escape(caption)}</figcaption>"
    figure += "</figure>"
    post_update(actor=actor, post=post, fields={"body": post.body + figure})

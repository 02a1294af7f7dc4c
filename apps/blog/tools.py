"""The Blog area of the catalogue (SPEC 4.7), and Platform's deleteBlogComment: thin doors onto
services, selectors and the model calls (apps.blog.writing)."""

from datetime import datetime
from typing import Annotated, Literal
from urllib.parse import quote

from django.urls import reverse
from django.utils.translation import gettext as _
from pydantic import Field

from apps.blog import selectors, services, writing
from apps.blog.errors import PostNotPublished
from apps.blog.models import Comment, Image, Post
from apps.blog.permissions import BlogPerm
from apps.blog.shapes import (
    CommentId,
    CommentOut,
    ImageRef,
    PostId,
    PostOut,
    PostSummary,
    image_url,
    public_url,
)
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import Changes, Limit, Offset, Out, Page, Tags, aware, paginate
from apps.core.actors import require
from apps.core.records import Action
from apps.social import api as social

Language = Annotated[str, Field(min_length=2, max_length=12, description="e.g. en, de, pt-br")]
Html = Annotated[str, Field(max_length=200_000, description="HTML (sanitised) or Markdown: bodyFormat")]
Categories = Annotated[list[Annotated[str, Field(max_length=80)]], Field(max_length=20, description="Names")]


def _post(ctx: ToolContext, post_id: int, action: Action = "view") -> Post:
    return (
        Post.objects.select_related("owner", "featured_image", "translation_of")
        .prefetch_related("categories")
        .fetch(ctx.actor, post_id, action)
    )


class PostFields(Changes):
    title: Annotated[str, Field(min_length=1, max_length=200)] | None = None
    body: Html | None = None
    body_format: Literal["html", "markdown"] | None = Field(None, description="Default: html")
    excerpt: Annotated[str, Field(max_length=1000)] | None = None
    slug: Annotated[str, Field(max_length=120)] | None = Field(None, description="Default: from the title")
    language: Language | None = Field(None, description="Default: en")
    categories: Categories | None = None
    tags: Tags | None = None
    seo_title: Annotated[str, Field(max_length=200)] | None = None
    seo_description: Annotated[str, Field(max_length=300)] | None = None
    visibility: Literal["workspace", "private"] | None = Field(None, description="private: only you")
    owner_email: Annotated[str, Field(max_length=254)] | None = Field(None, description="Its author")


class SavedPostOut(Out):
    post: PostOut
    changed: list[str]
    sanitised: bool = Field(description="Unsafe HTML (scripts, handlers, unknown tags) was removed")
    warnings: list[str]


def _saved(post: Post, changed: list[str], sanitised: bool) -> SavedPostOut:
    warnings = (
        [_("The body's HTML was sanitised: scripts, event handlers and tags not allowed were removed.")]
        if sanitised
        else []
    )
    return SavedPostOut(post=PostOut.of(post), changed=changed, sanitised=sanitised, warnings=warnings)


@tool("createBlogPost", permission=BlogPerm.EDIT, title="Create a blog post")
def create_blog_post(
    ctx: ToolContext, *, post: Annotated[PostFields, Field(description="title is required")]
) -> SavedPostOut:
    """Write a new blog post as a draft (HTML or Markdown; unsafe HTML removed). Then: publishBlogPost."""
    created, sanitised = services.post_create(actor=ctx.actor, fields=post.given())
    return _saved(_post(ctx, created.pk), list(post.given()), sanitised)


def _updatable(ctx: ToolContext, *, post_id: int, changes: PostFields) -> bool:
    """A published post's change is seen at once: a person confirms it, after every check."""
    found = _post(ctx, post_id, "change")
    changed = services.post_check(actor=ctx.actor, post=found, fields=changes.given(required=True))
    return found.status == Post.Status.PUBLISHED and bool(changed)


@tool(
    "updateBlogPost",
    permission=BlogPerm.EDIT,
    title="Update a blog post",
    markers=Marker.HIGH_RISK,
    confirm_if=_updatable,
    idempotent=True,
)
def update_blog_post(
    ctx: ToolContext,
    *,
    post_id: PostId,
    changes: Annotated[PostFields, Field(description="Only the fields to change")],
) -> SavedPostOut:
    """Change a post's text, slug, categories, tags, SEO fields or visibility; the rest stay. A person
    confirms a published post's change."""
    found = _post(ctx, post_id, "change")
    changed, sanitised = services.post_update(
        actor=ctx.actor, post=found, fields=changes.given(required=True)
    )
    return _saved(_post(ctx, post_id), changed, sanitised)


class DeletedPostOut(Out):
    id: int
    title: str
    was_public: bool


def _deletable(ctx: ToolContext, *, post_id: int) -> bool:
    """deleteBlogPost's confirmation, asked once the post is known and the caller may delete it."""
    _post(ctx, post_id, "delete")
    return True


@tool(
    "deleteBlogPost",
    permission=BlogPerm.DELETE,
    title="Delete a blog post",
    markers=Marker.DESTRUCTIVE,
    confirm_if=_deletable,
)
def delete_blog_post(ctx: ToolContext, *, post_id: PostId) -> DeletedPostOut:
    """Delete a post to the trash: off the public blog, its feed and sitemap at once. To hide it
    and keep it: unpublishBlogPost."""
    found = _post(ctx, post_id, "delete")
    was_public = found.is_public
    services.post_delete(actor=ctx.actor, post=found)
    return DeletedPostOut(id=found.pk, title=found.title, was_public=was_public)


class PublishedOut(Out):
    post: PostSummary
    scheduled: bool
    message: str


def _publishable(ctx: ToolContext, *, post_id: int, at: datetime | None = None) -> bool:
    found = _post(ctx, post_id, "change")
    if found.visibility != "workspace":
        from apps.blog.errors import PrivatePost

        raise PrivatePost(id=found.pk)
    return True


@tool(
    "publishBlogPost",
    permission=BlogPerm.PUBLISH,
    title="Publish a blog post",
    markers=Marker.HIGH_RISK,
    confirm_if=_publishable,
)
def publish_blog_post(
    ctx: ToolContext,
    *,
    post_id: PostId,
    at: Annotated[datetime | None, Field(description="Schedule for this time; default: now")] = None,
) -> PublishedOut:
    """Publish a post on the public blog now, or schedule it for a time. To take it down:
    unpublishBlogPost."""
    found = _post(ctx, post_id, "change")
    services.post_publish(actor=ctx.actor, post=found, at=aware(at))
    post = _post(ctx, post_id)
    if post.status == Post.Status.SCHEDULED and post.publish_at is not None:
        message = _("Scheduled: it goes out on its own at {at}.").format(at=post.publish_at.isoformat())
    else:
        message = _("Published at {url}.").format(url=public_url(post))
    return PublishedOut(
        post=PostSummary.of(post), scheduled=post.status == Post.Status.SCHEDULED, message=message
    )


class UnpublishedOut(Out):
    post: PostSummary
    was: str = Field(description="Its status before")


@tool("unpublishBlogPost", permission=BlogPerm.PUBLISH, title="Unpublish a blog post", idempotent=True)
def unpublish_blog_post(ctx: ToolContext, *, post_id: PostId) -> UnpublishedOut:
    """Take a post off the public blog (or cancel its schedule); it stays as a draft to edit."""
    found = _post(ctx, post_id, "change")
    was = services.post_unpublish(actor=ctx.actor, post=found)
    return UnpublishedOut(post=PostSummary.of(_post(ctx, post_id)), was=was)


Status = Literal["draft", "scheduled", "published", "unpublished"]


@tool("searchBlogPosts", permission=BlogPerm.VIEW, title="Search blog posts", read_only=True)
def search_blog_posts(
    ctx: ToolContext,
    *,
    query: Annotated[str, Field(max_length=200, description="Words in title, text or tags")] = "",
    status: Annotated[Status | None, Field(description="Default: any")] = None,
    language: Language | None = None,
    category: Annotated[str | None, Field(max_length=80, description="A category's name")] = None,
    tag: Annotated[str | None, Field(max_length=50, description="Posts carrying it")] = None,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[PostSummary]:
    """Find blog posts by words, status, language, category or tag, newest first. One post in full:
    its id here, then updateBlogPost."""
    rows = selectors.posts(
        ctx.actor, query=query, status=status, language=language, category=category, tag=tag
    )
    return paginate(rows, limit=limit, offset=offset, item=PostSummary.of)


class CountOut(Out):
    status: str
    posts: int


class BlogSummaryOut(Out):
    posts: list[CountOut]
    comments_pending: int
    next_scheduled: PostSummary | None
    recent: list[PostSummary]
    languages: list[str]
    blog_url: str
    feeds: list[str]


@tool("getBlogSummary", permission=BlogPerm.VIEW, title="Get the blog's summary", read_only=True)
def get_blog_summary(ctx: ToolContext) -> BlogSummaryOut:
    """The blog at a glance: posts by status, comments to moderate, the next scheduled post, links."""
    summary = selectors.summary(ctx.actor)
    return BlogSummaryOut(
        posts=[CountOut(status=status, posts=count) for status, count in summary.counts.items()],
        comments_pending=summary.pending,
        next_scheduled=PostSummary.of(summary.next_scheduled) if summary.next_scheduled else None,
        recent=[PostSummary.of(post) for post in summary.recent],
        languages=summary.languages,
        blog_url=selectors.blog_url(),
        feeds=selectors.feed_urls(),
    )


class CategoryOut(Out):
    id: int
    name: str
    slug: str
    posts: int
    published: int


@tool("listBlogCategories", permission=BlogPerm.VIEW, title="List blog categories", read_only=True)
def list_blog_categories(ctx: ToolContext, *, limit: Limit = 50, offset: Offset = 0) -> Page[CategoryOut]:
    """List the blog's categories with how many posts each has (a post names its categories)."""
    rows = selectors.categories(ctx.actor)
    return paginate(
        rows,
        limit=limit,
        offset=offset,
        item=lambda category: CategoryOut.of_record(
            category, posts=category.post_count, published=category.public_count
        ),
    )


@tool("createBlogComment", permission=BlogPerm.EDIT, title="Comment on a blog post")
def create_blog_comment(
    ctx: ToolContext,
    *,
    post_id: PostId,
    body: Annotated[str, Field(min_length=1, max_length=5000, description="Plain text; links allowed")],
    parent_id: Annotated[
        int | None, Field(ge=1, description="The comment answered (listBlogComments)")
    ] = None,
) -> CommentOut:
    """Comment on a post in your own name (approved at once), or answer a comment with parentId."""
    found = _post(ctx, post_id)
    comment = services.comment_create(actor=ctx.actor, post=found, body=body, parent_id=parent_id)
    return CommentOut.of_record(comment)


@tool("listBlogComments", permission=BlogPerm.VIEW, title="List blog comments", read_only=True)
def list_blog_comments(
    ctx: ToolContext,
    *,
    post_id: Annotated[int | None, Field(ge=1, description="One post's (searchBlogPosts)")] = None,
    status: Literal["pending", "approved", "spam"] | None = Field(None, description="pending: to moderate"),
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[CommentOut]:
    """List comments on posts, newest first: a post's, or all awaiting moderation (pending)."""
    rows = Comment.objects.restrict(ctx.actor).select_related("author")
    if post_id is not None:
        rows = rows.filter(post=_post(ctx, post_id))
    if status:
        rows = rows.filter(status=status)
    return paginate(
        rows.order_by("-created_at", "-id"), limit=limit, offset=offset, item=CommentOut.of_record
    )


class DeletedCommentOut(Out):
    id: int
    post_id: int
    deleted: bool = True


@tool(
    "deleteBlogComment",
    permission=BlogPerm.PUBLISH,
    title="Delete a blog comment",
    markers=Marker.DESTRUCTIVE,
    confirm_if=lambda ctx, *, comment_id: bool(Comment.objects.fetch(ctx.actor, comment_id, "delete")),
)
def delete_blog_comment(ctx: ToolContext, *, comment_id: CommentId) -> DeletedCommentOut:
    """Delete a comment on a blog post (spam, abuse) to the trash; it leaves the public page."""
    comment = Comment.objects.select_related("post").fetch(ctx.actor, comment_id, "delete")
    services.comment_delete(actor=ctx.actor, comment=comment)
    return DeletedCommentOut(id=comment.pk, post_id=comment.post_id)


class TranslationOut(Out):
    id: int
    language: str
    title: str
    slug: str
    status: str
    original: bool
    stale: bool = Field(description="Its original changed after it was translated")
    public_url: str | None


class TranslationsOut(Out):
    original_id: int
    translations: list[TranslationOut]
    missing_in: list[str] = Field(description="Languages of the blog with no version of this post")


def _translation(post: Post) -> TranslationOut:
    return TranslationOut.of_record(
        post, original=post.translation_of_id is None, public_url=public_url(post)
    )


@tool("getPostTranslations", permission=BlogPerm.VIEW, title="Get a post's translations", read_only=True)
def get_post_translations(ctx: ToolContext, *, post_id: PostId) -> TranslationsOut:
    """A post's language versions (its original and translations), each marked stale when outdated."""
    found = _post(ctx, post_id)
    group = selectors.translation_group(ctx.actor, found)
    languages = {post.language for post in group}
    return TranslationsOut(
        original_id=found.original.pk,
        translations=[_translation(post) for post in group],
        missing_in=[language for language in selectors.languages(ctx.actor) if language not in languages],
    )


class CacheOut(Out):
    generation: int = Field(description="The public pages' new version: their ETags change")
    cdn_purged: bool
    message: str


@tool("clearBlogCache", permission=BlogPerm.PUBLISH, title="Clear the blog's cache", idempotent=True)
def clear_blog_cache(ctx: ToolContext) -> CacheOut:
    """Make the public blog, its feeds and sitemap be fetched anew (after a fix browsers still cache)."""
    generation = services.cache_clear(actor=ctx.actor)
    return CacheOut(
        generation=generation,
        cdn_purged=False,
        message=_(
            "The blog's pages, feeds and sitemap carry a new version; browsers and proxies fetch them "
            "anew. No CDN is configured, so there was none to purge."
        ),
    )


class ShareOut(Out):
    url: str
    title: str
    snippet: str
    links: dict[str, str] = Field(description="Share pages of networks, to open in a browser")
    posted: bool = Field(description="Whether it was posted anywhere")
    accounts: list[social.AccountOut] = Field(description="Connected social accounts, for accountId")
    social_post: social.PostOut | None = Field(description="The post to accountId: its state and URL")
    message: str


def _share_text(found: Post, url: str, message: str) -> tuple[str, list[str]]:
    return message.strip() or found.title, [url]


def _posts_for_real(
    ctx: ToolContext,
    *,
    post_id: int,
    message: str = "",
    account_id: int | None = None,
    at: datetime | None = None,
) -> bool:
    """Posting to a connected account is confirmed first, once everything about it is right."""
    if account_id is None or not social.accounts():
        return False
    require(ctx.actor, BlogPerm.PUBLISH)
    found = _post(ctx, post_id)
    url = public_url(found)
    if url is None:
        raise PostNotPublished(id=found.pk, status=found.status, what=_("shareBlogPost shares"))
    text, links = _share_text(found, url, message)
    social.check(account_id=account_id, text=text, links=links, at=at)
    return True


@tool(
    "shareBlogPost",
    permission=BlogPerm.VIEW,
    title="Share a blog post",
    markers=Marker.HIGH_RISK,
    confirm_if=_posts_for_real,
    open_world=True,
)
def share_blog_post(
    ctx: ToolContext,
    *,
    post_id: PostId,
    message: Annotated[str, Field(max_length=280, description="Your words before the link")] = "",
    account_id: Annotated[
        int | None, Field(description="Post there (one of `accounts`); editors only")
    ] = None,
    at: Annotated[
        datetime | None, Field(description="With accountId: post at this time; default: now")
    ] = None,
) -> ShareOut:
    """A published post's link and share links; with accountId, posted to Mastodon or Bluesky.
    Now, or at a time."""
    found = _post(ctx, post_id)
    url = public_url(found)
    if url is None:
        raise PostNotPublished(id=found.pk, status=found.status, what=_("shareBlogPost shares"))
    from apps.blog.html import text_of

    summary = found.excerpt or text_of(found.body)[:200]
    snippet = f"{message.strip() or found.title} {url}".strip()
    text, link = quote(snippet), quote(url, safe="")
    links = {
        "mastodon": f"https://mastodonshare.com/?text={text}",
        "bluesky": f"https://bsky.app/intent/compose?text={text}",
        "linkedin": f"https://www.linkedin.com/sharing/share-offsite/?url={link}",
        "x": f"https://x.com/intent/post?text={text}",
        "email": f"mailto:?subject={quote(found.title)}&body={quote(summary + chr(10) + chr(10) + url)}",
    }
    accounts = social.accounts()
    shared = ShareOut(
        url=url,
        title=found.title,
        snippet=snippet,
        links=links,
        posted=False,
        accounts=[social.AccountOut.model_validate(account) for account in accounts],
        social_post=None,
        message=_(
            "No social account is connected to this workspace, so nothing was posted: open a share link, or "
            "paste the snippet. An administrator connects Mastodon or Bluesky in Settings → Social accounts."
        ),
    )
    if not accounts:
        return shared
    if account_id is None:
        shared.message = _(
            "Nothing was posted: name one of `accounts` as accountId to post there, now or at a time."
        )
        return shared
    require(ctx.actor, BlogPerm.PUBLISH)
    words, urls = _share_text(found, url, message)
    made = social.post(
        actor=ctx.actor,
        account_id=account_id,
        text=words,
        links=urls,
        at=aware(at),
        source=f"blog:{found.pk}",
    )
    shared.social_post = social.PostOut.of(made)
    shared.posted = made.state == social.SocialPost.State.SENT
    shared.message = _share_message(made)
    return shared


def _share_message(made: social.SocialPost) -> str:
    where = str(made.account)
    if made.state == social.SocialPost.State.SENT:
        return _("Posted to {account}: {url}").format(account=where, url=made.remote_url)
    if made.state == social.SocialPost.State.FAILED:
        return _("Not posted to {account}: {reason}").format(account=where, reason=made.reason)
    if made.attempts:
        return _("Not posted yet: {reason} The service tries again at {at} on its own.").format(
            reason=made.reason, at=made.next_try_at.isoformat()
        )
    return _("Scheduled for {account} at {at}: the service posts it then.").format(
        account=where, at=made.scheduled_at.isoformat()
    )


# --- written and drawn by a model (metered against the caller's API key) -----------------------------


class TranslatedOut(Out):
    translation: PostOut
    sanitised: bool
    model: str
    cost_micro_usd: int


@tool(
    "translateBlogPost",
    permission=BlogPerm.EDIT,
    title="Translate a blog post",
    open_world=True,
)
def translate_blog_post(ctx: ToolContext, *, post_id: PostId, language: Language) -> TranslatedOut:
    """Translate a post with the model into another language, as a linked draft (labelled AI-made).
    Spends credits. Its versions: getPostTranslations."""
    original = selectors.original(ctx.actor, _post(ctx, post_id))
    code = services.language_code(language)
    selectors.untranslated(ctx.actor, original, code)
    written = writing.translation(
        api_key_id=ctx.principal.api_key_id,
        post={"title": original.title, "excerpt": original.excerpt, "body": original.body},
        language=code,
    )
    translation, sanitised = services.translation_create(
        actor=ctx.actor,
        original=original,
        language=code,
        title=written.fields["title"],
        body=written.fields["body"],
        excerpt=written.fields["excerpt"],
    )
    return TranslatedOut(
        translation=PostOut.of(_post(ctx, translation.pk)),
        sanitised=sanitised,
        model=written.model,
        cost_micro_usd=written.cost_micro_usd,
    )


class PolishedOut(Out):
    post: PostOut
    changed: list[str]
    sanitised: bool
    model: str
    cost_micro_usd: int


@tool("polishBlogPost", permission=BlogPerm.EDIT, title="Polish a blog post", open_world=True)
def polish_blog_post(
    ctx: ToolContext,
    *,
    post_id: PostId,
    instructions: Annotated[str, Field(max_length=500, description="e.g. shorter, friendlier")] = "",
    keep_title: Annotated[bool, Field(description="Change only the text")] = False,
) -> PolishedOut:
    """Improve a post's grammar, clarity and flow with the model, in place (labelled AI-edited).
    Spends credits."""
    found = _post(ctx, post_id, "change")
    written = writing.polish(
        api_key_id=ctx.principal.api_key_id,
        post={"title": found.title, "body": found.body},
        instructions=instructions.strip(),
    )
    changed, sanitised = services.polished(
        actor=ctx.actor,
        post=found,
        body=written.fields["body"],
        title=None if keep_title else written.fields["title"],
    )
    return PolishedOut(
        post=PostOut.of(_post(ctx, post_id)),
        changed=changed,
        sanitised=sanitised,
        model=written.model,
        cost_micro_usd=written.cost_micro_usd,
    )


class GeneratedImageOut(Out):
    post_id: int
    image: ImageRef
    model: str
    cost_micro_usd: int


Prompt = Annotated[str, Field(min_length=3, max_length=2000, description="What the image shows")]
Alt = Annotated[
    str, Field(min_length=3, max_length=300, description="Alt text for readers who cannot see it")
]
Size = Annotated[
    Literal["1024x1024", "1536x1024", "1024x1536"], Field(description="Width x height in pixels")
]


def _image(ctx: ToolContext, found: Post, tool_name: str, prompt: str, alt: str, size: str) -> Image:
    drawn = writing.draw(api_key_id=ctx.principal.api_key_id, tool=tool_name, prompt=prompt, size=size)
    image = services.image_add(
        actor=ctx.actor,
        post=found,
        data=drawn.data,
        width=drawn.width,
        height=drawn.height,
        alt=alt.strip(),
        prompt=prompt,
        model=drawn.model,
    )
    image.cost = drawn.cost_micro_usd  # type: ignore[attr-defined]
    return image


def _generated(found: Post, image: Image) -> GeneratedImageOut:
    return GeneratedImageOut(
        post_id=found.pk,
        image=ImageRef.of_record(image, url=image_url(image.pk)),
        model=image.model,
        cost_micro_usd=getattr(image, "cost", 0),
    )


@tool("generateBlogImage", permission=BlogPerm.EDIT, title="Generate a blog post's image", open_world=True)
def generate_blog_image(
    ctx: ToolContext, *, post_id: PostId, prompt: Prompt, alt: Alt, size: Size = "1536x1024"
) -> GeneratedImageOut:
    """Make a post's featured (header) image with the image model, labelled AI-made. Spends credits.
    An image inside the text: generateBlogContentImage."""
    found = _post(ctx, post_id, "change")
    image = _image(ctx, found, "generateBlogImage", prompt, alt, size)
    services.image_feature(actor=ctx.actor, post=found, image=image)
    return _generated(found, image)


@tool(
    "generateBlogContentImage",
    permission=BlogPerm.EDIT,
    title="Generate an image in a blog post",
    open_world=True,
)
def generate_blog_content_image(
    ctx: ToolContext,
    *,
    post_id: PostId,
    prompt: Prompt,
    alt: Alt,
    caption: Annotated[str, Field(max_length=300, description="Shown under it")] = "",
    size: Size = "1024x1024",
) -> GeneratedImageOut:
    """Make an illustration with the image model at the end of a post's text, with alt text.
    A caption too, if given. Spends credits. The header image: generateBlogImage."""
    found = _post(ctx, post_id, "change")
    image = _image(ctx, found, "generateBlogContentImage", prompt, alt, size)
    services.image_insert(
        actor=ctx.actor,
        post=found,
        image=image,
        url=reverse("blog:image", kwargs={"image_id": image.pk}),
        caption=caption,
    )
    return _generated(found, image)

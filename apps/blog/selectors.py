"""Reads about the blog: searches, totals, translation groups, what the public sees."""

from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Q, QuerySet
from django.utils.translation import gettext as _

from apps.blog.models import Category, Comment, Post
from apps.core import search
from apps.core.errors import invalid
from apps.tenancy import links

SEARCHED = ("title", "body", "excerpt", "slug")


def posts(
    actor: Any,
    *,
    query: str = "",
    status: str | None = None,
    language: str | None = None,
    category: str | None = None,
    tag: str | None = None,
) -> QuerySet[Post]:
    rows = Post.objects.restrict(actor).select_related("owner").prefetch_related("categories")
    if query.strip():
        words = search.matching(Post.objects.restrict(actor), query, SEARCHED).values("pk")
        tagged = Q(tags__contains=[query.strip().lower()])
        rows = rows.filter(Q(pk__in=words) | tagged)
    if status:
        rows = rows.filter(status=status)
    if language:
        rows = rows.filter(language=language.lower())
    if category:
        rows = rows.filter(categories__name__iexact=category.strip(), categories__deleted_at__isnull=True)
    if tag:
        rows = rows.filter(tags__contains=[tag.strip().lower()])
    return rows.distinct().order_by("-updated_at", "-id")


@dataclass(frozen=True)
class Summary:
    counts: dict[str, int]
    pending: int
    next_scheduled: Post | None
    recent: list[Post]
    languages: list[str]


def summary(actor: Any) -> Summary:
    rows = Post.objects.restrict(actor)
    counts = {status: 0 for status in Post.Status.values}
    for row in rows.values("status").annotate(n=Count("id")):
        counts[row["status"]] = row["n"]
    pending = Comment.objects.restrict(actor).filter(status=Comment.Status.PENDING).count()
    scheduled = rows.filter(status=Post.Status.SCHEDULED).order_by("publish_at").first()
    recent = list(rows.prefetch_related("categories").order_by("-updated_at", "-id")[:5])
    return Summary(counts, pending, scheduled, recent, languages(actor))


def languages(actor: Any) -> list[str]:
    return sorted(set(Post.objects.restrict(actor).values_list("language", flat=True)))


def categories(actor: Any) -> QuerySet[Category]:
    """The categories of posts `actor` may see, each with how many of those posts it has: a
    category named only by a colleague's private draft is theirs to know of."""
    seen = Post.objects.restrict(actor).values("pk")
    live = Q(posts__deleted_at__isnull=True, posts__in=seen)
    return (
        Category.objects.restrict(actor)
        .filter(pk__in=Category.objects.filter(posts__in=seen).values("pk"))
        .annotate(
            post_count=Count("posts", filter=live, distinct=True),
            public_count=Count(
                "posts",
                filter=live & Q(posts__status=Post.Status.PUBLISHED, posts__visibility="workspace"),
                distinct=True,
            ),
        )
        .order_by("name", "id")
    )


def original(actor: Any, post: Post) -> Post:
    """The original of `post`'s translation group, if `actor` may see it (RecordNotFound otherwise:
    a translation is no way to a private original)."""
    return post if post.translation_of_id is None else Post.objects.fetch(actor, post.translation_of_id)


def translation_group(actor: Any, post: Post) -> list[Post]:
    original = post.original
    rows = Post.objects.restrict(actor).select_related("translation_of")
    return list(
        rows.filter(Q(pk=original.pk) | Q(translation_of=original)).order_by("translation_of", "language")
    )


def untranslated(actor: Any, original: Post, language: str) -> None:
    """Refuses a language the post is already in (its original or a live translation)."""
    if original.language == language:
        raise invalid(
            "language",
            _("post {id} is written in {language}; name another language"),
            id=original.pk,
            language=language,
        )
    existing = Post.objects.live().filter(translation_of=original, language=language).first()
    if existing is not None:
        raise invalid(
            "language",
            _("post {id} already has a {language} translation, post {translation}; change that one"),
            id=original.pk,
            language=language,
            translation=existing.pk,
        )


# --- the public blog ----------------------------------------------------------------------------------


def public_posts() -> QuerySet[Post]:
    """What the public sees: published, the workspace's, live."""
    return (
        Post.objects.live()
        .filter(status=Post.Status.PUBLISHED, visibility="workspace")
        .select_related("owner", "featured_image")
        .prefetch_related("categories")
        .order_by("-published_at", "-id")
    )


def public_translations(post: Post) -> list[Post]:
    original = post.original
    return list(public_posts().filter(Q(pk=original.pk) | Q(translation_of=original)).order_by("language"))


def blog_url() -> str:
    return links.page("blog:index")


def feed_urls() -> list[str]:
    return [links.page("blog:rss"), links.page("blog:atom"), links.page("blog:sitemap")]

"""Blog posts as a spreadsheet (apps.core.transfer): the posts a person may read (the workspace's,
their own private drafts; an administrator of the blog every one), each its title, address,
language, state, dates, categories and tags, not its text. Export only: a post is written through
its page and tools, where its HTML is sanitised and its slug kept unique per language; moving a
blog in from another engine is a matter of that engine's own export (WordPress's WXR, Ghost's
JSON), not of rows. Comments are not exported: they carry their authors' addresses, and are
examined and erased with each author's personal data."""

from typing import Any

from django.utils.translation import gettext_lazy as _

from apps.blog.models import Post
from apps.blog.permissions import BlogPerm
from apps.core import transfer


def _rows(actor: Any) -> Any:
    return (
        Post.objects.restrict(actor, "view")
        .select_related("owner", "translation_of")
        .prefetch_related("categories")
        .defer("body")
        .order_by("id")
    )


transfer.exportable(
    transfer.Exportable(
        kind="blog_post",
        label=_("Blog post"),
        permission=BlogPerm.VIEW,
        columns=(
            ("id", lambda post: post.pk),
            ("title", lambda post: post.title),
            ("slug", lambda post: post.slug),
            ("language", lambda post: post.language),
            ("translationOf", lambda post: post.translation_of_id or ""),
            ("status", lambda post: post.status),
            ("visibility", lambda post: post.visibility),
            ("publishAt", lambda post: post.publish_at),
            ("publishedAt", lambda post: post.published_at),
            (
                "categories",
                lambda post: "; ".join(sorted(category.name for category in post.categories.all())),
            ),
            ("tags", lambda post: "; ".join(post.tags or [])),
            ("excerpt", lambda post: post.excerpt),
            ("ownerEmail", lambda post: post.owner.email if post.owner else ""),
            ("madeWithAi", lambda post: post.ai_generated),
            ("createdAt", lambda post: post.created_at),
        ),
        rows=_rows,
        search=("title", "slug", "excerpt"),
    )
)

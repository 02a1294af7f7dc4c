"""What the blog tools answer (camelCase JSON), and a post's public address."""

from datetime import datetime
from typing import Annotated

from django.conf import settings
from pydantic import Field

from apps.blog.models import Comment, Post
from apps.catalogue.shapes import From, Out, PersonRef, id_field
from apps.tenancy import links

PostId = Annotated[int, id_field("searchBlogPosts")]
CommentId = Annotated[int, id_field("listBlogComments")]


def default_language() -> str:
    return str(settings.ATRIUM_BLOG_LANGUAGE)


def public_path_args(post: Post) -> tuple[str, dict[str, str]]:
    if post.language == default_language():
        return "blog:post", {"slug": post.slug}
    return "blog:post_in", {"language": post.language, "slug": post.slug}


def public_url(post: Post) -> str | None:
    """The post's address on the workspace's public blog, when it is there."""
    if not post.is_public:
        return None
    name, kwargs = public_path_args(post)
    return links.page(name, **kwargs)


class PostSummary(Out):
    id: int
    title: str
    slug: str
    language: str
    status: str
    visibility: str
    owner: PersonRef | None
    publish_at: datetime | None = Field(description="When a scheduled post goes out")
    published_at: datetime | None
    categories: list[str]
    tags: list[str]
    translation_of: int | None = Field(description="The original's id, for a translation")
    stale: bool = Field(description="A translation whose original changed since")
    ai_generated: bool
    public_url: str | None
    updated_at: datetime

    @classmethod
    def of(cls, post: Post) -> "PostSummary":
        return cls.of_record(
            post,
            categories=[category.name for category in post.categories.all()],
            translation_of=post.translation_of_id,
            public_url=public_url(post),
        )


class ImageRef(Out):
    id: int
    alt: str
    width: int
    height: int
    url: str
    ai_generated: bool


def image_url(image_id: int) -> str:
    return links.page("blog:image", image_id=image_id)


class PostOut(PostSummary):
    body: str
    excerpt: str
    seo_title: str
    seo_description: str
    featured_image: ImageRef | None
    translations: int
    comments_pending: int
    comments_approved: int

    @classmethod
    def of(cls, post: Post) -> "PostOut":
        image = post.featured_image
        counts = {status: 0 for status in Comment.Status.values}
        for status in post.comments.live().values_list("status", flat=True):
            counts[status] += 1
        return cls.of_record(
            post,
            categories=[category.name for category in post.categories.all()],
            translation_of=post.translation_of_id,
            public_url=public_url(post),
            featured_image=ImageRef.of_record(image, url=image_url(image.pk)) if image else None,
            translations=Post.objects.live().filter(translation_of=post.original).count()
            + (1 if post.translation_of_id else 0),
            comments_pending=counts["pending"],
            comments_approved=counts["approved"],
        )


class CommentOut(Out):
    id: int
    post_id: int
    parent_id: int | None
    author_name: str
    author: Annotated[PersonRef | None, From("author")]
    body: str
    status: str
    created_at: datetime

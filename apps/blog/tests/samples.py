"""A normal call of every Blog tool (and Platform's deleteBlogComment), for the catalogue's contract
test."""

import uuid
from typing import Any

from apps.blog import services
from apps.blog.tests.blog_models import metered
from apps.blog.tests.factories import PostFactory, comment
from apps.catalogue.testing import Sample, sample


def _marker() -> str:
    return f"Post{uuid.uuid4().hex[:8]}"


def _post(actor: Any, **fields: Any) -> tuple[Any, str]:
    marker = _marker()
    return PostFactory(actor=actor, title=f"{marker} notes", **fields), marker


@sample("createBlogPost")
def create_blog_post(actor: Any) -> Sample:
    marker = _marker()
    return Sample({"post": {"title": f"{marker} launch", "body": "<p>Hello</p>", "categories": ["News"]}})


@sample("updateBlogPost")
def update_blog_post(actor: Any) -> Sample:
    post, marker = _post(actor)
    return Sample({"postId": post.pk, "changes": {"excerpt": "Short"}}, private=[marker])


@sample("deleteBlogPost")
def delete_blog_post(actor: Any) -> Sample:
    post, marker = _post(actor)
    return Sample({"postId": post.pk}, private=[marker])


@sample("publishBlogPost")
def publish_blog_post(actor: Any) -> Sample:
    post, marker = _post(actor)
    return Sample({"postId": post.pk}, private=[marker])


@sample("unpublishBlogPost")
def unpublish_blog_post(actor: Any) -> Sample:
    post, marker = _post(actor)
    services.post_publish(actor=actor, post=post)
    return Sample({"postId": post.pk}, private=[marker])


@sample("searchBlogPosts")
def search_blog_posts(actor: Any) -> Sample:
    _made, marker = _post(actor)
    return Sample({"query": marker}, private=[marker])


@sample("getBlogSummary")
def get_blog_summary(actor: Any) -> Sample:
    _made, marker = _post(actor)
    return Sample({}, private=[marker])


@sample("listBlogCategories")
def list_blog_categories(actor: Any) -> Sample:
    marker = _marker()
    PostFactory(actor=actor, categories=[f"{marker} topic"])
    return Sample({}, private=[marker])


@sample("createBlogComment")
def create_blog_comment(actor: Any) -> Sample:
    post, marker = _post(actor)
    return Sample({"postId": post.pk, "body": "Well put"}, private=[marker])


@sample("listBlogComments")
def list_blog_comments(actor: Any) -> Sample:
    post, marker = _post(actor)
    comment(actor, post, f"{marker} comment")
    return Sample({"postId": post.pk}, private=[marker])


@sample("deleteBlogComment")
def delete_blog_comment(actor: Any) -> Sample:
    post, marker = _post(actor)
    made = comment(actor, post, f"{marker} comment")
    return Sample({"commentId": made.pk}, private=[marker])


@sample("getPostTranslations")
def get_post_translations(actor: Any) -> Sample:
    post, marker = _post(actor)
    return Sample({"postId": post.pk}, private=[marker])


@sample("clearBlogCache")
def clear_blog_cache(actor: Any) -> Sample:
    return Sample({})


@sample("shareBlogPost")
def share_blog_post(actor: Any) -> Sample:
    post, marker = _post(actor)
    services.post_publish(actor=actor, post=post)
    return Sample({"postId": post.pk}, private=[marker])


@sample("translateBlogPost")
def translate_blog_post(actor: Any) -> Sample:
    post, marker = _post(actor)
    return Sample({"postId": post.pk, "language": "de"}, private=[marker], around=metered)


@sample("polishBlogPost")
def polish_blog_post(actor: Any) -> Sample:
    post, marker = _post(actor)
    return Sample({"postId": post.pk}, private=[marker], around=metered)


@sample("generateBlogImage")
def generate_blog_image(actor: Any) -> Sample:
    post, marker = _post(actor)
    return Sample(
        {"postId": post.pk, "prompt": "a lighthouse at dawn", "alt": "A lighthouse"},
        private=[marker],
        around=metered,
    )


@sample("generateBlogContentImage")
def generate_blog_content_image(actor: Any) -> Sample:
    post, marker = _post(actor)
    return Sample(
        {"postId": post.pk, "prompt": "a chart of growth", "alt": "A chart"}, private=[marker], around=metered
    )

"""The public blog on the workspace's own host, for people who are not signed in: the index
(/blog/), a post (/blog/<slug>/ in the blog's language, /blog/<language>/<slug>/ in the others),
its images, RSS and Atom feeds (feedgen), a sitemap with `hreflang` alternates, and the comment
form (pending until moderated; a honeypot field and a per-address hourly cap).

Only what `selectors.public_posts` gives is shown: published, the workspace's (never a private
post), not deleted; anything else is a 404. Every answer carries `Cache-Control: public` for
ATRIUM_BLOG_CACHE_SECONDS and an ETag made of the blog's cache generation (counted up by publish,
unpublish and clearBlogCache: apps.blog.services), so a changed blog is fetched anew at once.
"""

import hashlib
from collections.abc import Callable
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from apps.blog import html, selectors, services
from apps.blog.models import Comment, Image, Post
from apps.blog.shapes import default_language, public_path_args
from apps.core.errors import AppError
from apps.core.workspaces import current_workspace, has_area


def _installed() -> None:
    if not has_area("blog"):
        raise Http404


def _etag(*parts: Any) -> str:
    seed = "|".join(str(part) for part in (services.generation(), *parts))
    return '"' + hashlib.sha256(seed.encode()).hexdigest()[:32] + '"'


def _cached(request: HttpRequest, etag: str, make: Callable[[], HttpResponse]) -> HttpResponse:
    """A 304 when the client has this version, else the page; both with the cache headers."""
    if etag in [tag.strip() for tag in request.headers.get("If-None-Match", "").split(",")]:
        response = HttpResponse(status=304)
    else:
        response = make()
    response["ETag"] = etag
    response["Cache-Control"] = f"public, max-age={settings.ATRIUM_BLOG_CACHE_SECONDS}"
    return response


def _absolute(request: HttpRequest, path: str) -> str:
    return request.build_absolute_uri(path)


def _path(post: Post) -> str:
    name, kwargs = public_path_args(post)
    return reverse(name, kwargs=kwargs)


def _brand() -> str:
    workspace = current_workspace()
    return str(getattr(workspace, "brand_name", "") or getattr(workspace, "name", "") or "Blog")


@require_GET
def index(request: HttpRequest) -> HttpResponse:
    _installed()
    posts = list(selectors.public_posts()[:50])

    def make() -> HttpResponse:
        return render(
            request,
            "blog/public_index.html",
            {
                "posts": [
                    (post, _path(post), html.text_of(post.excerpt or post.body)[:280]) for post in posts
                ],
                "brand": _brand(),
                "canonical": _absolute(request, reverse("blog:index")),
                "language": default_language(),
            },
        )

    return _cached(request, _etag("index", *(post.pk for post in posts)), make)


def _public(language: str, slug: str) -> Post:
    post = selectors.public_posts().filter(language=language, slug=slug).first()
    if post is None:
        raise Http404
    return post


@require_GET
def post_page(request: HttpRequest, slug: str) -> HttpResponse:
    _installed()
    return _post_page(request, _public(default_language(), slug))


@require_GET
def post_in(request: HttpRequest, language: str, slug: str) -> HttpResponse:
    _installed()
    if language == default_language():
        return HttpResponseRedirect(reverse("blog:post", kwargs={"slug": slug}))
    return _post_page(request, _public(language, slug))


def _post_page(request: HttpRequest, post: Post) -> HttpResponse:
    comments = list(
        Comment.objects.live().filter(post=post, status=Comment.Status.APPROVED).order_by("created_at")
    )

    def make() -> HttpResponse:
        url = _absolute(request, _path(post))
        alternates = [
            (other.language, _absolute(request, _path(other)))
            for other in selectors.public_translations(post)
        ]
        image = post.featured_image
        return render(
            request,
            "blog/public_post.html",
            {
                "post": post,
                "brand": _brand(),
                "canonical": url,
                "language": post.language,
                "alternates": alternates if len(alternates) > 1 else [],
                "description": post.seo_description or html.text_of(post.excerpt or post.body)[:200],
                "image_url": _absolute(request, reverse("blog:image", kwargs={"image_id": image.pk}))
                if image
                else "",
                "image": image,
                "comments": comments,
                "comment_url": reverse("blog:comment", kwargs={"post_id": post.pk}),
                "said": request.GET.get("comment") == "pending",
            },
        )

    return _cached(request, _etag("post", post.pk, post.updated_at.isoformat(), len(comments)), make)


@require_GET
def image(request: HttpRequest, image_id: int) -> HttpResponse:
    _installed()
    found = Image.objects.select_related("post").filter(pk=image_id).first()
    if found is None:
        raise Http404
    if not found.post.is_public:
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            raise Http404
        try:
            Post.objects.fetch(user, found.post_id)
        except AppError:
            raise Http404 from None

    def make() -> HttpResponse:
        response = HttpResponse(bytes(found.data), content_type=found.mime_type)
        response["Content-Disposition"] = f'inline; filename="blog-image-{found.pk}.png"'
        return response

    response = _cached(request, _etag("image", found.pk), make)
    if not found.post.is_public:
        response["Cache-Control"] = "private, no-store"
    return response


def _feed(request: HttpRequest, itself: str) -> Any:
    from feedgen.feed import FeedGenerator

    feed = FeedGenerator()
    home = _absolute(request, reverse("blog:index"))
    feed.id(home)
    feed.title(_brand())
    feed.subtitle(f"{_brand()}: blog")
    feed.link(href=_absolute(request, reverse(itself)), rel="self")
    feed.link(href=home, rel="alternate")
    feed.language(default_language())
    posts = list(selectors.public_posts()[:50])
    for post in reversed(posts):
        url = _absolute(request, _path(post))
        entry = feed.add_entry()
        entry.id(url)
        entry.guid(url, permalink=True)
        entry.title(post.title)
        entry.link(href=url)
        entry.published(post.published_at)
        entry.updated(post.updated_at)
        entry.description(html.text_of(post.excerpt or post.body)[:500] or post.title)
        entry.content(post.body, type="html")
        if post.owner is not None and post.owner.full_name:  # a name, never the address
            entry.author({"name": post.owner.full_name})
        for category in post.categories.all():
            entry.category(term=category.slug, label=category.name)
    if posts:
        feed.updated(max(post.updated_at for post in posts))
    return feed, posts


@require_GET
def rss(request: HttpRequest) -> HttpResponse:
    _installed()
    feed, posts = _feed(request, "blog:rss")
    return _cached(
        request,
        _etag("rss", *(post.pk for post in posts)),
        lambda: HttpResponse(feed.rss_str(pretty=True), content_type="application/rss+xml; charset=utf-8"),
    )


@require_GET
def atom(request: HttpRequest) -> HttpResponse:
    _installed()
    feed, posts = _feed(request, "blog:atom")
    return _cached(
        request,
        _etag("atom", *(post.pk for post in posts)),
        lambda: HttpResponse(feed.atom_str(pretty=True), content_type="application/atom+xml; charset=utf-8"),
    )


@require_GET
def sitemap(request: HttpRequest) -> HttpResponse:
    _installed()
    posts = list(selectors.public_posts())
    groups: dict[int, list[Post]] = {}
    for post in posts:
        groups.setdefault(post.translation_of_id or post.pk, []).append(post)

    def make() -> HttpResponse:
        lines = [
            '<?xml version="1.0" encoding="UTF-8"?>',
            '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">',
            f"<url><loc>{escape(_absolute(request, reverse('blog:index')))}</loc></url>",
        ]
        for post in posts:
            lines.append(f"<url><loc>{escape(_absolute(request, _path(post)))}</loc>")
            lines.append(f"<lastmod>{post.updated_at.date().isoformat()}</lastmod>")
            group = groups[post.translation_of_id or post.pk]
            if len(group) > 1:
                for other in group:
                    lines.append(
                        f'<xhtml:link rel="alternate" hreflang={quoteattr(other.language)} '
                        f"href={quoteattr(_absolute(request, _path(other)))}/>"
                    )
            lines.append("</url>")
        lines.append("</urlset>")
        return HttpResponse("\n".join(lines), content_type="application/xml; charset=utf-8")

    return _cached(request, _etag("sitemap", *(post.pk for post in posts)), make)


def _client(request: HttpRequest) -> str:
    return request.META.get("REMOTE_ADDR", "") or "unknown"


def comments_key(schema: str, address: str) -> str:
    """The cache key counting the public's comments from one address in one workspace."""
    return f"blog-comments:{schema}:{address}"


@csrf_exempt  # the public's comment, no session to protect; a honeypot and a rate limit instead
@require_POST
def comment(request: HttpRequest, post_id: int) -> HttpResponse:
    _installed()
    post = selectors.public_posts().filter(pk=post_id).first()
    if post is None:
        raise Http404
    back = _path(post)
    if request.POST.get("website"):  # the honeypot: people leave it empty, robots fill it
        return HttpResponseRedirect(back + "?comment=pending#comments")
    key = comments_key(getattr(connection, "schema_name", ""), _client(request))
    cache.add(key, 0, timeout=3600)
    if cache.incr(key) > settings.ATRIUM_BLOG_COMMENTS_PER_HOUR:
        return HttpResponse(
            "Too many comments from this address; try again in an hour.",
            status=429,
            content_type="text/plain",
        )
    try:
        services.comment_public(
            post=post,
            name=request.POST.get("name", ""),
            email=request.POST.get("email", ""),
            body=request.POST.get("body", ""),
        )
    except AppError as error:
        return HttpResponse(str(error.message), status=400, content_type="text/plain; charset=utf-8")
    return HttpResponseRedirect(back + "?comment=pending#comments")

"""The public blog on the workspace's host, for people not signed in: the scenario of a post written,
translated, scheduled, published at its time by the sweeper, in the feeds and the sitemap,
unpublished and gone; cache headers; comments from the public; the settings page. Then the same
pages over real HTTP (the live server, in Globex)."""

from datetime import timedelta
from xml.etree import ElementTree  # our own sitemap, parsed in a test

import pytest
from django.core.cache import cache
from django.utils import timezone

from apps.blog import services
from apps.blog.models import Comment
from apps.blog.public import comments_key
from apps.blog.tests.blog_models import keyed_calls, model_api
from apps.blog.tests.factories import PostFactory, published
from apps.catalogue.testing import confirmed, ok

ELICIT = {"capabilities": {"elicitation": {}}, "elicit": confirmed}
SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


def _locations(body: bytes) -> list[str]:
    return [node.text or "" for node in ElementTree.fromstring(body).iter(f"{SITEMAP}loc")]  # noqa: S314


def test_written_translated_scheduled_published_on_time_in_the_feeds_then_gone(people, acme_client):
    member, admin = people["member"], people["admin"]
    written = ok(
        member,
        "createBlogPost",
        {"post": {"title": "Spring release", "body": "<p>Hello world</p>", "excerpt": "What is new"}},
    )["post"]
    with model_api(), keyed_calls():
        german = ok(member, "translateBlogPost", {"postId": written["id"], "language": "de"})["translation"]

    at = timezone.now() + timedelta(hours=3)
    for post_id in (written["id"], german["id"]):
        answer = ok(admin, "publishBlogPost", {"postId": post_id, "at": at.isoformat()}, **ELICIT)
        assert answer["scheduled"] is True

    # Before its time: nothing public, and the sweeper leaves it.
    assert services.publish_due(now=timezone.now()) == 0
    assert acme_client.get("/blog/spring-release/").status_code == 404
    assert b"Spring release" not in acme_client.get("/blog/rss.xml").content

    # Its time comes (the sweeper runs with the clock past it).
    assert services.publish_due(now=at + timedelta(seconds=30)) == 2
    page = acme_client.get("/blog/spring-release/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "<h1>Spring release</h1>" in html and "<p>Hello world</p>" in html
    assert '<link rel="alternate" hreflang="de" href="http://127.0.0.1/blog/de/spring-release/">' in html
    assert '<link rel="alternate" hreflang="en" href="http://127.0.0.1/blog/spring-release/">' in html
    assert '<meta property="og:title" content="Spring release">' in html
    assert '<link rel="canonical" href="http://127.0.0.1/blog/spring-release/">' in html
    translated = acme_client.get("/blog/de/spring-release/")
    assert translated.status_code == 200 and 'lang="de"' in translated.content.decode()
    assert "written or edited with AI" in translated.content.decode()
    assert acme_client.get("/blog/en/spring-release/").status_code == 302

    rss = acme_client.get("/blog/rss.xml")
    assert rss["Content-Type"].startswith("application/rss+xml")
    assert (
        b"<title>Spring release</title>" in rss.content
        and b"http://127.0.0.1/blog/spring-release/" in rss.content
    )
    atom = acme_client.get("/blog/atom.xml")
    assert atom["Content-Type"].startswith("application/atom+xml") and b"Spring release" in atom.content
    sitemap = acme_client.get("/blog/sitemap.xml")
    assert "http://127.0.0.1/blog/spring-release/" in _locations(sitemap.content)
    assert b'hreflang="de"' in sitemap.content
    index = acme_client.get("/blog/")
    assert b"Spring release" in index.content

    # The cache: the same version is a 304, until unpublishing makes a new one.
    etag = page["ETag"]
    assert page["Cache-Control"].startswith("public, max-age=")
    assert acme_client.get("/blog/spring-release/", HTTP_IF_NONE_MATCH=etag).status_code == 304
    ok(admin, "unpublishBlogPost", {"postId": written["id"]})
    assert acme_client.get("/blog/spring-release/", HTTP_IF_NONE_MATCH=etag).status_code == 404
    assert b"http://127.0.0.1/blog/spring-release/" not in acme_client.get("/blog/rss.xml").content
    assert "http://127.0.0.1/blog/spring-release/" not in _locations(
        acme_client.get("/blog/sitemap.xml").content
    )
    atom = acme_client.get("/blog/atom.xml").content
    assert b"http://127.0.0.1/blog/spring-release/" not in atom and b"DE Spring release" in atom


def test_clear_cache_changes_every_etag(people, acme_client):
    admin = people["admin"]
    published(admin, title="Cached")
    first = acme_client.get("/blog/cached/")
    assert acme_client.get("/blog/cached/", HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    ok(admin, "clearBlogCache")
    again = acme_client.get("/blog/cached/", HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 200 and again["ETag"] != first["ETag"]


def test_private_drafts_deleted_and_unknown_posts_are_404(people, acme_client):
    member, admin = people["member"], people["admin"]
    PostFactory(actor=member, title="Draft only")
    PostFactory(actor=member, title="Private one", visibility="private")
    gone = published(admin, title="Deleted soon")
    services.post_delete(actor=admin, post=gone)
    for path in (
        "/blog/draft-only/",
        "/blog/private-one/",
        "/blog/deleted-soon/",
        "/blog/nothing/",
        "/blog/xx/nothing/",
    ):
        assert acme_client.get(path).status_code == 404, path
    assert acme_client.get("/blog/").status_code == 200


def test_the_public_comments_pending_with_a_honeypot_and_a_cap(people, acme_client, settings):
    admin = people["admin"]
    post = published(admin, title="Talk to us")
    url = f"/blog/comments/{post.pk}/"
    settings.ATRIUM_BLOG_COMMENTS_PER_HOUR = 2
    cache.delete(comments_key("acme", "127.0.0.1"))

    sent = acme_client.post(
        url, {"name": "Ann", "email": "ann@example.org", "body": "Great <script>x</script>"}
    )
    assert sent.status_code == 302 and sent["Location"].endswith("?comment=pending#comments")
    comment = Comment.objects.get(post=post)
    assert (comment.status, comment.author_email) == (
        "pending",
        "ann@example.org",
    ) and "<script" not in comment.body
    assert "Ann" not in acme_client.get("/blog/talk-to-us/").content.decode()

    acme_client.post(url, {"name": "Bot", "body": "buy now", "website": "http://spam.example"})
    assert Comment.objects.filter(post=post).count() == 1
    assert acme_client.post(url, {"name": "", "body": "x"}).status_code == 400
    assert acme_client.post(url, {"name": "Ann", "body": "again"}).status_code == 429

    services.comment_moderate(actor=admin, comment=comment, status="approved")
    page = acme_client.get("/blog/talk-to-us/").content.decode()
    assert "Ann" in page and "ann@example.org" not in page


def test_the_settings_page_lists_posts_and_moderates_comments(people, acme_client):
    admin = people["admin"]
    post = published(admin, title="Moderated")
    comment = services.comment_public(post=post, name="Reader", email="", body="Hello there")
    acme_client.force_login(admin)

    page = acme_client.get("/settings/blog/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Moderated" in html and "Hello there" in html and "Approve" in html
    answer = acme_client.post(f"/settings/blog/comments/{comment.pk}/", {"status": "spam"})
    assert answer.status_code == 302
    comment.refresh_from_db()
    assert comment.status == "spam"

    acme_client.force_login(people["member"])
    assert (
        acme_client.post(f"/settings/blog/comments/{comment.pk}/", {"status": "approved"}).status_code == 403
    )
    acme_client.force_login(people["viewer"])
    assert acme_client.get("/settings/blog/").status_code == 200


@pytest.mark.live
def test_the_public_blog_over_real_http(live_http, committed):
    from django.db import connection
    from django_tenants.utils import schema_context

    from apps.accounts.models import User

    try:
        with schema_context("globex"):
            owner = User.objects.get(email="owner@globex.example")
            post = published(
                owner, title="Live over HTTP", body="<p>Served for real</p>", slug="live-over-http"
            )
    finally:
        connection.close()
    import httpx

    base = live_http.url("127.0.0.2")
    try:
        with httpx.Client(base_url=base, timeout=30) as http:
            page = http.get("/blog/live-over-http/")
            assert page.status_code == 200 and "Served for real" in page.text
            assert page.headers["cache-control"].startswith("public") and page.headers["etag"]
            assert (
                http.get("/blog/live-over-http/", headers={"If-None-Match": page.headers["etag"]}).status_code
                == 304
            )
            assert "live-over-http" in http.get("/blog/sitemap.xml").text
            assert "Live over HTTP" in http.get("/blog/atom.xml").text
            assert http.get("/blog/not-there/").status_code == 404
    finally:
        with schema_context("globex"):
            services.post_delete(actor=owner, post=post)
        connection.close()

"""A month of a company blog, as its people live it: an author drafts a post and has it polished
(the scripted model server on loopback), an editor schedules it and it goes out at its time, on
/blog/, in the feeds and the sitemap; a German translation with its hreflang alternates; the
public's comments moderated, one deleted; a change to the published post confirmed first; the cache
cleared; the post unpublished and gone. An author cannot publish, and a colleague's private draft
is never listed, found nor quoted."""

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from apps.accounts.models import Role, User
from apps.blog import services
from apps.blog.models import Comment
from apps.blog.public import comments_key
from apps.blog.tests.blog_models import POLISHED, keyed_calls, model_api
from apps.blog.tests.factories import PostFactory
from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import call, confirmed, ok, refused

ELICIT = {"capabilities": {"elicitation": {}}, "elicit": confirmed}
HOST = "http://127.0.0.1"


def test_a_month_of_a_company_blog(people, acme_client):
    author, editor = people["member"], people["admin"]
    colleague = User.objects.create_user(
        email="colleague@acme.example", password=None, role=Role.objects.get(key="member")
    )
    secret = PostFactory(actor=colleague, title="Secret merger notes", slug="merger", visibility="private")

    # Week 1: the author drafts and has it polished.
    draft = ok(
        author,
        "createBlogPost",
        {
            "post": {
                "title": "Our new office",
                "body": "We *moved* to the harbour.",
                "bodyFormat": "markdown",
                "excerpt": "We moved",
                "categories": ["News"],
                "tags": ["office"],
            }
        },
    )["post"]
    post_id = draft["id"]
    assert (draft["status"], draft["slug"], draft["publicUrl"]) == ("draft", "our-new-office", None)
    with model_api(), keyed_calls():
        polished = ok(author, "polishBlogPost", {"postId": post_id, "keepTitle": True})
    assert polished["changed"] == ["body"] and POLISHED in polished["post"]["body"]
    assert polished["post"]["title"] == "Our new office" and polished["post"]["aiGenerated"] is True

    # The author may not publish: the tool is not theirs.
    with pytest.raises(ToolNotFound):
        call(author, "publishBlogPost", {"postId": post_id}, **ELICIT)

    # Week 2: the editor schedules it; nothing is public before its time.
    at = (timezone.now() + timedelta(days=2)).replace(microsecond=0)
    scheduled = ok(editor, "publishBlogPost", {"postId": post_id, "at": at.isoformat()}, **ELICIT)
    assert scheduled["scheduled"] is True and scheduled["post"]["status"] == "scheduled"
    assert services.publish_due(now=timezone.now()) == 0
    assert acme_client.get("/blog/our-new-office/").status_code == 404
    assert b"Our new office" not in acme_client.get("/blog/").content

    # Its time comes: the sweeper publishes it, and it is everywhere a reader looks.
    assert services.publish_due(now=at + timedelta(seconds=30)) == 1
    url = f"{HOST}/blog/our-new-office/"
    page = acme_client.get("/blog/our-new-office/")
    html = page.content.decode()
    assert page.status_code == 200 and "<h1>Our new office</h1>" in html and POLISHED in html
    assert "written or edited with AI" in html
    assert "Our new office" in acme_client.get("/blog/").content.decode()
    assert url.encode() in acme_client.get("/blog/rss.xml").content
    assert url.encode() in acme_client.get("/blog/atom.xml").content
    assert url.encode() in acme_client.get("/blog/sitemap.xml").content
    found = ok(author, "searchBlogPosts", {"status": "published"})["items"]
    assert [item["id"] for item in found] == [post_id] and found[0]["publishedAt"].startswith(
        at.date().isoformat()
    )

    # Week 3: a German translation, published; both pages name each other.
    with model_api(), keyed_calls():
        german = ok(author, "translateBlogPost", {"postId": post_id, "language": "de"})["translation"]
    assert (german["language"], german["slug"], german["status"]) == ("de", "our-new-office", "draft")
    ok(editor, "publishBlogPost", {"postId": german["id"]}, **ELICIT)
    alternates = (
        f'<link rel="alternate" hreflang="de" href="{HOST}/blog/de/our-new-office/">',
        f'<link rel="alternate" hreflang="en" href="{url}">',
    )
    for path in ("/blog/our-new-office/", "/blog/de/our-new-office/"):
        html = acme_client.get(path).content.decode()
        assert all(link in html for link in alternates), (path, html)
    assert 'lang="de"' in acme_client.get("/blog/de/our-new-office/").content.decode()
    assert b'hreflang="de"' in acme_client.get("/blog/sitemap.xml").content
    group = ok(author, "getPostTranslations", {"postId": post_id})
    assert {item["language"] for item in group["translations"]} == {"en", "de"}

    # The public comments: pending until moderated; a spammer's is deleted.
    cache.delete(comments_key("acme", "127.0.0.1"))
    for name, body in (("Ann", "Lovely view!"), ("Spammer", "Cheap watches here")):
        sent = acme_client.post(f"/blog/comments/{post_id}/", {"name": name, "email": "", "body": body})
        assert sent.status_code == 302 and sent["Location"].endswith("?comment=pending#comments")
    assert "Lovely view!" not in acme_client.get("/blog/our-new-office/").content.decode()
    pending = {
        item["authorName"]: item["id"]
        for item in ok(author, "listBlogComments", {"status": "pending"})["items"]
    }
    assert set(pending) == {"Ann", "Spammer"}

    acme_client.force_login(author)
    assert (
        acme_client.post(f"/settings/blog/comments/{pending['Ann']}/", {"status": "approved"}).status_code
        == 403
    )
    acme_client.force_login(editor)
    assert (
        acme_client.post(f"/settings/blog/comments/{pending['Ann']}/", {"status": "approved"}).status_code
        == 302
    )
    acme_client.logout()
    with pytest.raises(ToolNotFound):
        call(author, "deleteBlogComment", {"commentId": pending["Spammer"]}, **ELICIT)
    assert ok(editor, "deleteBlogComment", {"commentId": pending["Spammer"]}, **ELICIT)["deleted"] is True
    html = acme_client.get("/blog/our-new-office/").content.decode()
    assert "Lovely view!" in html and "Cheap watches" not in html
    assert [item["authorName"] for item in ok(author, "listBlogComments", {"postId": post_id})["items"]] == [
        "Ann"
    ]
    assert not Comment.objects.live().filter(pk=pending["Spammer"]).exists()

    # A change to the published post: checked, then confirmed before the public sees it.
    etag = acme_client.get("/blog/our-new-office/")["ETag"]
    change = {"postId": post_id, "changes": {"title": "Our new harbour office"}}
    asked = call(editor, "updateBlogPost", change)
    assert "confirmationToken" in str(asked)
    assert "<h1>Our new office</h1>" in acme_client.get("/blog/our-new-office/").content.decode()
    assert "title" in refused(
        editor, "updateBlogPost", {"postId": post_id, "changes": {"title": "x" * 201}}, **ELICIT
    )
    assert ok(editor, "updateBlogPost", change, **ELICIT)["changed"] == ["title"]
    again = acme_client.get("/blog/our-new-office/", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 200 and "<h1>Our new harbour office</h1>" in again.content.decode()
    stale = ok(author, "getPostTranslations", {"postId": german["id"]})["translations"]
    assert {item["language"]: item["stale"] for item in stale} == {"en": False, "de": True}

    # The cache cleared: every page a new version.
    etag = again["ETag"]
    assert acme_client.get("/blog/our-new-office/", HTTP_IF_NONE_MATCH=etag).status_code == 304
    cleared = ok(editor, "clearBlogCache")
    assert cleared["cdnPurged"] is False
    assert acme_client.get("/blog/our-new-office/", HTTP_IF_NONE_MATCH=etag).status_code == 200

    # Week 4: unpublished, it is gone from every page; the translation stays.
    gone = ok(editor, "unpublishBlogPost", {"postId": post_id})
    assert gone["post"]["status"] == "unpublished" and gone["post"]["publicUrl"] is None
    assert acme_client.get("/blog/our-new-office/").status_code == 404
    for feed in ("/blog/rss.xml", "/blog/atom.xml", "/blog/sitemap.xml", "/blog/"):
        assert url.encode() not in acme_client.get(feed).content, feed
    assert acme_client.get("/blog/de/our-new-office/").status_code == 200
    assert f'href="{url}"' not in acme_client.get("/blog/de/our-new-office/").content.decode()

    # A colleague's private draft: never listed, found, nor quoted; not on the blog.
    assert ok(author, "searchBlogPosts", {"query": "merger"})["total"] == 0
    assert secret.pk not in [item["id"] for item in ok(author, "searchBlogPosts", {"limit": 100})["items"]]
    for name, arguments in (
        ("updateBlogPost", {"postId": secret.pk, "changes": {"title": "Mine now"}}),
        ("getPostTranslations", {"postId": secret.pk}),
        ("listBlogComments", {"postId": secret.pk}),
        ("shareBlogPost", {"postId": secret.pk}),
    ):
        said = refused(author, name, arguments)
        assert "was not found" in said and "merger" not in said.lower(), (name, said)
    assert acme_client.get("/blog/merger/").status_code == 404

"""What a week of a company blog found: a private draft's translation kept private, a translation
never a way to a private original, far or zone-less schedules, hostile comments and titles on the
public pages, and a private draft's categories kept to who sees it."""

import pytest
from django.core.cache import cache

from apps.blog import services
from apps.blog.models import Comment, Post
from apps.blog.public import comments_key
from apps.blog.tests.blog_models import model_api
from apps.blog.tests.factories import PostFactory, published
from apps.catalogue.testing import call, confirmed, ok, refused

ELICIT = {"capabilities": {"elicitation": {}}, "elicit": confirmed}


def test_a_private_drafts_translation_stays_private(people):
    admin, member, viewer = people["admin"], people["member"], people["viewer"]
    secret = PostFactory(actor=member, title="Layoffs plan", body="<p>Who goes</p>", visibility="private")
    translation, _sanitised = services.translation_create(
        actor=member, original=secret, language="de", title="Entlassungsplan", body="<p>Wer</p>", excerpt=""
    )
    assert translation.visibility == "private" and translation.owner_id == member.pk
    assert ok(viewer, "searchBlogPosts", {"query": "Entlassungsplan"})["total"] == 0
    assert "was not found" in refused(viewer, "getPostTranslations", {"postId": translation.pk})
    assert ok(member, "searchBlogPosts", {"query": "Entlassungsplan"})["total"] == 1
    # An editor who sees every post translates it for its author: the translation stays the author's.
    other, _sanitised = services.translation_create(
        actor=admin, original=secret, language="fr", title="Plan", body="<p>Qui</p>", excerpt=""
    )
    assert (other.visibility, other.owner_id) == ("private", member.pk)
    assert ok(viewer, "searchBlogPosts", {"query": "Plan"})["total"] == 0


def test_a_translation_is_no_way_to_its_private_original(people):
    from apps.apikeys.services import api_key_create
    from apps.blog.tests.test_blog_models import _call

    member, admin = people["member"], people["admin"]
    original = PostFactory(actor=admin, title="Board notes", body="<p>Secret numbers</p>", slug="board")
    services.translation_create(
        actor=admin, original=original, language="de", title="Notizen", body="<p>Zahlen</p>", excerpt=""
    )
    # The author takes the original back to themselves; its German translation stays the workspace's.
    services.post_update(actor=admin, post=original, fields={"visibility": "private"})
    german = Post.objects.get(translation_of=original, language="de")
    key = api_key_create(user=member, label="week").key
    with model_api() as server:
        result = _call(member, "translateBlogPost", {"postId": german.pk, "language": "fr"}, key)
    assert result["isError"] is True
    assert server.requests == [] and not Post.objects.filter(language="fr").exists()


@pytest.mark.parametrize("at", ["9999-12-31T10:00:00Z", "3000-01-01T10:00:00Z", "2027-03-01T09:00:00"])
def test_a_schedule_far_out_or_without_a_zone_is_refused_or_read(people, at):
    admin = people["admin"]
    post = PostFactory(actor=admin, title="Spring launch")
    result = (
        ok(admin, "publishBlogPost", {"postId": post.pk, "at": at}, **ELICIT)
        if at.startswith("2027")
        else None
    )
    if result is None:
        said = refused(admin, "publishBlogPost", {"postId": post.pk, "at": at}, **ELICIT)
        assert "at" in said
        post.refresh_from_db()
        assert post.status == "draft" and post.publish_at is None
    else:
        # Without an offset: the workspace's local time.
        assert result["scheduled"] is True and result["post"]["publishAt"].startswith("2027-03-01")


def test_hostile_comments_and_titles_on_the_public_pages(people, acme_client):
    admin = people["admin"]
    post = published(admin, title='<script>alert("t")</script> Launch', seo_description='" onload="x')
    cache.delete(comments_key("acme", "127.0.0.1"))
    url = f"/blog/comments/{post.pk}/"
    for bad in (
        {"name": "Ann\x00", "body": "Hi"},
        {"name": "Ann", "email": "a\x00@example.org", "body": "Hi"},
        {"name": "Ann", "body": "x" * 100_000},
    ):
        assert acme_client.post(url, bad).status_code == 400
    assert not Comment.objects.filter(post=post).exists()
    # A NUL in a comment's text is dropped, as the kit's long text drops it.
    assert acme_client.post(url, {"name": "Ann", "body": "Hi\x00there"}).status_code == 302
    assert Comment.objects.get(post=post).body == "Hithere"
    page = acme_client.get(f"/blog/{post.slug}/").content.decode()
    assert '<script>alert("t")' not in page and '" onload="x' not in page
    for feed in ("/blog/rss.xml", "/blog/atom.xml", "/blog/sitemap.xml"):
        assert acme_client.get(feed).status_code == 200


def test_a_private_drafts_categories_are_not_listed_to_others(people):
    member, viewer = people["member"], people["viewer"]
    PostFactory(actor=member, title="Plans", visibility="private", categories=["Acquisition of Beta Corp"])
    names = [row["name"] for row in ok(viewer, "listBlogCategories", {})["items"]]
    assert "Acquisition of Beta Corp" not in names
    mine = [row["name"] for row in ok(member, "listBlogCategories", {})["items"]]
    assert "Acquisition of Beta Corp" in mine


@pytest.mark.parametrize("at", ["0001-01-01T00:00:00+05:00", "2027-01-01T00:00:00"])
def test_searching_and_sharing_at_odd_times_is_an_answer(people, at):
    post = published(people["admin"], title="Odd times")
    result = call(people["admin"], "shareBlogPost", {"postId": post.pk, "at": at}, **ELICIT)
    assert "error on the server" not in str(result)


def test_a_translation_moved_into_another_translations_language_is_refused(people):
    admin = people["admin"]
    original = PostFactory(actor=admin, title="Hello", slug="hello-week")
    german, _s = services.translation_create(
        actor=admin, original=original, language="de", title="Hallo", body="<p>Hallo</p>", excerpt=""
    )
    french, _s = services.translation_create(
        actor=admin, original=original, language="fr", title="Salut", body="<p>Salut</p>", excerpt=""
    )
    ok(admin, "updateBlogPost", {"postId": french.pk, "changes": {"slug": "salut"}})
    for post, language in ((french, "de"), (french, "en"), (original, "de")):
        said = refused(admin, "updateBlogPost", {"postId": post.pk, "changes": {"language": language}})
        assert "language" in said or "slug" in said
    # Another language the group lacks is fine.
    assert ok(admin, "updateBlogPost", {"postId": french.pk, "changes": {"language": "it"}})["changed"]
    group = ok(admin, "getPostTranslations", {"postId": original.pk})["translations"]
    assert sorted(row["language"] for row in group) == ["de", "en", "it"]
    assert german.pk in [row["id"] for row in group]


def test_a_colleagues_address_is_not_published_with_their_comment_or_post(people, acme_client):
    admin, member = people["admin"], people["member"]
    assert not member.full_name and not admin.full_name  # known by their address only
    post = published(admin, title="Address check")
    ok(member, "createBlogComment", {"postId": post.pk, "body": "Well said"})
    page = acme_client.get(f"/blog/{post.slug}/").content.decode()
    assert "Well said" in page and member.email not in page and admin.email not in page
    for feed in ("/blog/rss.xml", "/blog/atom.xml"):
        text = acme_client.get(feed).content.decode()
        assert "Address check" in text and admin.email.split("@")[0] not in text, feed


def test_a_comment_that_stored_an_address_for_a_name_shows_a_name_after_the_migration(people):
    import importlib

    from django.apps import apps

    admin, member = people["admin"], people["member"]
    post = published(admin, title="Older comments")
    old = ok(member, "createBlogComment", {"postId": post.pk, "body": "From before"})
    Comment.objects.filter(pk=old["id"]).update(author_name=member.email.upper())
    member.full_name = "Mo Member"
    member.save(update_fields=["full_name"])

    importlib.import_module("apps.blog.migrations.0002_comments_name_no_address").names_not_addresses(
        apps, None
    )

    assert Comment.objects.get(pk=old["id"]).author_name == "Mo Member"

"""The Blog tools through call_tool: per tool a normal call, bad input and a refusal, and what an
author and an editor do with them."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.blog import services
from apps.blog.models import Cache, Comment, Post
from apps.blog.tests.factories import PostFactory, comment, published
from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import call, confirmed, ok, person_without, refused

ELICIT = {"capabilities": {"elicitation": {}}, "elicit": confirmed}

TOOLS = {
    "createBlogPost": ("blog.edit", {"post": {"title": "X"}}),
    "updateBlogPost": ("blog.edit", {"postId": 1, "changes": {"title": "Y"}}),
    "deleteBlogPost": ("blog.delete", {"postId": 1}),
    "publishBlogPost": ("blog.publish", {"postId": 1}),
    "unpublishBlogPost": ("blog.publish", {"postId": 1}),
    "searchBlogPosts": ("blog.view", {}),
    "getBlogSummary": ("blog.view", {}),
    "listBlogCategories": ("blog.view", {}),
    "createBlogComment": ("blog.edit", {"postId": 1, "body": "Hi"}),
    "listBlogComments": ("blog.view", {}),
    "deleteBlogComment": ("blog.publish", {"commentId": 1}),
    "getPostTranslations": ("blog.view", {"postId": 1}),
    "clearBlogCache": ("blog.publish", {}),
    "shareBlogPost": ("blog.view", {"postId": 1}),
    "translateBlogPost": ("blog.edit", {"postId": 1, "language": "de"}),
    "polishBlogPost": ("blog.edit", {"postId": 1}),
    "generateBlogImage": ("blog.edit", {"postId": 1, "prompt": "a cat", "alt": "A cat"}),
    "generateBlogContentImage": ("blog.edit", {"postId": 1, "prompt": "a cat", "alt": "A cat"}),
}


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_a_role_without_the_permission_cannot_call_it(acme, name):
    permission, arguments = TOOLS[name]
    person = person_without(permission, email=f"no-{name.lower()}@acme.example")

    with pytest.raises(ToolNotFound):
        call(person, name, arguments)


@pytest.mark.parametrize("name", [name for name, (perm, _a) in TOOLS.items() if perm != "blog.view"])
def test_viewers_only_read_the_blog(people, name):
    with pytest.raises(ToolNotFound):
        call(people["viewer"], name, TOOLS[name][1])


@pytest.mark.parametrize(
    "name", [name for name, (perm, _a) in TOOLS.items() if perm in ("blog.publish", "blog.delete")]
)
def test_members_write_but_do_not_publish_delete_or_moderate(people, name):
    with pytest.raises(ToolNotFound):
        call(people["member"], name, TOOLS[name][1])


def test_a_post_with_a_script_is_sanitised_and_said_so(people):
    member = people["member"]
    answer = ok(
        member,
        "createBlogPost",
        {
            "post": {
                "title": "Launch notes",
                "body": '<p onclick="steal()">Hello <b>world</b></p><script>alert(1)</script>'
                '<a href="javascript:alert(2)">x</a>',
                "categories": ["News", "Product"],
                "tags": ["Launch"],
            }
        },
    )
    post = answer["post"]
    assert answer["sanitised"] is True and "sanitised" in answer["warnings"][0]
    assert (
        "<script" not in post["body"] and "onclick" not in post["body"] and "javascript" not in post["body"]
    )
    assert "<b>world</b>" in post["body"]
    assert (post["slug"], post["language"], post["status"], post["visibility"]) == (
        "launch-notes",
        "en",
        "draft",
        "workspace",
    )
    assert post["categories"] == ["News", "Product"] and post["tags"] == ["launch"]
    assert post["owner"]["email"] == member.email and post["publicUrl"] is None

    clean = ok(
        member,
        "createBlogPost",
        {"post": {"title": "Plain", "body": "# Head\n\nSome *text*", "bodyFormat": "markdown"}},
    )
    assert clean["sanitised"] is False and "<em>text</em>" in clean["post"]["body"]


def test_slugs_are_unique_per_language(people):
    member = people["member"]
    first = ok(member, "createBlogPost", {"post": {"title": "Hello", "slug": "hello"}})["post"]
    said = refused(member, "createBlogPost", {"post": {"title": "Other", "slug": "hello"}})
    assert "'hello' is taken in en by post" in said and "slug" in said
    german = ok(member, "createBlogPost", {"post": {"title": "Hallo", "slug": "hello", "language": "de"}})[
        "post"
    ]
    assert german["slug"] == "hello" and german["language"] == "de"
    numbered = ok(member, "createBlogPost", {"post": {"title": "Hello"}})["post"]
    assert numbered["slug"] == "hello-2"
    assert "'hello' is taken" in refused(
        member, "updateBlogPost", {"postId": numbered["id"], "changes": {"slug": "Hello"}}
    )
    assert "language tag" in refused(
        member, "createBlogPost", {"post": {"title": "X", "language": "english!"}}
    )
    assert first["id"] != german["id"]
    assert Post.objects.count() == 3


def test_bad_values_and_unknown_ids_are_clear_errors_that_write_nothing(people):
    admin = people["admin"]
    before = Post.objects.count()
    assert "`post.title`" in refused(admin, "createBlogPost", {"post": {"body": "x"}}) or "title" in refused(
        admin, "createBlogPost", {"post": {"body": "x"}}
    )
    assert "Blog post 999999 was not found" in refused(
        admin, "updateBlogPost", {"postId": 999999, "changes": {"title": "x"}}
    )
    assert "Say what to change" in refused(
        admin, "updateBlogPost", {"postId": PostFactory(actor=admin).pk, "changes": {}}
    )
    assert "was not found" in refused(admin, "deleteBlogPost", {"postId": 999999}, **ELICIT)
    assert "was not found" in refused(admin, "publishBlogPost", {"postId": 999999}, **ELICIT)
    assert "was not found" in refused(admin, "deleteBlogComment", {"commentId": 999999}, **ELICIT)
    assert "`limit`" in refused(admin, "searchBlogPosts", {"limit": 500})
    assert Post.objects.count() == before + 1


def test_private_drafts_stay_their_authors(people):
    member, admin = people["member"], people["admin"]
    other = _colleague("writer@acme.example")
    secret = PostFactory(actor=member, title="Secret plans", visibility="private")

    assert "was not found" in refused(
        other, "updateBlogPost", {"postId": secret.pk, "changes": {"title": "x"}}
    )
    assert ok(other, "searchBlogPosts", {"query": "Secret"})["total"] == 0
    assert ok(admin, "searchBlogPosts", {"query": "Secret"})["total"] == 1
    assert "private to its owner" in refused(admin, "publishBlogPost", {"postId": secret.pk}, **ELICIT)


def _colleague(email):
    from apps.accounts.models import Role, User

    return User.objects.create_user(email=email, password=None, role=Role.objects.get(key="member"))


def test_publish_now_or_later_and_unpublish(people):
    admin = people["admin"]
    post = PostFactory(actor=people["member"], title="Roadmap")
    generation = services.generation()

    now = ok(admin, "publishBlogPost", {"postId": post.pk}, **ELICIT)
    assert now["scheduled"] is False and now["post"]["status"] == "published"
    assert now["post"]["publicUrl"].endswith("/blog/roadmap/") and "Published at" in now["message"]
    assert services.generation() == generation + 1

    gone = ok(admin, "unpublishBlogPost", {"postId": post.pk})
    assert (
        gone["was"] == "published"
        and gone["post"]["status"] == "unpublished"
        and gone["post"]["publicUrl"] is None
    )
    assert "is unpublished, not published" in refused(admin, "unpublishBlogPost", {"postId": post.pk})

    at = (timezone.now() + timedelta(days=2)).replace(microsecond=0)
    later = ok(admin, "publishBlogPost", {"postId": post.pk, "at": at.isoformat()}, **ELICIT)
    assert (
        later["scheduled"] is True
        and later["post"]["status"] == "scheduled"
        and "on its own" in later["message"]
    )
    assert "must be in the future" in refused(
        admin,
        "publishBlogPost",
        {"postId": post.pk, "at": (timezone.now() - timedelta(hours=1)).isoformat()},
        **ELICIT,
    )
    cancelled = ok(admin, "unpublishBlogPost", {"postId": post.pk})
    assert cancelled["was"] == "scheduled" and cancelled["post"]["status"] == "draft"


def test_delete_asks_first_and_takes_the_post_off_the_blog(people):
    admin = people["admin"]
    post = published(admin, title="Old news")

    asked = call(admin, "deleteBlogPost", {"postId": post.pk})
    assert Post.objects.live().filter(pk=post.pk).exists(), asked
    answer = ok(admin, "deleteBlogPost", {"postId": post.pk}, **ELICIT)
    assert answer == {"id": post.pk, "title": "Old news", "wasPublic": True}
    assert not Post.objects.live().filter(pk=post.pk).exists()


def test_search_summary_and_categories(people):
    member, admin = people["member"], people["admin"]
    PostFactory(actor=member, title="Onboarding guide", categories=["Guides"], tags=["howto"])
    published(admin, title="Hiring news", categories=["News", "Guides"], language="de")

    found = ok(member, "searchBlogPosts", {"query": "onboarding"})
    assert [item["title"] for item in found["items"]] == ["Onboarding guide"]
    assert ok(member, "searchBlogPosts", {"status": "published"})["items"][0]["title"] == "Hiring news"
    assert ok(member, "searchBlogPosts", {"tag": "howto"})["total"] == 1
    assert ok(member, "searchBlogPosts", {"category": "guides"})["total"] == 2
    assert ok(member, "searchBlogPosts", {"language": "de"})["total"] == 1

    summary = ok(member, "getBlogSummary")
    counts = {row["status"]: row["posts"] for row in summary["posts"]}
    assert counts["draft"] == 1 and counts["published"] == 1 and summary["commentsPending"] == 0
    assert summary["blogUrl"].endswith("/blog/") and summary["feeds"][0].endswith("/blog/rss.xml")
    assert summary["languages"] == ["de", "en"]

    categories = {
        row["name"]: (row["posts"], row["published"]) for row in ok(member, "listBlogCategories")["items"]
    }
    assert categories == {"Guides": (2, 1), "News": (1, 1)}


def test_comments_are_written_listed_and_deleted(people):
    member, admin = people["member"], people["admin"]
    post = published(admin, title="Comments welcome")

    made = ok(
        member,
        "createBlogComment",
        {"postId": post.pk, "body": 'See <a href="https://x.example">this</a><script>x()</script>'},
    )
    assert made["status"] == "approved" and "<script" not in made["body"]
    assert 'rel="ugc nofollow noopener"' in made["body"]
    reply = ok(admin, "createBlogComment", {"postId": post.pk, "body": "Thanks!", "parentId": made["id"]})
    assert reply["parentId"] == made["id"]
    assert "is not a comment on this post" in refused(
        admin,
        "createBlogComment",
        {"postId": PostFactory(actor=admin).pk, "body": "x", "parentId": made["id"]},
    )
    assert "has no text" in refused(
        member, "createBlogComment", {"postId": post.pk, "body": "<script>x</script>"}
    )

    services.comment_public(post=post, name="Reader", email="reader@example.org", body="First!")
    pending = ok(member, "listBlogComments", {"status": "pending"})
    assert [item["authorName"] for item in pending["items"]] == ["Reader"]
    assert ok(member, "listBlogComments", {"postId": post.pk})["total"] == 3

    deleted = ok(admin, "deleteBlogComment", {"commentId": pending["items"][0]["id"]}, **ELICIT)
    assert deleted["deleted"] is True
    assert Comment.objects.live().filter(post=post).count() == 2


def test_share_gives_links_for_a_published_post_only(people):
    admin = people["admin"]
    draft = PostFactory(actor=admin, title="Not yet")
    assert "is draft, not published" in refused(admin, "shareBlogPost", {"postId": draft.pk})
    post = published(admin, title="Share me")
    shared = ok(people["viewer"], "shareBlogPost", {"postId": post.pk, "message": "New on our blog:"})
    assert shared["posted"] is False and "No social account" in shared["message"]
    assert shared["url"].endswith("/blog/share-me/") and shared["snippet"].startswith("New on our blog:")
    assert set(shared["links"]) == {"mastodon", "bluesky", "linkedin", "x", "email"}


def test_clear_cache_counts_the_generation_up(people):
    before = services.generation()
    answer = ok(people["admin"], "clearBlogCache")
    assert (
        answer["generation"] == before + 1 == Cache.objects.get().generation and answer["cdnPurged"] is False
    )


def test_translations_are_linked_and_marked_stale(people):
    member = people["member"]
    original = PostFactory(actor=member, title="Hello", body="<p>Hello world</p>")
    german = PostFactory(actor=member, title="Hallo", slug="hello", language="de")
    german.translation_of, german.source_version = original, original.version
    german.save()

    group = ok(member, "getPostTranslations", {"postId": german.pk})
    assert group["originalId"] == original.pk
    assert {(item["language"], item["original"], item["stale"]) for item in group["translations"]} == {
        ("en", True, False),
        ("de", False, False),
    }
    ok(member, "updateBlogPost", {"postId": original.pk, "changes": {"body": "<p>Hello again</p>"}})
    stale = {
        item["language"]: item["stale"]
        for item in ok(member, "getPostTranslations", {"postId": original.pk})["translations"]
    }
    assert stale == {"en": False, "de": True}


def test_comment_counts_and_featured_fields_in_a_post(people):
    admin = people["admin"]
    post = published(admin, title="Counted")
    comment(admin, post)
    # The public sees a published post's change at once: checked first, then a person confirms it.
    changes = {"postId": post.pk, "changes": {"seoTitle": "Counted: SEO"}}
    assert "confirmationToken" in str(call(admin, "updateBlogPost", changes))
    assert "seoTitle" in refused(
        admin, "updateBlogPost", {"postId": post.pk, "changes": {"seoTitle": "x" * 201}}
    )
    post.refresh_from_db()
    assert post.seo_title != "Counted: SEO"
    answer = ok(admin, "updateBlogPost", changes, **ELICIT)
    assert answer["changed"] == ["seo_title"] and answer["post"]["commentsApproved"] == 1

"""Blog posts and comments for tests, made through the services as a person makes them:
`PostFactory(actor=people["member"], title="Launch notes", language="de", visibility="private")`,
`CommentFactory(actor=people["member"], post=post)`."""

from typing import Any

from apps.blog import services
from apps.blog.models import Category, Comment, Post
from apps.catalogue.testing import listed
from apps.core import factories
from apps.core.factories import AccessRows, ServiceFactory, access_rows, fake, numbered, private_rows


def _post(*, actor: Any, fields: dict[str, Any]) -> Post:
    post, _sanitised = services.post_create(actor=actor, fields=fields)
    return post


class PostFactory(ServiceFactory):
    class Meta:
        model = Post

    title = numbered(fake.catch_phrase, " ")
    body = numbered(fake.sentence, " ")
    _service = staticmethod(_post)


def comment(actor: Any, post: Post, body: str = "Nice post") -> Comment:
    return services.comment_create(actor=actor, post=post, body=body)


def published(actor: Any, **fields: Any) -> Post:
    """A post published now, by an editor (`actor` must hold blog.publish)."""
    post = PostFactory(actor=actor, **fields)
    return services.post_publish(actor=actor, post=post)


@access_rows("blog.Post")
def _posts(people: dict[str, Any]) -> AccessRows:
    rows = private_rows(people, lambda actor, visibility: PostFactory(actor=actor, visibility=visibility))
    rows.listed = lambda person: listed(person, "searchBlogPosts", {"limit": 100})
    return rows


@access_rows("blog.Category")
def _categories(people: dict[str, Any]) -> AccessRows:
    post = PostFactory(actor=people["member"], categories=[f"Topic {fake.unique.word()}"])
    return AccessRows(everyone=list(Category.objects.filter(posts=post)))


@access_rows("blog.Comment")
def _comments(people: dict[str, Any]) -> AccessRows:
    member, owner = people["member"], people["owner"]
    return AccessRows(
        own={
            "member": [comment(member, PostFactory(actor=member, visibility="private"))],
            "owner": [comment(owner, PostFactory(actor=owner, visibility="private"))],
        },
        everyone=[comment(member, PostFactory(actor=member))],
        listed=lambda person: listed(person, "listBlogComments", {"limit": 100}),
    )


@factories.privacy_rows("blog")
def _private(people: dict[str, Any], marker: str, rows: factories.PrivateRows) -> None:
    """The owner's private draft, and a comment on it."""
    owner = people["owner"]
    post = PostFactory(
        actor=owner,
        title=f"{marker} plans",
        body=f"<p>{marker} body</p>",
        excerpt=f"{marker} excerpt",
        slug=f"private-{marker}".lower(),
        visibility="private",
    )
    rows.add("postId", "entityId", record=post)
    rows.add("commentId", record=comment(owner, post, f"{marker} comment"))

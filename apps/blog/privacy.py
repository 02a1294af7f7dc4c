"""Personal data in the blog (docs/privacy.md): a commenter's name and e-mail go with them (their
comments by address or as the person of the workspace who wrote them); posts are the workspace's
publications, kept with their author's link cleared."""

from apps.blog.models import Cache, Category, Comment, Image, Post
from apps.core import privacy

privacy.register(Comment, user="author", email="author_email")
privacy.not_personal(
    Post, reason="the workspace's publications: their author is a link to a person, cleared on erasure"
)
privacy.not_personal(Category, reason="labels of posts")
privacy.not_personal(Image, reason="images made for posts from a prompt")
privacy.not_personal(Cache, reason="the public pages' version number")

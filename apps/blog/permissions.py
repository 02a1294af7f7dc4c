from django.utils.translation import gettext_lazy as _

from apps.core.permissions import Level, PermissionEnum, register_permissions


@register_permissions
class BlogPerm(PermissionEnum):
    # The Blog area (SPEC 4.7): the workspace's posts, their translations, categories and comments.
    VIEW = "blog.view", Level.READ, _("See the blog's posts, categories and comments")
    EDIT = "blog.edit", Level.WRITE, _("Write and change posts and their translations, comment on posts")
    # An editor's part (Ghost's Editor): what reaches the public, and what the public wrote.
    PUBLISH = (
        "blog.publish",
        Level.DELETE,
        _("Publish, schedule and unpublish posts, moderate and delete comments, clear the blog's cache"),
    )
    DELETE = "blog.delete", Level.DELETE, _("Delete posts")
    ADMIN = "blog.admin", Level.ADMIN, _("See and change every post, private drafts included")

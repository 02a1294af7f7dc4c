"""The Blog area's failures (apps.core.errors): each names the problem and what to do next."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import AppError, Conflict


class PostNotPublished(Conflict):
    code = "BLOG_POST_NOT_PUBLISHED"
    msg_format = _("Post {id} is {status}, not published: {what} only a published post. Publish it first.")


class PrivatePost(Conflict):
    code = "BLOG_POST_PRIVATE"
    msg_format = _(
        "Post {id} is private to its owner; only a post visible to the workspace is published. Change its "
        "visibility with updateBlogPost first."
    )


class BlogModelNotConfigured(AppError):
    code = "BLOG_MODEL_NOT_CONFIGURED"
    http_status = 503
    msg_format = _(
        "{tool}: no model is configured ({problem}); an administrator sets one in the service's "
        "environment (ATRIUM_GATEWAY_MODEL_BACKEND, ATRIUM_GATEWAY_MODEL_URL and, for images, "
        "ATRIUM_GATEWAY_MODEL_IMAGE_NAME). Nothing was charged or changed."
    )


class BlogModelNeedsApiKey(AppError):
    code = "BLOG_MODEL_NEEDS_API_KEY"
    http_status = 403
    msg_format = _(
        "{tool} calls a model paid from an API key's budget, and this connection has no API key: connect "
        "with a personal access token and an API key. Nothing was changed."
    )


class BlogModelCallFailed(AppError):
    code = "BLOG_MODEL_CALL_FAILED"
    http_status = 502
    msg_format = _(
        "{tool}: the model gave no usable answer ({problem}); nothing was changed. Try again later."
    )

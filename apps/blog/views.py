"""The Blog settings page: the posts an editor or author may see (status, language, schedule,
public address), and the comments to moderate, each approved, marked as spam or deleted here."""

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.blog import services
from apps.blog.models import Comment, Post
from apps.blog.permissions import BlogPerm
from apps.blog.shapes import public_url
from apps.core.actors import can
from apps.core.pages import READ, chosen, page, paged


@page(BlogPerm.VIEW, methods=READ)
def posts(request: AuthenticatedHttpRequest) -> HttpResponse:
    statuses = [(value, label) for value, label in Post.Status.choices]
    status = chosen(request, "status", Post.Status.values)
    rows = Post.objects.restrict(request.user).select_related("owner", "translation_of")
    if status:
        rows = rows.filter(status=status)
    context = paged(request, rows.order_by("-updated_at", "-id"))
    context["shown"] = [(post, public_url(post)) for post in context["page"]]
    pending = (
        Comment.objects.restrict(request.user)
        .filter(status=Comment.Status.PENDING)
        .select_related("post")
        .order_by("created_at", "id")[:100]
    )
    return render(
        request,
        "blog/posts.html",
        {
            "nav": "blog",
            **context,
            "statuses": statuses,
            "status": status,
            "pending": list(pending),
            "may_moderate": can(request.user, BlogPerm.PUBLISH),
        },
    )


@page(BlogPerm.PUBLISH, methods=("POST",))
def moderate(request: AuthenticatedHttpRequest, comment_id: int) -> HttpResponse:
    comment = Comment.objects.select_related("post").fetch(request.user, comment_id, "change")
    decision = request.POST.get("status", "")
    if decision == "delete":
        services.comment_delete(actor=request.user, comment=comment)
        messages.success(request, _("The comment is deleted."))
    else:
        services.comment_moderate(actor=request.user, comment=comment, status=decision)
        messages.success(request, _("The comment is {status}.").format(status=comment.get_status_display()))
    return redirect("blog:posts")

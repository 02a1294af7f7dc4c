"""The settings page where a person reads their notifications and the records they watch."""

from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.core.actors import can
from apps.core.pages import READ, chosen, page, paged
from apps.notifications import selectors, services
from apps.notifications.models import Notification, Watcher
from apps.notifications.permissions import NotificationsPerm
from apps.notifications.shapes import WatcherOut

SHOWS = ("unread", "all", "archived")


@page(NotificationsPerm.VIEW, methods=READ)
def notification_list(request: AuthenticatedHttpRequest) -> HttpResponse:
    show = chosen(request, "show", SHOWS, "unread")
    rows = selectors.notification_list(
        actor=request.user,
        status="unread" if show == "unread" else "all",
        archived="only" if show == "archived" else "exclude",
    )
    may_mark = can(request.user, NotificationsPerm.MARK)
    if may_mark:
        # Listed, hence seen (what openNotifications does for an agent).
        services.notifications_open(actor=request.user)
    watchers = selectors.watcher_list(actor=request.user)[:100]
    return render(
        request,
        "notifications/list.html",
        {
            "nav": "notifications",
            **paged(request, rows),
            "show": show,
            "shows": SHOWS,
            "unread": selectors.notification_list(actor=request.user, status="unread").count(),
            "watching": [WatcherOut.of(watcher, request.user) for watcher in watchers],
            "may_mark": may_mark,
            "may_watch": can(request.user, NotificationsPerm.WATCH),
        },
    )


@page(NotificationsPerm.MARK, methods=("POST",))
def notification_mark(request: AuthenticatedHttpRequest) -> HttpResponse:
    action = request.POST.get("action", "")
    if action not in services.MARKS:
        action = "read"
    if request.POST.get("all") == "1":
        rows = selectors.notification_list(actor=request.user, status="unread", archived="include")
    else:
        # Ids as a browser sends them: ASCII digits within a database id ("²" is a digit too).
        ids = [
            int(value)
            for value in request.POST.getlist("id")
            if value.isascii() and value.isdigit() and len(value) <= 18
        ][:100]
        rows = Notification.objects.restrict(request.user).filter(pk__in=ids)
    services.notifications_mark(actor=request.user, notifications=rows, action=action)
    show = request.POST.get("show", "unread")
    return redirect(f"{reverse('notifications:list')}?show={show if show in SHOWS else 'unread'}")


@page(NotificationsPerm.WATCH, methods=("POST",))
def watcher_cancel(request: AuthenticatedHttpRequest, watcher_id: int) -> HttpResponse:
    watcher = Watcher.objects.fetch(request.user, watcher_id)
    services.watcher_cancel(actor=request.user, watcher=watcher)
    return redirect("notifications:list")

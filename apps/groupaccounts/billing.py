"""The workspace's own usage, for getMyBillingOverview: what its API keys spent on the gateway's
AI (apps.core.spending, which the API keys fill), how many tools agents called (the catalogue's
log of calls), and the records it keeps. The service keeps usage, not prices of its own: there is no plan or
invoice to show."""

from dataclasses import dataclass
from datetime import datetime, time
from typing import Any

from django.apps import apps as django_apps
from django.db.models import Count, Q
from django.utils import timezone

from apps.catalogue.models import ToolCall
from apps.core import spending
from apps.core.recurrence import workspace_zone
from apps.core.spending import SpendSummary


@dataclass(frozen=True)
class ToolUse:
    today: int
    this_month: int
    failed_this_month: int
    by_tool: list[tuple[str, int]]


def month_start(now: datetime) -> datetime:
    local = now.astimezone(workspace_zone())
    return datetime.combine(local.date().replace(day=1), time(0), tzinfo=local.tzinfo)


def day_start(now: datetime) -> datetime:
    local = now.astimezone(workspace_zone())
    return datetime.combine(local.date(), time(0), tzinfo=local.tzinfo)


def tool_use(now: datetime | None = None) -> ToolUse:
    now = now or timezone.now()
    month = ToolCall.objects.filter(at__gte=month_start(now))
    counts = month.aggregate(
        total=Count("id"),
        today=Count("id", filter=Q(at__gte=day_start(now))),
        failed=Count("id", filter=Q(outcome__in=[ToolCall.Outcome.ERROR, ToolCall.Outcome.FAILED])),
    )
    top = month.values("tool").annotate(n=Count("id")).order_by("-n", "tool")[:10]
    return ToolUse(
        today=counts["today"],
        this_month=counts["total"],
        failed_this_month=counts["failed"],
        by_tool=[(row["tool"], row["n"]) for row in top],
    )


def spend(user: Any = None) -> SpendSummary:
    return spending.keys().spend(user=user)


# Records counted, when their app is installed: (label, app label, model, filter).
RECORDS = [
    ("contacts", "contacts", "Contact", {"deleted_at__isnull": True}),
    ("calendar events", "calendars", "Event", {"deleted_at__isnull": True}),
    ("departments", "departments", "Department", {"deleted_at__isnull": True}),
    ("group accounts", "groupaccounts", "GroupAccount", {"deleted_at__isnull": True}),
    ("files", "files", "File", {"deleted_at__isnull": True}),
    ("documents", "documents", "Document", {"deleted_at__isnull": True}),
    ("tasks", "tasks", "Task", {}),
]


def record_counts() -> dict[str, int]:
    counts = {}
    for label, app_label, model_name, filters in RECORDS:
        try:
            model = django_apps.get_model(app_label, model_name)
        except LookupError:
            continue
        field_names = {field.name for field in model._meta.get_fields()}
        usable = {key: value for key, value in filters.items() if key.split("__")[0] in field_names}
        counts[label] = model.objects.filter(**usable).count()
    return counts


def storage_bytes() -> int | None:
    """Bytes the workspace's files take (trash included), or None when it does not use Files."""
    from apps.core.workspaces import current_workspace
    from apps.files import api as files

    workspace = current_workspace()
    if workspace is None or not workspace.has_area("files"):
        return None
    return files.storage_bytes()

"""The Documents settings page: the documents people and agents wrote, their versions, the trash."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from apps.accounts.access import can
from apps.core.errors import AppError
from apps.documents import selectors, services
from apps.documents.permissions import DocumentsPerm


def _require_view(request: HttpRequest) -> None:
    if not can(request.user, DocumentsPerm.VIEW):
        raise PermissionDenied


@login_required
def document_list(request: HttpRequest) -> HttpResponse:
    _require_view(request)
    trash = request.GET.get("view") == "trash"
    rows = selectors.document_visible(actor=request.user, include_trashed=trash).select_related(
        "folder", "owner", "updated_by"
    )
    rows = rows.filter(deleted_at__isnull=False) if trash else rows
    return render(
        request,
        "documents/list.html",
        {"nav": "documents", "documents": rows.order_by("-updated_at")[:500], "trash": trash},
    )


@login_required
def document_detail(request: HttpRequest, document_id: int) -> HttpResponse:
    _require_view(request)
    try:
        document = selectors.document_get(actor=request.user, document_id=document_id, include_trashed=True)
        number = int(request.GET.get("version") or 0)
        shown = selectors.version_get(document=document, number=number) if number else document
    except (AppError, ValueError):
        raise Http404 from None
    return render(
        request,
        "documents/detail.html",
        {
            "nav": "documents",
            "document": document,
            "shown": shown,
            "number": number or document.version,
            "versions": document.versions.select_related("created_by")[:200],
            "may_restore": document.deleted_at is not None and can(request.user, DocumentsPerm.DELETE),
        },
    )


@login_required
@require_POST
def document_restore(request: HttpRequest, document_id: int) -> HttpResponse:
    try:
        document = selectors.document_get(actor=request.user, document_id=document_id, include_trashed=True)
        services.document_restore(actor=request.user, document=document)
    except AppError as error:
        if error.http_status == 403:
            raise PermissionDenied from None
        raise Http404 from None
    messages.success(request, "The document is back.")
    return redirect("documents:detail", document_id=document.pk)

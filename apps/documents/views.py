"""The Documents settings page: the documents people and agents wrote, their versions, the trash."""

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.core.actors import can
from apps.core.pages import READ, page
from apps.documents import selectors, services
from apps.documents.models import Document
from apps.documents.permissions import DocumentsPerm


@page(DocumentsPerm.VIEW, methods=READ)
def document_list(request: AuthenticatedHttpRequest) -> HttpResponse:
    trash = request.GET.get("view") == "trash"
    rows = Document.objects.restrict(request.user, trash="only" if trash else "exclude")
    rows = rows.select_related("folder", "owner", "updated_by").order_by("-updated_at")
    return render(
        request, "documents/list.html", {"nav": "documents", "documents": rows[:500], "trash": trash}
    )


@page(DocumentsPerm.VIEW, methods=READ)
def document_detail(request: AuthenticatedHttpRequest, document_id: int) -> HttpResponse:
    document = Document.objects.fetch(request.user, document_id, trash=True)
    try:
        number = int(request.GET.get("version") or 0)
    except ValueError:
        raise Http404 from None
    shown = selectors.version_get(document=document, number=number) if number else document
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


@page(DocumentsPerm.DELETE, methods=("POST",))
def document_restore(request: AuthenticatedHttpRequest, document_id: int) -> HttpResponse:
    document = Document.objects.fetch(request.user, document_id, "delete", trash=True)
    services.document_restore(actor=request.user, document=document)
    messages.success(request, "The document is back.")
    return redirect("documents:detail", document_id=document.pk)

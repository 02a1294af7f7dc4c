"""The client portal's pages (apps.platform.portal): what is shared with the portal person
signed in, and nothing else. Anyone else, signed in or not as a portal person, gets "not found"
(not signed in: the sign-in page first)."""

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from apps.accounts.models import User
from apps.documents import api as documents
from apps.files import api as files
from apps.platform import portal


def _portal_person(request: HttpRequest) -> User:
    user = request.user
    if not isinstance(user, User) or not user.is_portal:
        raise Http404()
    return user


@require_safe
@login_required
def home(request: HttpRequest) -> HttpResponse:
    user = _portal_person(request)
    shared_documents, shared_files = portal.shared_with(user)
    return render(
        request,
        "platform/portal/home.html",
        {"documents": list(shared_documents), "files": list(shared_files.select_related(None))},
    )


@require_safe
@login_required
def document(request: HttpRequest, document_id: int) -> HttpResponse:
    user = _portal_person(request)
    found = documents.shared_document(user, document_id)
    if found is None:
        raise Http404()
    return render(request, "platform/portal/document.html", {"document": found})


@require_safe
@login_required
def file(request: HttpRequest, file_id: int) -> HttpResponse:
    user = _portal_person(request)
    found = files.shared_with(user).filter(pk=file_id).first()
    if found is None:
        raise Http404()
    response = HttpResponse(files.file_bytes(found), content_type=found.mime_type)
    response["Content-Disposition"] = _attachment(found.name)
    response["Cache-Control"] = "private, no-store"
    response["X-Content-Type-Options"] = "nosniff"
    return response


def _attachment(name: str) -> str:
    from django.utils.http import content_disposition_header

    return content_disposition_header(True, name) or "attachment"

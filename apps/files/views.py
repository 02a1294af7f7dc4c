"""Pages of the Files area: the settings page people browse, and the download door."""

from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from apps.accounts.models import User
from apps.accounts.requests import AuthenticatedHttpRequest
from apps.core import folders as trees
from apps.core.errors import AppError
from apps.core.pages import READ, page
from apps.files import blobs, downloads, selectors, services
from apps.files.models import File, Folder
from apps.files.permissions import FilesPerm


def _serve(file: File) -> FileResponse:
    response = FileResponse(
        blobs.open_for_streaming(file.blob),
        as_attachment=True,
        filename=file.name,
        content_type=file.mime_type,
    )
    response["Cache-Control"] = "private, no-store"
    response["X-Content-Type-Options"] = "nosniff"
    return response


@require_GET
def download(request: HttpRequest, token: str) -> FileResponse:
    """A link made by downloadFileEntity: valid for minutes, for the bytes it was made for, and
    only while its person may still see the file."""
    payload = downloads.read_token(token)
    if payload is None:
        raise Http404("This download link is not valid or has expired.")
    user_id = payload.get("u")
    person = (
        User.objects.filter(pk=user_id, is_active=True).select_related("role").first() if user_id else None
    )
    try:
        file = File.objects.fetch(person, int(payload["f"]))
    except (AppError, KeyError, TypeError, ValueError):
        raise Http404("This file is no longer available.") from None
    if not file.sha256.startswith(str(payload.get("h"))):
        raise Http404("The file changed since this link was made.")
    return _serve(file)


@page(methods=READ)
def download_signed_in(request: AuthenticatedHttpRequest, file_id: int) -> FileResponse:
    return _serve(File.objects.fetch(request.user, file_id))


@page(FilesPerm.VIEW, methods=READ)
def browse(request: AuthenticatedHttpRequest) -> HttpResponse:
    actor = request.user
    if request.GET.get("view") == "trash":
        return render(
            request,
            "files/trash.html",
            {"nav": "files", "entries": services.trash_entries(actor=actor)[:500]},
        )
    try:
        folder_id = int(request.GET.get("folder") or 0) or None
    except ValueError:
        raise Http404 from None
    folder = trees.get(Folder, actor=actor, folder_id=folder_id)
    folders, files = selectors.folder_contents(actor=actor, folder=folder)
    return render(
        request,
        "files/browse.html",
        {
            "nav": "files",
            "folder": folder,
            "crumbs": trees.ancestors(folder),
            "folders": folders[:500],
            "files": files[:500],
            "limit": blobs.human_size(blobs.max_bytes()),
        },
    )

"""Settings → Extensions: the projects a person may see with their builds, each build's validation
report, an approved build published; and a built extension's frame, served on the workspace's host
with the strict Content-Security-Policy and sandbox getExtensionFrameSpec describes."""

import mimetypes

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.clickjacking import xframe_options_sameorigin

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.core.actors import can
from apps.core.pages import READ, page, paged
from apps.extensions import selectors, services
from apps.extensions.lib import bundle, frame
from apps.extensions.models import Build
from apps.extensions.permissions import ExtensionsPerm


@page(ExtensionsPerm.VIEW, methods=READ)
def projects(request: AuthenticatedHttpRequest) -> HttpResponse:
    rows = selectors.projects(request.user).order_by("-updated_at", "-id")
    context = paged(request, rows)
    shown = list(context["page"])
    builds = selectors.builds(request.user).filter(project__in=shown)
    by_project: dict[int, list[Build]] = {}
    for build in builds:
        by_project.setdefault(build.project_id, []).append(build)
    context["shown"] = [(project, by_project.get(project.pk, [])[:10]) for project in shown]
    return render(request, "extensions/projects.html", {"nav": "extensions", **context})


@page(ExtensionsPerm.VIEW, methods=READ, back="extensions:projects")
def build(request: AuthenticatedHttpRequest, build_id: int) -> HttpResponse:
    found = Build.objects.select_related("project").fetch(request.user, build_id)
    return render(
        request,
        "extensions/build.html",
        {
            "nav": "extensions",
            "build": found,
            "problems": found.report.get("problems", []),
            "may_publish": can(request.user, ExtensionsPerm.PUBLISH)
            and found.status == Build.Status.APPROVED,
        },
    )


@page(ExtensionsPerm.PUBLISH, methods=("POST",), back="extensions:projects")
def publish(request: AuthenticatedHttpRequest, build_id: int) -> HttpResponse:
    found = Build.objects.fetch(request.user, build_id, "change")
    services.build_publish(actor=request.user, build=found)
    messages.success(request, _("Version {version} is published.").format(version=found.version))
    return redirect("extensions:build", build_id=found.pk)


@xframe_options_sameorigin
@page(ExtensionsPerm.VIEW, methods=READ)
def frame_file(request: AuthenticatedHttpRequest, build_id: int, file: str) -> HttpResponse:
    found = Build.objects.fetch(request.user, build_id)
    if found.status not in (Build.Status.APPROVED, Build.Status.PUBLISHED):
        raise Http404
    content = bundle.entry_of(services.bundle_bytes(found), file)
    if content is None:
        raise Http404
    kind = mimetypes.guess_type(file)[0] or "application/octet-stream"
    response = HttpResponse(content, content_type=kind)
    for header, value in frame.HEADERS.items():
        response[header] = value
    return response

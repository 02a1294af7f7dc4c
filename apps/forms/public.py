"""A form's public page on the workspace's own host (/f/<slug>/), for people who are not signed
in: the published version rendered with a label for every field, its answers checked on the server
against that version (apps.forms.services.submission_create; the browser's own checks are a
convenience, never trusted), uploads type-sniffed and size-capped, then stored in Files as the
form's owner's. A honeypot field and a per-address hourly cap keep robots out.

Only a form visible to the workspace is served (not private, not deleted): an open one with its
fields; a closed one (it was published) with a page saying it takes no more answers, and a post to
it refused (403) with nothing kept. Anything else is a 404.
"""

from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import connection, transaction
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt

from apps.core.errors import AppError
from apps.core.workspaces import current_workspace, has_area
from apps.files import api as files
from apps.forms import services
from apps.forms.errors import FormNotOpen, SubmissionInvalid, UploadRefused
from apps.forms.lib import fields as lib
from apps.forms.lib import uploads
from apps.forms.models import FormTemplate, Submission


def submissions_key(schema: str, form_id: int, address: str) -> str:
    """The cache key counting the public's submissions from one address to one form."""
    return f"forms-submissions:{schema}:{form_id}:{address}"


HONEYPOT = "website"


def honeypot(form: FormTemplate) -> str:
    """The name of the form's honeypot field: `website`, which robots fill in, unless the form asks
    for a website itself (a field keyed `website`); then one no field key can be (keys hold no `-`)."""
    version = form.current_version
    keys = {field["key"] for field in lib.answered(version.definition)} if version is not None else set()
    return HONEYPOT if HONEYPOT not in keys else f"{HONEYPOT}-url"


def _form(slug: str) -> FormTemplate:
    if not has_area("forms"):
        raise Http404
    form = (
        FormTemplate.objects.select_related("current_version", "owner")
        .filter(slug=slug, deleted_at__isnull=True)
        .first()
    )
    if form is None or not (form.is_public or form.is_closed_to_public):
        raise Http404
    return form


def _answers(form: FormTemplate, request: HttpRequest) -> tuple[dict[str, Any], dict[str, uploads.Checked]]:
    """The posted answers as the version's fields read them, and the uploads checked."""
    version = form.current_version
    assert version is not None
    answers: dict[str, Any] = {}
    checked: dict[str, uploads.Checked] = {}
    for field in lib.answered(version.definition):
        key, kind = field["key"], field["type"]
        if kind == "file":
            upload = request.FILES.get(key)
            if upload is None:
                continue
            most = int(field.get("maxSizeMb", 5) * 1024 * 1024)
            data = upload.read(most + 1)
            try:
                checked[key] = uploads.check(field, upload.name or "upload", data)
            except uploads.Refused as error:
                raise UploadRefused(
                    key=key,
                    name=upload.name or "upload",
                    problem=error.problem,
                    details={key: [error.problem]},
                ) from None
            answers[key] = {
                "fileId": 1,
                "name": checked[key].name,
                "mimeType": checked[key].mime_type,
                "size": len(checked[key].data),
            }
        elif kind == "checkbox":
            if request.POST.get(key):
                answers[key] = True
        elif kind == "choice" and field.get("multiple"):
            chosen = request.POST.getlist(key)
            if chosen:
                answers[key] = chosen
        else:
            value = request.POST.get(key, "").strip()
            if value and kind == "number":
                try:
                    number = float(value)
                    answers[key] = int(number) if number.is_integer() else number
                except ValueError:
                    answers[key] = value
            elif value:
                answers[key] = value
    return answers, checked


def _store(form: FormTemplate, answers: dict[str, Any], checked: dict[str, uploads.Checked]) -> list[int]:
    """The uploads in Files, in the form's folder, as its owner's private files."""
    if not checked:
        return []
    owner = form.owner
    if owner is None:
        raise FormNotOpen(id=form.pk, status=_("without an owner to keep its uploads"))
    folder = files.folder_ensure(actor=owner, path=f"/Forms/{form.slug}")
    ids = []
    for key, upload in checked.items():
        made = files.file_create(
            actor=owner,
            name=upload.name,
            content=upload.data,
            folder=folder,
            mime_type=upload.mime_type,
            origin=f"form {form.pk}",
            visibility="private",
        )
        answers[key] = {**answers[key], "fileId": made.pk}
        ids.append(made.pk)
    return ids


def _client(request: HttpRequest) -> str:
    return request.META.get("REMOTE_ADDR", "") or "unknown"


def _brand() -> str:
    workspace = current_workspace()
    return str(getattr(workspace, "brand_name", "") or getattr(workspace, "name", "") or "")


def sections(form: FormTemplate) -> list[tuple[dict[str, Any] | None, list[dict[str, Any]]]]:
    """The current version's fields in their groups, in order, as the page shows them."""
    version = form.current_version
    assert version is not None
    groups = {group["key"]: group for group in version.definition.get("groups", [])}
    found: list[tuple[dict[str, Any] | None, list[dict[str, Any]]]] = []
    for field in version.definition.get("fields", []):
        group = groups.get(field.get("group") or "")
        if not found or found[-1][0] is not group:
            found.append((group, []))
        found[-1][1].append(field)
    return found


def _page(request: HttpRequest, form: FormTemplate, *, status: int = 200, **context: Any) -> HttpResponse:
    response = render(
        request,
        "forms/public_form.html",
        {
            "form": form,
            "brand": _brand(),
            "sections": sections(form),
            "values": context.get("values", {}),
            "problems": context.get("problems", {}),
            "message": context.get("message", ""),
            "sent": request.GET.get("sent") == "1",
            "closed": context.get("closed", False),
            "action": reverse("forms:public", kwargs={"slug": form.slug}),
            "honeypot": honeypot(form),
            # Where the respondent came from rides along with their answers.
            "hidden": list(utm_of(request.POST if request.method == "POST" else request.GET).items()),
        },
        status=status,
    )
    response["Cache-Control"] = "no-store"
    return response


@dataclass
class Received:
    """What became of a public submission: `submission` made (None: refused, or the honeypot
    caught a robot and nothing was kept), else the `status` to answer with and why."""

    status: int = 200
    submission: Submission | None = None
    values: dict[str, list[str]] = dataclass_field(default_factory=dict)
    problems: dict[str, Any] = dataclass_field(default_factory=dict)
    message: str = ""


UTM = ("utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content")


def utm_of(values: Any) -> dict[str, str]:
    """The `utm_*` parameters among `values` (a query or a posted form), each one line, shortened."""
    # Only printable characters: a NUL or a lone surrogate would fail the submission's write.
    printable = {name: "".join(filter(str.isprintable, str(values.get(name) or ""))) for name in UTM}
    found = {name: " ".join(value.split())[:200] for name, value in printable.items()}
    return {name: value for name, value in found.items() if value}


def receive(request: HttpRequest, form: FormTemplate, *, utm: dict[str, str] | None = None) -> Received:
    """The public's answers to `form` posted in `request`, checked and stored: by its own page and
    by pages that embed it (apps.forms.api). The submission keeps where the respondent came from:
    `utm`, else the `utm_*` parameters posted with it (the page's hidden fields)."""
    if request.POST.get(honeypot(form)):  # the honeypot: people leave it empty, robots fill it
        return Received()
    key = submissions_key(getattr(connection, "schema_name", ""), form.pk, _client(request))
    cache.add(key, 0, timeout=3600)
    if cache.incr(key) > settings.ATRIUM_FORMS_SUBMISSIONS_PER_HOUR:
        return Received(
            status=429, message=_("Too many submissions from this address; try again in an hour.")
        )
    values = {name: request.POST.getlist(name) for name in request.POST}
    try:
        answers, checked = _answers(form, request)
        email = next(
            (
                answers[field["key"]]
                for field in lib.answered(form.current_version.definition)  # type: ignore[union-attr]
                if field["type"] == "email" and field["key"] in answers
            ),
            "",
        )
        version = form.current_version
        assert version is not None
        _kept, problems = lib.validate(version.definition, version.json_schema, answers)
        if problems:
            raise SubmissionInvalid(id=form.pk, version=version.number, problems="", details=problems)
        with transaction.atomic():
            file_ids = _store(form, answers, checked)
            made = services.submission_create(
                form=form,
                answers=answers,
                respondent_email=str(email),
                file_ids=file_ids,
                utm=utm_of(utm if utm is not None else request.POST),
            )
    except SubmissionInvalid as error:
        return Received(status=400, values=values, problems=error.details or {})
    except UploadRefused as error:
        return Received(status=400, values=values, problems=error.details or {}, message=str(error.message))
    except AppError as error:
        return Received(status=400, values=values, message=str(error.message))
    return Received(submission=made)


@csrf_exempt  # the public's form, no session to protect; a honeypot and a rate limit instead
def page(request: HttpRequest, slug: str) -> HttpResponse:
    form = _form(slug)
    if request.method not in ("GET", "HEAD", "POST"):
        return HttpResponse(status=405, headers={"Allow": "GET, HEAD, POST"})
    if form.is_closed_to_public:
        return _page(request, form, status=403 if request.method == "POST" else 200, closed=True)
    if request.method != "POST":
        return _page(request, form)
    got = receive(request, form)
    if got.status == 429:
        return HttpResponse(got.message, status=429, content_type="text/plain")
    if got.status != 200:
        return _page(
            request, form, status=got.status, values=got.values, problems=got.problems, message=got.message
        )
    return HttpResponseRedirect(reverse("forms:public", kwargs={"slug": form.slug}) + "?sent=1")

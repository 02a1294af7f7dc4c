"""The public endpoints of marketing mail on the workspace's host, for people not signed in: the
signed click redirect (`/m/c/<token>/`), the open pixel (`/m/o/<token>.gif`), and the double
opt-in confirmation (`/m/confirm/<token>/`, GET asks, POST confirms: a link scanner confirms
nobody), and the published landing pages (`/p/<slug>/`). Unsubscribing is the mail app's
one-click page (apps.mail.suppression)."""

import base64
import hashlib
import logging

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods

from apps.core.workspaces import brand, has_area
from apps.forms import api as forms
from apps.mail import api as mail
from apps.marketing import landing, services, tracking, visits
from apps.marketing.models import Click, Consent, LandingPage, Send, StepSend
from apps.tenancy import links

logger = logging.getLogger(__name__)
CONFIRM_SALT = "marketing.confirm"
PIXEL = base64.b64decode("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7")


def _installed() -> None:
    if not has_area("marketing"):
        raise Http404


@never_cache
@require_GET
def click(request: HttpRequest, token: str) -> HttpResponse:
    _installed()
    found = tracking.read_click(token)
    if found is None:
        step = tracking.read_click(token, step=True)
        if step is None:
            raise Http404
        if not visits.by_robot(request):
            StepSend.objects.filter(pk=step[0], clicked_at__isnull=True).update(clicked_at=timezone.now())
        return HttpResponseRedirect(step[1])
    send_id, url = found
    send = Send.objects.filter(pk=send_id).first()
    # A link scanner or a chat's preview that says what it is follows the link uncounted.
    if send is not None and not visits.by_robot(request):
        now = timezone.now()
        Click.objects.create(send=send, url=url, at=now)
        Send.objects.filter(pk=send.pk, clicked_at__isnull=True).update(clicked_at=now)
        logger.info("marketing send %s: a click", send.pk)
    return HttpResponseRedirect(url)


@never_cache
@require_GET
def opened(request: HttpRequest, token: str) -> HttpResponse:
    _installed()
    send_id = tracking.read_open(token)
    if send_id is not None:
        Send.objects.filter(pk=send_id, opened_at__isnull=True).update(opened_at=timezone.now())
    step_id = tracking.read_open(token, step=True)
    if step_id is not None:
        StepSend.objects.filter(pk=step_id, opened_at__isnull=True).update(opened_at=timezone.now())
    return HttpResponse(PIXEL, content_type="image/gif")


def confirm_url(consent_id: int) -> str:
    return links.page("marketing:confirm", token=links.sign({"c": consent_id}, salt=CONFIRM_SALT))


def ask_to_confirm(consent_id: int) -> None:
    """The double opt-in e-mail: one link that confirms the contact's consent."""
    consent = Consent.objects.select_related("contact").filter(pk=consent_id).first()
    if consent is None or consent.status != Consent.Status.PENDING or not consent.contact.email:
        return
    text = _(
        "Please confirm that you want e-mail from {brand}: {url}\n\nIf you did not ask for it, ignore this "
        "message and you will get nothing."
    ).format(brand=brand(), url=confirm_url(consent.pk))
    mail.send(
        [mail.Notice(to=[consent.contact.email], subject=_("Please confirm your subscription"), text=text)]
    )
    logger.info("marketing consent %s: confirmation sent", consent.pk)


@csrf_exempt
@require_http_methods(["GET", "HEAD", "POST"])
def confirm(request: HttpRequest, token: str) -> HttpResponse:
    _installed()
    payload = links.unsign(token, salt=CONFIRM_SALT, max_age=30 * 86400)
    if payload is None or not isinstance(payload.get("c"), int):
        return render(request, "marketing/confirm.html", {"state": "invalid"}, status=404)
    if request.method == "POST":
        consent = services.consent_confirm(payload["c"])
        if consent is None:
            return render(request, "marketing/confirm.html", {"state": "invalid"}, status=404)
        return render(request, "marketing/confirm.html", {"state": "done"})
    return render(request, "marketing/confirm.html", {"state": "ask"})


# --- landing pages (/p/<slug>/) -------------------------------------------------------------------


def _etag(page: LandingPage) -> str:
    """The page's version: its last change and its form's (a form closed since says so)."""
    form = forms.shown_form(landing.form_id(page) or 0)
    shown = form.updated_at.isoformat() if form is not None else "-"
    seed = f"{page.pk}|{page.updated_at.isoformat()}|{page.published_at}|{shown}"
    return '"' + hashlib.sha256(seed.encode()).hexdigest()[:32] + '"'


def _landing_page(
    request: HttpRequest, page: LandingPage, *, status: int = 200, got: forms.Received | None = None
) -> HttpResponse:
    action = reverse("marketing:landing", kwargs={"slug": page.slug})
    source = request.POST if request.method == "POST" else request.GET
    hidden = list(forms.utm_of(source).items())
    blocks = []
    for block in page.blocks:
        if block["type"] == "form":
            found = forms.shown_form(block["formId"])
            if found is None:
                continue  # unpublished since: the rest of the page stays
            if not found.is_public:
                blocks.append({**block, "form": found, "closed": True})
                continue
            html = forms.render_fields(
                request,
                found,
                action=action + "#form",
                hidden=hidden,
                values=got.values if got else None,
                problems=got.problems if got else None,
                message=got.message if got else "",
            )
            block = {**block, "form": found, "html": html}
        blocks.append(block)
    return render(
        request,
        "marketing/landing.html",
        {
            "page": page,
            "blocks": blocks,
            "brand": brand(),
            "canonical": request.build_absolute_uri(action),
            "image": next((block for block in blocks if block["type"] == "image"), None),
            "starts_with_h1": bool(blocks) and blocks[0]["type"] == "heading" and blocks[0]["level"] == 1,
            "sent": request.GET.get("sent") == "1",
        },
        status=status,
    )


@csrf_exempt  # the public's form, no session to protect: the form's honeypot and rate limit
@require_http_methods(["GET", "HEAD", "POST"])
def landing_page(request: HttpRequest, slug: str) -> HttpResponse:
    """A published landing page: a person's GET a visit (apps.marketing.visits: not a robot's, not the
    same visitor's again within 30 minutes), revalidated every time (`no-cache` with an ETag
    changed by every update, so a change is seen at once); a form sent from it a conversion with
    the visit's UTM parameters."""
    _installed()
    page = landing.live(slug)
    if page is None:
        raise Http404
    if request.method == "POST":
        found = forms.shown_form(landing.form_id(page) or 0)
        if found is None:
            raise Http404
        if not found.is_public:
            # Closed since the page was loaded: the page says so, and nothing is kept.
            response = _landing_page(request, page, status=403)
            response["Cache-Control"] = "no-store"
            return response
        got = forms.receive(request, found, utm=forms.utm_of(request.POST))
        if got.status == 429:
            return HttpResponse(got.message, status=429, content_type="text/plain")
        if got.status != 200:
            response = _landing_page(request, page, status=got.status, got=got)
            response["Cache-Control"] = "no-store"
            return response
        if got.submission is not None:
            landing.converted(page, submission_id=got.submission.pk, utm=forms.utm_of(request.POST))
        return HttpResponseRedirect(reverse("marketing:landing", kwargs={"slug": page.slug}) + "?sent=1#form")
    if request.method == "GET":
        visits.visited(page, request, utm=forms.utm_of(request.GET))
    etag = _etag(page)
    if etag in [tag.strip() for tag in request.headers.get("If-None-Match", "").split(",")]:
        response = HttpResponse(status=304)
    else:
        response = _landing_page(request, page)
    response["ETag"] = etag
    response["Cache-Control"] = "public, no-cache"
    return response

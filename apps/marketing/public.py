"""The public endpoints of marketing mail on the workspace's host, for people not signed in: the
signed click redirect (`/m/c/<token>/`), the open pixel (`/m/o/<token>.gif`), and the double
opt-in confirmation (`/m/confirm/<token>/`, GET asks, POST confirms: a link scanner confirms
nobody). Unsubscribing is the mail app's one-click page (apps.mail.suppression)."""

import base64
import logging

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods

from apps.core.workspaces import brand, has_area
from apps.mail import api as mail
from apps.marketing import services, tracking
from apps.marketing.models import Click, Consent, Send, StepSend
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
        StepSend.objects.filter(pk=step[0], clicked_at__isnull=True).update(clicked_at=timezone.now())
        return HttpResponseRedirect(step[1])
    send_id, url = found
    send = Send.objects.filter(pk=send_id).first()
    if send is not None:
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

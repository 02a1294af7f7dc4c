"""The Dialer settings page (the calls and text messages a person's agents placed, every one to
the area's admins; the do-not-call list; pronunciations; which provider is set), and the
telephony provider's callbacks on the workspace's own host, each verified by its
X-Twilio-Signature against the address the provider was given (forged: 403, nothing recorded)."""

from collections.abc import Callable

from django.db.models import Count, Sum
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.core.pages import READ, page, paged
from apps.dialer import providers, services
from apps.dialer.models import Call, DoNotCall, Message, Pronunciation
from apps.dialer.permissions import DialerPerm
from apps.integrations.api import setting
from apps.tenancy import links

TWIML = "application/xml"
EMPTY = '<?xml version="1.0" encoding="UTF-8"?><Response/>'
# A call whose row is not yet committed when the provider asks what to say: ask again shortly.
AGAIN = (
    '<?xml version="1.0" encoding="UTF-8"?><Response><Pause length="2"/><Redirect method="POST"/></Response>'
)


@page(DialerPerm.VIEW, methods=READ)
def dialer(request: AuthenticatedHttpRequest) -> HttpResponse:
    calls = Call.objects.restrict(request.user).select_related("created_by").order_by("-created_at", "-id")
    spent = calls.exclude(price=None).values("price_unit").annotate(total=Sum("price"), calls=Count("id"))
    return render(
        request,
        "dialer/dialer.html",
        {
            "nav": "dialer",
            **paged(request, calls),
            "spent": list(spent),
            "messages_sent": Message.objects.restrict(request.user).order_by("-created_at", "-id")[:100],
            "do_not_call": DoNotCall.objects.restrict(request.user).order_by("number")[:500],
            "pronunciations": Pronunciation.objects.restrict(request.user).order_by("term")[:500],
            "provider": providers.provider_name(),
            "api_url": setting("ATRIUM_DIALER_API_URL"),
        },
    )


def _signed(
    name: str, act: Callable[[dict[str, str]], HttpResponse]
) -> Callable[[HttpRequest], HttpResponse]:
    @csrf_exempt
    @require_POST
    def view(request: HttpRequest) -> HttpResponse:
        # The address the provider was given (links.page), with any query it carried.
        url = links.page(f"dialer:{name}")
        if request.META.get("QUERY_STRING"):
            url += "?" + request.META["QUERY_STRING"]
        params = {key: request.POST.get(key, "") for key in request.POST}
        if not services.verified(url, params, request.headers.get("X-Twilio-Signature", "")):
            return HttpResponse("invalid signature", status=403, content_type="text/plain")
        # Checked as signed; kept without NUL, which no text column stores (a message's body).
        kept = {key: value.replace("\x00", "") for key, value in params.items()}
        return act({**kept, "_url": url})

    view.__name__ = name
    return view


def _voice(params: dict[str, str]) -> HttpResponse:
    twiml = services.twiml_for({key: value for key, value in params.items() if key != "_url"})
    return HttpResponse(twiml or AGAIN, content_type=TWIML)


def _status(params: dict[str, str]) -> HttpResponse:
    url = params.pop("_url")
    sid = params.get("CallSid") or params.get("MessageSid") or ""
    if services.first_time(url, params, sid):
        services.status_callback(params)
    return HttpResponse(status=204)


def _sms(params: dict[str, str]) -> HttpResponse:
    url = params.pop("_url")
    if services.first_time(url, params, params.get("MessageSid", "")):
        services.inbound_message(params)
    return HttpResponse(EMPTY, content_type=TWIML)


voice = _signed("voice", _voice)
status = _signed("status", _status)
sms = _signed("sms", _sms)

"""What counts as a person on the public endpoints: a landing page's visit, a click on a tracked link,
an opened message.

Not counted (the page is served, the click redirected, the pixel answered all the same):
- a request no person made: a HEAD, a link prefetch or prerender (`Sec-Purpose` or `Purpose`:
  prefetch), no User-Agent, or a User-Agent of a known crawler, bot or link scanner (the
  maintained crawler-user-agents list: search engines, social previews, mail security scanners
  that identify themselves);
- a landing page's visit by the same visitor within `REPEAT` (a reload, a back button): a visitor is
  a keyed digest (the service's secret key) of their address, their User-Agent and the day, so
  neither is stored and the digest changes every day.

Opens stay unreliable whatever is filtered: Apple Mail Privacy Protection fetches every pixel
through Apple's proxy with an ordinary browser's User-Agent, so the figures lead with clicks."""

from datetime import timedelta

import crawleruseragents
from django.db.models import F
from django.http import HttpRequest
from django.utils import timezone
from django.utils.crypto import salted_hmac

from apps.marketing.models import LandingPage, Visit

REPEAT = timedelta(minutes=30)
SALT = "marketing.visitor"


def by_robot(request: HttpRequest) -> bool:
    """True when no person asked for this (see the module's text)."""
    if request.method == "HEAD":
        return True
    purpose = f"{request.headers.get('Sec-Purpose', '')} {request.headers.get('Purpose', '')}".lower()
    if "prefetch" in purpose or "prerender" in purpose:
        return True
    agent = request.headers.get("User-Agent", "").strip()
    return not agent or crawleruseragents.is_crawler(agent[:1000])


def visitor_of(request: HttpRequest) -> str:
    """The day's keyed digest of the visitor's address and browser (neither is kept)."""
    seed = "|".join(
        (
            request.META.get("REMOTE_ADDR", ""),
            request.headers.get("User-Agent", "")[:1000],
            timezone.now().date().isoformat(),
        )
    )
    return salted_hmac(SALT, seed, algorithm="sha256").hexdigest()


def visited(page: LandingPage, request: HttpRequest, *, utm: dict[str, str]) -> bool:
    """Counts a visit of `page` unless a robot made it or the visitor came within `REPEAT`."""
    if by_robot(request):
        return False
    visitor, now = visitor_of(request), timezone.now()
    if Visit.objects.filter(page=page, visitor=visitor, at__gte=now - REPEAT).exists():
        return False
    Visit.objects.create(page=page, visitor=visitor, utm=utm, at=now)
    LandingPage.objects.filter(pk=page.pk).update(visits=F("visits") + 1)
    return True

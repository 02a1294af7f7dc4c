"""Video meetings on Settings → Integrations (apps.integrations.api): Jitsi Meet (a domain, and an
app id and secret for signed links; tested without network: a link's token is made and checked)
or Zoom (Server-to-Server OAuth; tested by a token and GET /users/me)."""

from datetime import timedelta

import httpx
import jwt
from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from apps.integrations.api import (
    Field,
    Integration,
    Outcome,
    Provider,
    http_check,
    not_configured,
    register,
    setting,
)
from apps.meetings import providers
from apps.meetings.permissions import MeetingsPerm

# Below this an HS256 key is guessable (RFC 7518 3.2: at least as long as the hash, 256 bits).
SECRET_MINIMUM = 32


def test_jitsi() -> Outcome:
    domain = str(setting("ATRIUM_MEETINGS_JITSI_DOMAIN"))
    app_id, secret = setting("ATRIUM_MEETINGS_JITSI_APP_ID"), setting("ATRIUM_MEETINGS_JITSI_APP_SECRET")
    if not domain:
        return not_configured("ATRIUM_MEETINGS_JITSI_DOMAIN")
    if "/" in domain or any(char.isspace() for char in domain):
        return Outcome(False, _("the domain is a host name (meet.example.org), not an address"))
    if bool(app_id) != bool(secret):
        return Outcome(False, _("the app id and the app secret are set together, or neither"))
    if not secret:
        return Outcome(True, _("ok: open rooms on %(domain)s (links are not signed)") % {"domain": domain})
    if len(secret) < SECRET_MINIMUM:
        return Outcome(
            False, _("the app secret is shorter than %(least)d characters") % {"least": SECRET_MINIMUM}
        )
    jitsi = providers.Jitsi(domain, app_id, secret, settings.ATRIUM_MEETINGS_TOKEN_HOURS)
    now = timezone.now()
    token = jitsi.token(
        room=providers.room_name(),
        invitee=providers.Invitee(email="test@example.org", moderator=True),
        starts_at=now,
        expires_at=now + timedelta(hours=1),
    )
    try:
        jwt.decode(token, secret, algorithms=["HS256"], audience="jitsi", issuer=app_id)
    except jwt.PyJWTError:
        return Outcome(False, _("a signed link's token could not be checked with the app secret"))
    return Outcome(
        True, _("ok: rooms on %(domain)s, links signed for app %(app)s") % {"domain": domain, "app": app_id}
    )


def test_zoom() -> Outcome:
    needed = (
        "ATRIUM_MEETINGS_ZOOM_ACCOUNT_ID",
        "ATRIUM_MEETINGS_ZOOM_CLIENT_ID",
        "ATRIUM_MEETINGS_ZOOM_CLIENT_SECRET",
    )
    missing = [name for name in needed if not setting(name)]
    if missing:
        return not_configured(", ".join(missing))
    timeout = settings.ATRIUM_MEETINGS_TIMEOUT_SECONDS

    def me(answer: httpx.Response) -> Outcome:
        try:
            token = answer.json().get("access_token")
        except (ValueError, AttributeError):
            token = None
        if not isinstance(token, str) or not token:
            return Outcome(False, _("the token endpoint gave no access token"))
        return http_check(
            "GET",
            f"{setting('ATRIUM_MEETINGS_ZOOM_API_URL').rstrip('/')}/users/me",
            headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
            timeout=timeout,
        )

    return http_check(
        "POST",
        setting("ATRIUM_MEETINGS_ZOOM_OAUTH_URL"),
        params={
            "grant_type": "account_credentials",
            "account_id": setting("ATRIUM_MEETINGS_ZOOM_ACCOUNT_ID"),
        },
        auth=(setting("ATRIUM_MEETINGS_ZOOM_CLIENT_ID"), setting("ATRIUM_MEETINGS_ZOOM_CLIENT_SECRET")),
        timeout=timeout,
        then=me,
    )


register(
    Integration(
        area="meetings",
        title=gettext_lazy("Video meetings"),
        permission=MeetingsPerm.VIEW,
        activity="meetings:meetings",
        activity_label=gettext_lazy("Meetings made for calendar events"),
        configured=providers.configured,
        choice=Field("ATRIUM_MEETINGS_PROVIDER", gettext_lazy("Meeting provider"), choices=("jitsi", "zoom")),
        providers=(
            Provider(
                key="jitsi",
                name="Jitsi Meet",
                fields=(
                    Field("ATRIUM_MEETINGS_JITSI_DOMAIN", gettext_lazy("Jitsi domain")),
                    Field("ATRIUM_MEETINGS_JITSI_APP_ID", gettext_lazy("App id")),
                    Field("ATRIUM_MEETINGS_JITSI_APP_SECRET", gettext_lazy("App secret"), secret=True),
                ),
                test=test_jitsi,
            ),
            Provider(
                key="zoom",
                name="Zoom",
                fields=(
                    Field("ATRIUM_MEETINGS_ZOOM_ACCOUNT_ID", gettext_lazy("Account id"), secret=True),
                    Field("ATRIUM_MEETINGS_ZOOM_CLIENT_ID", gettext_lazy("Client id"), secret=True),
                    Field("ATRIUM_MEETINGS_ZOOM_CLIENT_SECRET", gettext_lazy("Client secret"), secret=True),
                    Field("ATRIUM_MEETINGS_ZOOM_API_URL", gettext_lazy("API address"), url=True),
                    Field("ATRIUM_MEETINGS_ZOOM_OAUTH_URL", gettext_lazy("OAuth token address"), url=True),
                ),
                test=test_zoom,
            ),
        ),
        order=60,
    )
)

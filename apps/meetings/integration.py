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

from apps.integrations import api as integrations
from apps.meetings import providers
from apps.meetings.permissions import MeetingsPerm

# Below this an HS256 key is guessable (RFC 7518 3.2: at least as long as the hash, 256 bits).
SECRET_MINIMUM = 32


def test_jitsi() -> integrations.Outcome:
    domain = str(integrations.setting("ATRIUM_MEETINGS_JITSI_DOMAIN"))
    app_id, secret = (
        integrations.setting("ATRIUM_MEETINGS_JITSI_APP_ID"),
        integrations.setting("ATRIUM_MEETINGS_JITSI_APP_SECRET"),
    )
    if absent := integrations.unset("ATRIUM_MEETINGS_JITSI_DOMAIN"):
        return absent
    if "/" in domain or any(char.isspace() for char in domain):
        return integrations.Outcome(False, _("the domain is a host name (meet.example.org), not an address"))
    if bool(app_id) != bool(secret):
        return integrations.Outcome(False, _("the app id and the app secret are set together, or neither"))
    if not secret:
        return integrations.Outcome(
            True, _("ok: open rooms on %(domain)s (links are not signed)") % {"domain": domain}
        )
    if len(secret) < SECRET_MINIMUM:
        return integrations.Outcome(
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
        return integrations.Outcome(
            False, _("a signed link's token could not be checked with the app secret")
        )
    return integrations.Outcome(
        True, _("ok: rooms on %(domain)s, links signed for app %(app)s") % {"domain": domain, "app": app_id}
    )


def test_zoom() -> integrations.Outcome:
    if absent := integrations.unset(*providers.ZOOM_NEEDED):
        return absent
    timeout = settings.ATRIUM_MEETINGS_TIMEOUT_SECONDS

    def me(answer: httpx.Response) -> integrations.Outcome:
        try:
            token = answer.json().get("access_token")
        except (ValueError, AttributeError):
            token = None
        if not isinstance(token, str) or not token:
            return integrations.Outcome(False, _("the token endpoint gave no access token"))
        return integrations.http_check(
            "GET",
            f"{integrations.setting('ATRIUM_MEETINGS_ZOOM_API_URL').rstrip('/')}/users/me",
            headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
            timeout=timeout,
        )

    return integrations.http_check(
        "POST",
        integrations.setting("ATRIUM_MEETINGS_ZOOM_OAUTH_URL"),
        params={
            "grant_type": "account_credentials",
            "account_id": integrations.setting("ATRIUM_MEETINGS_ZOOM_ACCOUNT_ID"),
        },
        auth=(
            integrations.setting("ATRIUM_MEETINGS_ZOOM_CLIENT_ID"),
            integrations.setting("ATRIUM_MEETINGS_ZOOM_CLIENT_SECRET"),
        ),
        timeout=timeout,
        then=me,
    )


integrations.register(
    integrations.Integration(
        area="meetings",
        title=gettext_lazy("Video meetings"),
        permission=MeetingsPerm.VIEW,
        activity="meetings:meetings",
        activity_label=gettext_lazy("Meetings made for calendar events"),
        configured=providers.configured,
        choice=integrations.Field(
            "ATRIUM_MEETINGS_PROVIDER", gettext_lazy("Meeting provider"), choices=("jitsi", "zoom")
        ),
        providers=(
            integrations.Provider(
                key="jitsi",
                name="Jitsi Meet",
                fields=(
                    integrations.Field("ATRIUM_MEETINGS_JITSI_DOMAIN", gettext_lazy("Jitsi domain")),
                    integrations.Field("ATRIUM_MEETINGS_JITSI_APP_ID", gettext_lazy("App id")),
                    integrations.Field(
                        "ATRIUM_MEETINGS_JITSI_APP_SECRET", gettext_lazy("App secret"), secret=True
                    ),
                ),
                test=test_jitsi,
            ),
            integrations.Provider(
                key="zoom",
                name="Zoom",
                fields=(
                    integrations.Field(
                        "ATRIUM_MEETINGS_ZOOM_ACCOUNT_ID", gettext_lazy("Account id"), secret=True
                    ),
                    integrations.Field(
                        "ATRIUM_MEETINGS_ZOOM_CLIENT_ID", gettext_lazy("Client id"), secret=True
                    ),
                    integrations.Field(
                        "ATRIUM_MEETINGS_ZOOM_CLIENT_SECRET", gettext_lazy("Client secret"), secret=True
                    ),
                    integrations.Field("ATRIUM_MEETINGS_ZOOM_API_URL", gettext_lazy("API address"), url=True),
                    integrations.Field(
                        "ATRIUM_MEETINGS_ZOOM_OAUTH_URL", gettext_lazy("OAuth token address"), url=True
                    ),
                ),
                test=test_zoom,
            ),
        ),
        order=60,
    )
)

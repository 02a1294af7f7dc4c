"""Where createProviderMeeting makes a meeting: one small interface (`Provider.create`) and the
setting that picks one (ATRIUM_MEETINGS_PROVIDER, Jitsi Meet by default).

- `jitsi`: a Jitsi Meet deployment at ATRIUM_MEETINGS_JITSI_DOMAIN. A room exists once someone
  joins, so a meeting is an address, https://{domain}/{room}, made here: the room's name carries
  160 random bits. With ATRIUM_MEETINGS_JITSI_APP_ID and _APP_SECRET (a deployment with token
  authentication, or 8x8 JaaS), each participant gets a link of their own, `?jwt=` a token signed
  HS256 with `aud` "jitsi", `iss` the app id, `sub` the domain, `room`, `nbf`, `exp` (the meeting's
  end and ATRIUM_MEETINGS_TOKEN_HOURS after), and `context.user` (name, e-mail, `moderator`).
- `zoom`: Zoom's REST API with a Server-to-Server OAuth app: POST {ATRIUM_MEETINGS_ZOOM_OAUTH_URL}
  ?grant_type=account_credentials&account_id=... (Basic client id and secret) gives a token kept
  until shortly before it expires; POST {ATRIUM_MEETINGS_ZOOM_API_URL}/users/me/meetings makes a
  scheduled meeting (type 2, waiting room on) and answers its `id`, `join_url`, host-only
  `start_url` and `password`.

Without the chosen provider's settings, MeetingsNotConfigured names what an administrator sets."""

import base64
import hashlib
import logging
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol
from urllib.parse import quote

import httpx
import jwt
from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from apps.core import outbound
from apps.integrations.api import missing, setting
from apps.meetings import errors

logger = logging.getLogger(__name__)

ROOM_BITS = 160
# What Zoom's Server-to-Server OAuth needs (its addresses have defaults).
ZOOM_NEEDED = (
    "ATRIUM_MEETINGS_ZOOM_ACCOUNT_ID",
    "ATRIUM_MEETINGS_ZOOM_CLIENT_ID",
    "ATRIUM_MEETINGS_ZOOM_CLIENT_SECRET",
)


@dataclass(frozen=True)
class Invitee:
    email: str
    name: str = ""
    moderator: bool = False
    # The meeting's maker: the one given the host's own link (Zoom's start_url is their secret).
    host: bool = False


@dataclass(frozen=True)
class Link:
    invitee: Invitee
    url: str
    expires_at: datetime | None


@dataclass
class Made:
    provider: str
    room: str
    join_url: str
    host_url: str
    passcode: str = ""
    links: list[Link] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


class Provider(Protocol):
    name: str

    def create(
        self,
        *,
        title: str,
        starts_at: datetime,
        ends_at: datetime,
        invitees: list[Invitee],
        time_zone: str = "UTC",
    ) -> Made:
        """`time_zone`: the maker's, the zone the provider shows the meeting in."""
        ...


def room_name() -> str:
    """A room name no one guesses: 160 random bits, in lower-case base32 (32 characters)."""
    return base64.b32encode(secrets.token_bytes(ROOM_BITS // 8)).decode().lower().rstrip("=")


class Jitsi:
    name = "jitsi"

    def __init__(self, domain: str, app_id: str, secret: str, hours: int) -> None:
        self.domain, self.app_id, self.secret, self.hours = domain.strip().strip("/"), app_id, secret, hours

    def token(self, *, room: str, invitee: Invitee, starts_at: datetime, expires_at: datetime) -> str:
        now = timezone.now()
        claims = {
            "aud": "jitsi",
            "iss": self.app_id,
            "sub": self.domain,
            "room": room,
            "iat": int(now.timestamp()),
            "nbf": int(min(now, starts_at - timedelta(hours=1)).timestamp()),
            "exp": int(expires_at.timestamp()),
            "moderator": invitee.moderator,
            "context": {
                "user": {
                    "name": invitee.name or invitee.email,
                    "email": invitee.email,
                    "moderator": invitee.moderator,
                }
            },
        }
        return jwt.encode(claims, self.secret, algorithm="HS256")

    def create(
        self,
        *,
        title: str,
        starts_at: datetime,
        ends_at: datetime,
        invitees: list[Invitee],
        time_zone: str = "UTC",
    ) -> Made:
        room = room_name()
        join_url = f"https://{self.domain}/{room}"
        if not (self.app_id and self.secret):
            made = Made(provider=self.name, room=room, join_url=join_url, host_url=join_url)
            made.links = [Link(invitee, join_url, None) for invitee in invitees]
            return made
        expires_at = ends_at + timedelta(hours=self.hours)
        links = []
        for invitee in invitees:
            token = self.token(room=room, invitee=invitee, starts_at=starts_at, expires_at=expires_at)
            links.append(Link(invitee, f"{join_url}?jwt={quote(token)}", expires_at))
        host = next((link.url for link in links if link.invitee.host), join_url)
        return Made(provider=self.name, room=room, join_url=join_url, host_url=host, links=links)


def token_key(account_id: str, client_id: str, secret: str) -> str:
    """Where an access token is kept a while: named by the whole credential, secret included, so
    that a workspace that gives another's account and client ids (not secret) without its client
    secret never gets the token that secret earned."""
    digest = hashlib.sha256(f"{account_id}\n{client_id}\n{secret}".encode()).hexdigest()
    return f"meetings:zoom-token:{digest}"


class Zoom:
    name = "zoom"

    def __init__(self, *, account_id: str, client_id: str, secret: str, api_url: str, oauth_url: str) -> None:
        self.account_id, self.client_id, self.secret = account_id, client_id, secret
        self.api_url, self.oauth_url = api_url.rstrip("/"), oauth_url

    def _post(self, url: str, **kwargs: Any) -> dict[str, Any]:
        outbound.reached("video meeting provider")
        try:
            answer = httpx.post(
                url, timeout=settings.ATRIUM_MEETINGS_TIMEOUT_SECONDS, trust_env=False, **kwargs
            )
        except httpx.HTTPError as error:
            logger.warning("zoom unreachable (%s)", type(error).__name__)
            raise errors.MeetingProviderUnreachable(provider=self.name, kind=type(error).__name__) from None
        if answer.status_code in (400, 401, 403) and "oauth" in url:
            raise errors.MeetingProviderKeyRefused(provider=self.name, status=answer.status_code)
        if answer.status_code in (401, 403):
            cache.delete(self._token_key())
            raise errors.MeetingProviderKeyRefused(provider=self.name, status=answer.status_code)
        if answer.status_code not in (200, 201):
            logger.warning("zoom answered %s", answer.status_code)
            raise errors.MeetingProviderHttpError(provider=self.name, status=answer.status_code)
        try:
            data = answer.json()
        except ValueError:
            raise errors.MeetingProviderNotJson(provider=self.name) from None
        if not isinstance(data, dict):
            raise errors.MeetingProviderNotJson(provider=self.name)
        return data

    def _token_key(self) -> str:
        return token_key(self.account_id, self.client_id, self.secret)

    def access_token(self) -> str:
        kept = cache.get(self._token_key())
        if isinstance(kept, str) and kept:
            return kept
        data = self._post(
            self.oauth_url,
            params={"grant_type": "account_credentials", "account_id": self.account_id},
            auth=(self.client_id, self.secret),
        )
        token, lasts = data.get("access_token"), data.get("expires_in", 3600)
        if not isinstance(token, str) or not token:
            raise errors.MeetingProviderNotJson(provider=self.name)
        cache.set(
            self._token_key(), token, timeout=max(int(lasts) - 60, 30) if isinstance(lasts, int) else 600
        )
        return token

    def create(
        self,
        *,
        title: str,
        starts_at: datetime,
        ends_at: datetime,
        invitees: list[Invitee],
        time_zone: str = "UTC",
    ) -> Made:
        minutes = max(1, int((ends_at - starts_at).total_seconds() // 60))
        body = {
            "topic": title[:200],
            "type": 2,
            "start_time": starts_at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "duration": minutes,
            # start_time is UTC (its Z); the zone is the one Zoom shows the meeting in.
            "timezone": time_zone,
            "settings": {
                "join_before_host": False,
                "waiting_room": True,
                "meeting_invitees": [
                    {"email": invitee.email} for invitee in invitees if not invitee.moderator
                ],
            },
        }
        data = self._post(
            f"{self.api_url}/users/me/meetings",
            json=body,
            headers={"Authorization": f"Bearer {self.access_token()}", "Accept": "application/json"},
        )
        join_url, start_url = data.get("join_url"), data.get("start_url")
        meeting_id, password = data.get("id"), data.get("password", "")
        if (
            not isinstance(join_url, str)
            or not join_url.startswith("https://")
            or isinstance(meeting_id, bool)
            or not isinstance(meeting_id, int | str)
            or not str(meeting_id).strip()
            or not isinstance(password, str | int)
            or isinstance(password, bool)
        ):
            raise errors.MeetingProviderNotJson(provider=self.name)
        made = Made(
            provider=self.name,
            room=str(meeting_id)[:200],
            join_url=join_url[:500],
            host_url=start_url if isinstance(start_url, str) else join_url,
            passcode=str(password)[:50],
        )
        # The start link signs in as the account's host: the maker's alone, never a guest's, even
        # one made a moderator (Zoom gives them the host's role once the host assigns it).
        made.links = [
            Link(invitee, made.host_url if invitee.host else join_url, None) for invitee in invitees
        ]
        return made


def provider() -> Provider:
    """The provider the settings pick, or MeetingsNotConfigured."""
    chosen = setting("ATRIUM_MEETINGS_PROVIDER")
    if chosen == "jitsi":
        domain = str(setting("ATRIUM_MEETINGS_JITSI_DOMAIN") or "")
        if not domain:
            raise errors.MeetingsNotConfigured(provider=chosen, setting="ATRIUM_MEETINGS_JITSI_DOMAIN")
        if "/" in domain or any(char.isspace() for char in domain):
            # An address ("https://meet.example.org") would make join links that go nowhere.
            raise errors.MeetingsNotConfigured(
                provider=chosen,
                setting="ATRIUM_MEETINGS_JITSI_DOMAIN to be a host name (meet.example.org), not an address",
            )
        if bool(setting("ATRIUM_MEETINGS_JITSI_APP_ID")) != bool(setting("ATRIUM_MEETINGS_JITSI_APP_SECRET")):
            raise errors.MeetingsNotConfigured(
                provider=chosen,
                setting="ATRIUM_MEETINGS_JITSI_APP_ID and ATRIUM_MEETINGS_JITSI_APP_SECRET together",
            )
        return Jitsi(
            setting("ATRIUM_MEETINGS_JITSI_DOMAIN"),
            setting("ATRIUM_MEETINGS_JITSI_APP_ID"),
            setting("ATRIUM_MEETINGS_JITSI_APP_SECRET"),
            settings.ATRIUM_MEETINGS_TOKEN_HOURS,
        )
    if chosen == "zoom":
        absent = missing(*ZOOM_NEEDED)
        if absent:
            raise errors.MeetingsNotConfigured(provider=chosen, setting=", ".join(absent))
        return Zoom(
            account_id=setting("ATRIUM_MEETINGS_ZOOM_ACCOUNT_ID"),
            client_id=setting("ATRIUM_MEETINGS_ZOOM_CLIENT_ID"),
            secret=setting("ATRIUM_MEETINGS_ZOOM_CLIENT_SECRET"),
            api_url=setting("ATRIUM_MEETINGS_ZOOM_API_URL"),
            oauth_url=setting("ATRIUM_MEETINGS_ZOOM_OAUTH_URL"),
        )
    raise errors.MeetingsNotConfigured(
        provider=chosen, setting="ATRIUM_MEETINGS_PROVIDER to be jitsi or zoom"
    )


def configured() -> str:
    try:
        return provider().name
    except errors.MeetingsNotConfigured:
        return ""

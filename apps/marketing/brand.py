"""The workspace's brand kit (colours, fonts, logos, voice): edited on Settings → Marketing by
the area's admins, read by getBrandKit, followed by createDesign and by the copy a model writes."""

import re
from typing import Any

from django.utils.translation import gettext as _

from apps.core import clean
from apps.core.actors import Actor, require
from apps.core.errors import invalid
from apps.marketing.models import BrandKit
from apps.marketing.permissions import MarketingPerm

COLOUR = re.compile(r"#[0-9a-fA-F]{6}")
DEFAULT_COLOURS = ["#1F4E79", "#F2A900", "#FFFFFF", "#222222"]


def kit() -> BrandKit:
    return BrandKit.current()


def colours() -> list[str]:
    """The kit's colours, the service's own when it names none (primary, accent, light, dark)."""
    given = [str(colour) for colour in kit().colours]
    return given + DEFAULT_COLOURS[len(given) :] if len(given) < len(DEFAULT_COLOURS) else given


def voice() -> str:
    return kit().voice


def update(*, actor: Actor, fields: dict[str, Any]) -> BrandKit:
    require(actor, MarketingPerm.ADMIN)
    found = kit()
    if "colours" in fields:
        given = [str(colour).strip() for colour in fields["colours"] or []]
        if len(given) > 8:
            raise invalid("colours", _("at most 8 colours"))
        for colour in given:
            if not COLOUR.fullmatch(colour):
                raise invalid("colours", _("{colour!r} is not a colour like #1F4E79"), colour=colour[:20])
        found.colours = [colour.upper() for colour in given]
    for name in ("heading_font", "body_font"):
        if name in fields:
            setattr(found, name, clean.text(fields[name], field=name, limit=80) or "DejaVu Sans")
    if "voice" in fields:
        found.voice = clean.long_text(fields["voice"], field="voice", limit=1000)
    if "logo_file_ids" in fields:
        found.logo_file_ids = [int(value) for value in fields["logo_file_ids"] or []][:5]
    found.save()
    return found

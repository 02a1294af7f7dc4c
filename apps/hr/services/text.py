"""Small checks of what people and agents give the talent services (reviews to hiring)."""

from typing import Any

from django.utils.translation import gettext as _

from apps.core.errors import invalid


def clean(value: Any, *, field: str, limit: int, required: bool = True) -> str:
    """Text with its spaces tidied, required unless said, at most `limit` characters."""
    text = " ".join(str(value or "").split())
    if required and not text:
        raise invalid(field, _("is required and cannot be empty"))
    if len(text) > limit:
        raise invalid(field, _("at most {limit} characters"), limit=limit)
    return text


def long_text(value: Any, *, field: str, limit: int, required: bool = False) -> str:
    """Text that keeps its lines (an assessment, a description)."""
    text = str(value or "").replace("\x00", "").strip()
    if required and not text:
        raise invalid(field, _("is required and cannot be empty"))
    if len(text) > limit:
        raise invalid(field, _("at most {limit} characters"), limit=limit)
    return text


def person_by_email(email: str, *, field: str) -> Any:
    """The active person of the workspace with that e-mail address."""
    from apps.accounts.models import User

    found = User.objects.filter(email__iexact=(email or "").strip(), is_active=True).first()
    if found is None:
        raise invalid(field, _("{email!r} is no active person of this workspace"), email=email)
    return found

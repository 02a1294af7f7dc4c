"""Landing pages as a spreadsheet (apps.core.transfer): the pages a person may see, each its name,
address, title, state, campaign, visits and conversions, not its blocks. Export only: a page is
written through its tools, where its HTML is sanitised and its address kept unique. Conversions are
not rows here: each names a Form Builder submission, exported with the form's submissions."""

from typing import Any

from django.utils.translation import gettext_lazy as _

from apps.core import transfer
from apps.marketing.models import LandingPage
from apps.marketing.permissions import MarketingPerm


def _rows(actor: Any) -> Any:
    return LandingPage.objects.restrict(actor, "view").select_related("owner", "campaign").order_by("id")


def _campaign(page: LandingPage) -> str:
    """The campaign's name when it is the workspace's (a private one is named to nobody here)."""
    found = page.campaign
    return (
        found.name if found is not None and found.visibility == "workspace" and not found.deleted_at else ""
    )


transfer.exportable(
    transfer.Exportable(
        kind="landing_page",
        label=_("Landing page"),
        permission=MarketingPerm.VIEW,
        columns=(
            ("id", lambda page: page.pk),
            ("name", lambda page: page.name),
            ("slug", lambda page: page.slug),
            ("title", lambda page: page.title),
            ("description", lambda page: page.description),
            ("status", lambda page: page.status),
            ("visibility", lambda page: page.visibility),
            ("campaign", _campaign),
            ("visits", lambda page: page.visits),
            ("conversions", lambda page: page.conversions),
            ("publishedAt", lambda page: page.published_at),
            ("ownerEmail", lambda page: page.owner.email if page.owner else ""),
            ("createdAt", lambda page: page.created_at),
        ),
        rows=_rows,
        search=("name", "slug", "title"),
    )
)

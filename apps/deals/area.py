"""The Deals Pipeline area, as the rest of the service knows it (apps.core.areas)."""

from django.utils.translation import gettext_lazy as _

from apps.core import areas
from apps.core.navigation import NavItem
from apps.deals.permissions import DealsPerm

area = areas.declare(
    title=_("Deals Pipeline"),
    description=_(
        "Sales pipelines with ordered stages, deals from first contact to won or lost, "
        "follow-ups, deal finders and reachout campaigns"
    ),
    words="deal deals opportunity opportunities sales pipeline funnel prospect lead won lost forecast crm",
    # Search hints come with each tool (atrium.E105: only for tools the area has).
    hints={},
    nav=[NavItem("deals", _("Deals"), "deals:board", DealsPerm.VIEW, order=37)],
)

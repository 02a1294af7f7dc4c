"""The HR area, as the rest of the service knows it (apps.core.areas)."""

from django.utils.translation import gettext_lazy as _

from apps.core import areas
from apps.core.navigation import NavItem
from apps.hr.permissions import HrPerm

# Per tool, what people call what it does (searchTools). Employees, leave, time, onboarding:
PEOPLE_HINTS: dict[str, str] = {}

# Reviews, training, policies, grievances, hiring:
TALENT_HINTS: dict[str, str] = {}

area = areas.declare(
    title=_("HR"),
    description=_("Employees, leave, time clock, onboarding, reviews, training, policies and hiring"),
    words=(
        "hr human resources employee staff personnel worker colleague leave holiday vacation pto "
        "absence time off clock timesheet shift onboarding new hire review appraisal training "
        "policy grievance hiring recruiting candidate applicant"
    ),
    hints={**PEOPLE_HINTS, **TALENT_HINTS},
    nav=[NavItem("hr", _("HR"), "hr:home", HrPerm.VIEW, order=37)],
)

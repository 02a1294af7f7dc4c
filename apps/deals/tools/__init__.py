"""The Deals Pipeline area of the catalogue (SPEC 4.7): thin doors onto services and selectors.

One module per subject. The catalogue autodiscovers `apps.deals.tools`; importing the modules
here is what registers their tools."""

from apps.deals.tools import (  # noqa: F401  (registers them)
    activity,
    campaigns,
    deals,
    finders,
    mail,
    overview,
    pipelines,
)

"""How the tool-call log names the gateway's own credential: the service's agent running a
conversation whose access token is not known (`Principal.credential` "gateway")."""

from collections.abc import Mapping

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from apps.core import credentials


@credentials.namer("gateway", kind=gettext_lazy("message gateway"))
def gateway_names(ids: list[str]) -> Mapping[str, str]:
    return {"": _("the service's agent")} if "" in ids else {}

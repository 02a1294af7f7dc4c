"""A credential scheme for testing the transport alone: `Authorization: Bearer test:<email>`,
optionally `test:<email>:<scope>,<scope>`. Never installed outside `support.settings`."""

from apps.accounts.models import User
from apps.core import credentials
from apps.core.credentials import CredentialRequest, Principal
from apps.core.errors import AppError, Unauthenticated


class OverBudget(AppError):
    code = "BUDGET_EXCEEDED"
    message = "The key's budget is spent."
    http_status = 429


@credentials.register(order=5)
def test_bearer(request: CredentialRequest) -> Principal | None:
    header = request.headers.get("authorization", "")
    if not header.startswith("Bearer test:"):
        return None
    _test, email, *rest = header.removeprefix("Bearer ").split(":")
    if email == "over-budget":
        raise OverBudget(headers={"Retry-After": "3600"})
    user = User.objects.select_related("role").filter(email=email, is_active=True).first()
    if user is None:
        raise Unauthenticated()
    # Scopes may hold colons themselves (`mcp:read`): everything after the e-mail address.
    scopes = frozenset(":".join(rest).split(",")) if rest else frozenset({"mcp"})
    return Principal(user=user, scheme="test", scopes=scopes, credential=f"test:{user.pk}", client="tests")

from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.access import effective_permissions
from apps.accounts.requests import AuthenticatedRequest
from apps.core.workspaces import current_workspace


class MeView(APIView):
    """Who the credential belongs to, and what they may do here."""

    def get(self, request: AuthenticatedRequest) -> Response:
        user = request.user
        workspace = current_workspace()
        return Response(
            {
                "id": user.pk,
                "email": user.email,
                "full_name": user.full_name,
                "role": {"key": user.role.key, "name": user.role.name} if user.role else None,
                "permissions": sorted(effective_permissions(user)),
                "workspace": {"name": workspace.name, "brand_name": workspace.brand_name}
                if workspace
                else None,
            }
        )

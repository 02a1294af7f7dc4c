"""`/api/api-keys` (SPEC 4.5) and `/api/mcp/quick-setup` (SPEC 4.2): thin doors onto the services.

Authenticated by a personal access token (`Authorization: Bearer atp_…`) or by the signed-in
session of the settings pages (CSRF-checked). A caller sees and changes only their own keys:
another person's key id is 404 NOT_FOUND.
"""

from datetime import timedelta
from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.requests import AuthenticatedRequest
from apps.apikeys import errors, selectors, services
from apps.apikeys.api import serializers as s
from apps.apikeys.models import ApiKey
from apps.core import workspaces
from apps.core.api.schema import error_responses, operations


def _record(key: ApiKey, *, detail: bool = False) -> dict[str, Any]:
    record = s.key_record(key, selectors.key_usage(key=key))
    if detail:
        record["daily_usage"] = selectors.usage_days(key=key)
    return record


def _validated(serializer_class: type, request: Request, **kwargs: Any) -> dict[str, Any]:
    if request.data is None or not isinstance(request.data, dict):
        if request.data in (None, b"", "") and request.method in {"POST", "PUT", "PATCH"}:
            return {}
        raise errors.BodyNotObject(details={"non_field_errors": ["not an object"]})
    serializer = serializer_class(data=request.data, **kwargs)
    serializer.is_valid(raise_exception=True)
    # Only what the caller sent: a field left out of an update stays as it is.
    return {name: value for name, value in serializer.validated_data.items() if name in request.data}


def _shown_once(body: dict[str, Any], code: int = status.HTTP_200_OK) -> Response:
    """An answer that holds a secret shown this once: nothing on the way may keep a copy."""
    response = Response(body, status=code)
    response["Cache-Control"] = "no-store"
    return response


KEY_ID = OpenApiParameter("key_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The key's id.")
# An operation on one of the caller's keys.
_key_operation = operations("API keys", parameters=[KEY_ID])


class ApiKeyListView(APIView):
    @extend_schema(
        operation_id="listApiKeys",
        summary="List your API keys",
        tags=["API keys"],
        parameters=[
            OpenApiParameter(
                "status",
                OpenApiTypes.STR,
                enum=["active", "revoked"],
                required=False,
                description="Only active or only revoked keys (default: both).",
            )
        ],
        responses={200: s.ApiKeyListSerializer, **error_responses(401, 422)},
    )
    def get(self, request: AuthenticatedRequest) -> Response:
        wanted = request.query_params.get("status")
        if wanted not in (None, "", "active", "revoked"):
            raise errors.UnknownStatus(details={"status": [_("must be active or revoked")]})
        keys = list(selectors.api_key_list(user=request.user, status=wanted or None))
        usage = selectors.key_usage_many(keys)
        return Response({"data": [s.key_record(key, usage[key.pk]) for key in keys]})

    @extend_schema(
        operation_id="createApiKey",
        summary="Create an API key",
        description="Every field is optional. The response holds the key and its signing secret: "
        "they are shown this once and never again.",
        tags=["API keys"],
        request=s.ApiKeyWriteSerializer,
        responses={201: s.ApiKeyCreatedSerializer, **error_responses(400, 401, 422)},
        examples=[
            OpenApiExample(
                "A key for a script with a $5 daily budget",
                request_only=True,
                value={
                    "label": "Nightly report",
                    "response_url": "https://hooks.example.com/atrium",
                    "budget_usd_cents": 500,
                    "budget_period": "daily",
                },
            )
        ],
    )
    def post(self, request: AuthenticatedRequest) -> Response:
        fields = _validated(s.ApiKeyWriteSerializer, request)
        created = services.api_key_create(user=request.user, **fields)
        body = _record(created.key)
        body["key"] = created.raw_key
        body["signing_secret"] = created.signing_secret
        return _shown_once(body, status.HTTP_201_CREATED)


class ApiKeyDetailView(APIView):
    @_key_operation(
        operation_id="getApiKey",
        summary="An API key's details and usage",
        responses={200: s.ApiKeyDetailSerializer, **error_responses(401, 404)},
    )
    def get(self, request: AuthenticatedRequest, key_id: int) -> Response:
        key = selectors.api_key_get(user=request.user, key_id=key_id)
        return Response(_record(key, detail=True))

    @_key_operation(
        operation_id="updateApiKey",
        summary="Change an API key's label, webhook URL or budget",
        description="Fields left out stay as they are. A revoked key cannot be changed (403 KEY_REVOKED).",
        request=s.ApiKeyWriteSerializer,
        responses={200: s.ApiKeyDetailSerializer, **error_responses(400, 401, 403, 404, 422)},
    )
    def put(self, request: AuthenticatedRequest, key_id: int) -> Response:
        key = selectors.api_key_get(user=request.user, key_id=key_id)
        fields = _validated(s.ApiKeyWriteSerializer, request)
        key = services.api_key_update(actor=request.user, key=key, **fields)
        return Response(_record(key, detail=True))

    @_key_operation(
        operation_id="patchApiKey",
        summary="Change an API key (the same as PUT)",
        request=s.ApiKeyWriteSerializer,
        responses={200: s.ApiKeyDetailSerializer, **error_responses(400, 401, 403, 404, 422)},
    )
    def patch(self, request: AuthenticatedRequest, key_id: int) -> Response:
        return self.put(request, key_id)

    @_key_operation(
        operation_id="revokeApiKey",
        summary="Revoke an API key",
        description="The key stops working at once (403 KEY_REVOKED) and is kept with its usage. "
        "Revoking a revoked key changes nothing.",
        request=None,
        responses={200: s.ApiKeyDetailSerializer, **error_responses(401, 404)},
    )
    def delete(self, request: AuthenticatedRequest, key_id: int) -> Response:
        key = selectors.api_key_get(user=request.user, key_id=key_id)
        key = services.api_key_revoke(actor=request.user, key=key)
        return Response(_record(key, detail=True))


class RollSigningSecretView(APIView):
    @_key_operation(
        operation_id="rollApiKeySigningSecret",
        summary="Roll an API key's webhook signing secret",
        description="Returns the new secret once. During the overlap the old secret still signs "
        "each webhook, in the X-Signature-Previous header, beside X-Signature (new secret).",
        request=s.RollSecretSerializer,
        responses={200: s.RolledSecretSerializer, **error_responses(400, 401, 403, 404, 422)},
    )
    def post(self, request: AuthenticatedRequest, key_id: int) -> Response:
        key = selectors.api_key_get(user=request.user, key_id=key_id)
        fields = _validated(s.RollSecretSerializer, request)
        hours = fields.get("overlap_hours")
        key, secret = services.signing_secret_roll(
            actor=request.user, key=key, overlap=None if hours is None else timedelta(hours=hours)
        )
        body = _record(key)
        body["signing_secret"] = secret
        return _shown_once(body)


class QuickSetupView(APIView):
    @extend_schema(
        operation_id="quickSetup",
        summary="Credentials and a ready-made MCP client configuration",
        description="Creates a new personal access token and a new API key (no budget) and returns "
        "them, shown this once, with the configuration for the chosen client. An unknown client "
        "is 422, naming the accepted values.",
        tags=["Quick setup"],
        request=s.QuickSetupRequestSerializer,
        responses={201: s.QuickSetupSerializer, **error_responses(400, 401, 422)},
    )
    def post(self, request: AuthenticatedRequest) -> Response:
        if isinstance(request.data, dict) and "client" in request.data:
            client = request.data["client"]
            if not isinstance(client, str) or client not in s.clients.CLIENTS:
                raise services.unknown_client_error(client)
        fields = _validated(s.QuickSetupRequestSerializer, request)
        setup = services.quick_setup(
            user=request.user,
            client=fields.get("client", "generic"),
            label=fields.get("label", ""),
            profile=fields.get("profile"),
            base_url=request.build_absolute_uri("/").rstrip("/"),
            server_name=workspaces.brand(),
        )
        return _shown_once(
            {
                "client": setup.client.name,
                "server_name": setup.server_name,
                "mcp_url": setup.mcp_url,
                "profile": setup.created.key.profile or None,
                "access_token": setup.raw_token,
                "access_token_id": setup.token.pk,
                "access_token_expires_at": setup.token.expires_at,
                "api_key": setup.created.raw_key,
                "api_key_id": setup.created.key.pk,
                "signing_secret": setup.created.signing_secret,
                "config": setup.config,
                "config_format": str(setup.client.config_format),
                "command": setup.command or None,
                "docs": setup.client.docs or None,
                "instructions": [str(line) for line in setup.client.instructions],
                "oauth_capable": setup.client.oauth_capable,
            },
            status.HTTP_201_CREATED,
        )

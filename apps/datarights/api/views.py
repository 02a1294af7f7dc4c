"""`POST /api/data-request` (SPEC 4.6), on every workspace host."""

import hashlib
import hmac
import logging

from django.conf import settings
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.api.schema import error_responses
from apps.core.errors import PayloadTooLarge, RateLimited
from apps.datarights import errors, ratelimit, services
from apps.datarights.api.serializers import DataRequestSerializer

logger = logging.getLogger(__name__)


def secret_matches(header: str) -> bool:
    """Constant time, whatever the lengths: both sides are hashed before they are compared."""
    secret = settings.DATA_REQUEST_SHARED_SECRET
    if not secret:
        logger.warning("data request refused: DATA_REQUEST_SHARED_SECRET is not configured")
        return False
    scheme, _space, presented = header.partition(" ")
    if scheme.lower() != "bearer":
        presented = ""
    presented_digest = hashlib.sha256(presented.strip().encode()).digest()
    return hmac.compare_digest(presented_digest, hashlib.sha256(secret.encode()).digest()) and bool(
        presented.strip()
    )


class DataRequestView(APIView):
    """Accepts a data-rights request for the data team: `202` with the request's reference."""

    # The shared secret is this door's only credential; no session, so no CSRF either.
    authentication_classes: list = []
    permission_classes: list = []

    @extend_schema(
        operation_id="data_request_create",
        summary="Send a data-rights request to the data team",
        request=DataRequestSerializer,
        # A security requirement, as drf-spectacular uses it (its annotation says scheme names).
        auth=[{"dataRequestSecret": []}],  # type: ignore[list-item]
        responses={
            202: OpenApiResponse(
                response=inline_serializer(
                    name="DataRequestAccepted",
                    fields={
                        "reference": serializers.CharField(help_text="DR-XXXX-XXXX"),
                        "status": serializers.CharField(help_text="accepted"),
                        "message": serializers.CharField(),
                    },
                ),
                description="Stored and passed to the data team (a repeat gets the same reference).",
            ),
            **error_responses(
                400,
                401,
                413,
                415,
                422,
                429,
                descriptions={
                    401: "UNAUTHENTICATED: the shared secret is missing or wrong (or none is configured).",
                    413: "PAYLOAD_TOO_LARGE: the body is over the limit.",
                    429: "RATE_LIMITED: too many requests from this address; Retry-After says when to retry.",
                },
            ),
        },
    )
    def post(self, request: Request) -> Response:
        decision = ratelimit.hit(
            "data-request",
            request.META.get("REMOTE_ADDR", ""),
            limit=settings.DATA_REQUEST_RATE_LIMIT,
            window=settings.DATA_REQUEST_RATE_WINDOW_SECONDS,
        )
        if not decision.allowed:
            raise RateLimited(headers={"Retry-After": str(decision.retry_after)})
        if not secret_matches(request.META.get("HTTP_AUTHORIZATION", "")):
            raise errors.InvalidSharedSecret()
        length = request.META.get("CONTENT_LENGTH") or "0"
        if not length.isdigit():
            raise errors.LengthNotANumber()
        if int(length) > settings.DATA_REQUEST_MAX_BODY_BYTES:
            raise PayloadTooLarge()
        serializer = DataRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        workspace = getattr(request, "tenant", None)
        if workspace is not None and workspace.schema_name == "public":
            workspace = None
        data_request, _created = services.data_request_receive(
            data=serializer.validated_data, host=request.get_host(), workspace=workspace
        )
        return Response(
            {
                "reference": data_request.reference,
                "status": "accepted",
                "message": _("The request has been received and passed to the data team."),
            },
            status=202,
        )

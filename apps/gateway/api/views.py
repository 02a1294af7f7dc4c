"""`/api/agent` (SPEC 4.4): send a message, poll a conversation, list and cancel. Thin doors onto
the services; the personal access token and the API key are checked by the one check of
apps.apikeys (every SPEC 7.1 refusal, in order), before anything else."""

from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse
from rest_framework import status as http
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.requests import AuthenticatedRequest
from apps.apikeys.authentication import KeyCredential, check_budget
from apps.core.api.schema import error_responses, operations
from apps.core.errors import FieldsInvalid
from apps.gateway import selectors, services, validation
from apps.gateway.api import serializers as s
from apps.gateway.authentication import GatewayAuthentication
from apps.gateway.errors import BodyTooLarge
from apps.gateway.models import Conversation

# 10,000 characters of four-byte UTF-8 written as JSON escapes, plus metadata, with room to spare.
MAX_BODY_BYTES = 256 * 1024
LIST_LIMIT_MAX = 100

CONVERSATION_UUID = OpenApiParameter(
    "conversation_uuid",
    OpenApiTypes.UUID,
    OpenApiParameter.PATH,
    description="From the 202 of POST /api/agent.",
)
IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    required=False,
    description="Any unique string (a UUID): a retried POST with the same key and body returns the first "
    "answer (header Idempotent-Replayed: true) instead of starting a second conversation. Kept as long "
    "as the conversation (24 hours).",
)
RETRY_AFTER = OpenApiParameter(
    "Retry-After",
    OpenApiTypes.INT,
    OpenApiParameter.HEADER,
    response=[200, 202],
    description="While the conversation is unfinished: seconds to wait before polling again.",
)
_operation = operations("Message gateway")


class GatewayRequest(AuthenticatedRequest):
    """A request GatewayAuthentication let in: its person, and the key credential it checked."""

    auth: KeyCredential


class GatewayView(APIView):
    """Token and key checked; a spent budget refuses sending only (apps.gateway.authentication)."""

    authentication_classes = [GatewayAuthentication]
    permission_classes = [IsAuthenticated]


def _accepted_body(conversation: Conversation) -> dict[str, Any]:
    return {
        "conversation_uuid": str(conversation.uuid),
        "status": "accepted",
        "message": _(
            "Your message is queued for the agent. Poll GET /api/agent/%(uuid)s for the reply, or wait for "
            "the webhook if your API key has one."
        )
        % {"uuid": conversation.uuid},
    }


def _with_retry_after(response: Response, conversation: Conversation) -> Response:
    if not conversation.is_finished:
        response["Retry-After"] = str(settings.GATEWAY_POLL_RETRY_AFTER_SECONDS)
    return response


class AgentView(GatewayView):
    @_operation(
        operation_id="sendAgentMessage",
        summary="Send a message to the workspace's agent",
        description="Answers 202 at once: the agent works on a worker. Poll the conversation, or receive "
        "the webhook of the API key. A message whose key's budget is spent is refused with 429.",
        parameters=[IDEMPOTENCY_KEY, RETRY_AFTER],
        request=s.AgentRequestSerializer,
        responses={
            202: OpenApiResponse(s.AcceptedSerializer, description="Queued."),
            **error_responses(400, 401, 403, 413, 415, 422, 429),
        },
        examples=[
            OpenApiExample(
                "Find a contact",
                request_only=True,
                value={
                    "message": "Find contacts named Ada",
                    "context": {"entity_type": "contact", "action": "search"},
                },
            )
        ],
    )
    def post(self, request: GatewayRequest) -> Response:
        check_budget(key=request.auth.key)
        length = request.META.get("CONTENT_LENGTH") or "0"
        if length.isdigit() and int(length) > MAX_BODY_BYTES:
            raise BodyTooLarge(most=MAX_BODY_BYTES // 1024)
        idempotency_key = validation.clean_idempotency_key(request.headers.get("Idempotency-Key"))
        agent_request = validation.clean(request.data)
        accepted = services.conversation_accept(
            credential=request.auth, request=agent_request, idempotency_key=idempotency_key
        )
        conversation = accepted.conversation
        response = Response(_accepted_body(conversation), status=http.HTTP_202_ACCEPTED)
        response["Location"] = f"/api/agent/{conversation.uuid}"
        response["Retry-After"] = str(settings.GATEWAY_POLL_RETRY_AFTER_SECONDS)
        if accepted.replayed:
            response["Idempotent-Replayed"] = "true"
        return response

    @_operation(
        operation_id="listAgentConversations",
        summary="Your recent conversations",
        description="Newest first, those not yet expired (24 hours), a page at a time: pass `next_cursor` "
        "as `cursor` for the next page.",
        parameters=[
            OpenApiParameter("status", OpenApiTypes.STR, enum=Conversation.Status.values, required=False),
            OpenApiParameter("limit", OpenApiTypes.INT, required=False, description="1-100 (default 20)."),
            OpenApiParameter("cursor", OpenApiTypes.STR, required=False),
        ],
        responses={200: s.ConversationListSerializer, **error_responses(401, 403, 422)},
    )
    def get(self, request: GatewayRequest) -> Response:
        params = request.query_params
        problems: dict[str, list[str]] = {}
        wanted = params.get("status") or None
        if wanted is not None and wanted not in Conversation.Status.values:
            problems["status"] = [
                _("One of: %(values)s.") % {"values": ", ".join(Conversation.Status.values)}
            ]
        raw_limit = params.get("limit") or "20"
        limit = int(raw_limit) if raw_limit.isdigit() else 0
        if not 1 <= limit <= LIST_LIMIT_MAX:
            problems["limit"] = [_("A whole number from 1 to %(max)d.") % {"max": LIST_LIMIT_MAX}]
        rows = selectors.conversation_list(user=request.user, status=wanted)
        cursor = params.get("cursor")
        if cursor:
            after = selectors.after_cursor(rows, cursor)
            if after is None:
                problems["cursor"] = [_("Not a cursor this API gave.")]
            else:
                rows = after
        if problems:
            raise FieldsInvalid.of(problems)
        page = list(rows.order_by("-created_at", "-pk")[: limit + 1])
        more = len(page) > limit
        page = page[:limit]
        return Response(
            {
                "data": [s.conversation_body(conversation, turns=False) for conversation in page],
                "next_cursor": selectors.encode_cursor(page[-1]) if more and page else None,
            }
        )


class ConversationView(GatewayView):
    @_operation(
        operation_id="getAgentConversation",
        summary="Poll a conversation",
        description="SPEC 2.1's conversation, with its cost. While it is open or processing the answer "
        "carries Retry-After. Unknown, expired (24 hours after creation) or another person's: 404.",
        parameters=[CONVERSATION_UUID, RETRY_AFTER],
        responses={
            200: OpenApiResponse(s.ConversationSerializer, description="The conversation."),
            **error_responses(401, 403, 404),
        },
    )
    def get(self, request: GatewayRequest, conversation_uuid: str) -> Response:
        conversation = selectors.conversation_get(user=request.user, conversation_uuid=conversation_uuid)
        return _with_retry_after(Response(s.conversation_body(conversation)), conversation)


class CancelView(GatewayView):
    @_operation(
        operation_id="cancelAgentConversation",
        summary="Cancel a conversation",
        description="An open or processing conversation fails at once with error CANCELLED (and its "
        "webhook is sent); a tool the agent already ran stays done. Cancelling it again answers the same; "
        "a conversation that ended otherwise is a 409.",
        parameters=[CONVERSATION_UUID],
        request=None,
        responses={200: s.ConversationSerializer, **error_responses(401, 403, 404, 409)},
    )
    def post(self, request: GatewayRequest, conversation_uuid: str) -> Response:
        conversation = selectors.conversation_get(user=request.user, conversation_uuid=conversation_uuid)
        services.conversation_cancel(conversation=conversation)
        conversation = selectors.conversation_get(user=request.user, conversation_uuid=conversation_uuid)
        return Response(s.conversation_body(conversation))

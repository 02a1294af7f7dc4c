"""Request and response bodies of the key-management and quick-setup endpoints.

Request serializers check types only (and refuse unknown fields, so a misspelt field is an error
rather than silently ignored); the rules live in the services, shared with the settings pages.
Response serializers exist so the OpenAPI schema describes exactly what is sent.

The fields named `label` and `data` are ignored by the type checker on purpose: DRF takes declared
fields off the class, so they shadow nothing of Field or Serializer at run time.
"""

from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _
from rest_framework import serializers

from apps.apikeys import clients
from apps.apikeys.models import MAX_BUDGET_USD_CENTS, ApiKey, BudgetPeriod
from apps.apikeys.selectors import KeyUsage


class StrictSerializer(serializers.Serializer):
    """Refuses fields it does not know, and bodies that are not JSON objects."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError(
                    {name: [_("Unknown field.")] for name in unknown}
                    | {
                        "non_field_errors": [
                            _("Unknown fields: %(names)s. Accepted: %(accepted)s.")
                            % {"names": ", ".join(unknown), "accepted": ", ".join(self.fields)}
                        ]
                    }
                )
        return super().to_internal_value(data)


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer: no strings, no booleans, no fractions."""

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int | float) or int(data) != data:
            self.fail("invalid")
        return super().to_internal_value(int(data))


class StrictCharField(serializers.CharField):
    """A JSON string, not a number turned into one."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class ApiKeyWriteSerializer(StrictSerializer):
    """SPEC 2.2: every field optional."""

    label = StrictCharField(  # type: ignore[assignment]
        required=False,
        allow_blank=True,
        allow_null=True,
        max_length=100,
        trim_whitespace=True,
        help_text="Name of the key (default: “API key”).",
    )
    response_url = StrictCharField(
        required=False,
        allow_blank=True,
        allow_null=True,
        max_length=2000,
        help_text="Where webhook replies are delivered: https to a public address. Empty or null: none.",
    )
    budget_usd_cents = StrictIntegerField(
        required=False,
        allow_null=True,
        min_value=0,
        max_value=MAX_BUDGET_USD_CENTS,
        help_text="Spending cap in US cents for the period; null: unlimited.",
    )
    budget_period = serializers.ChoiceField(
        choices=BudgetPeriod.values,
        required=False,
        help_text="daily (resets at midnight), monthly (on the 1st), total (never); workspace time zone. "
        "Default on create: monthly.",
    )
    profile = StrictCharField(
        required=False,
        allow_blank=True,
        allow_null=True,
        max_length=40,
        help_text="Pins the key to a tool profile (the server card lists them): MCP requests with it "
        "list only that profile's tools. Empty or null: none.",
    )


class RollSecretSerializer(StrictSerializer):
    overlap_hours = StrictIntegerField(
        required=False,
        min_value=0,
        max_value=168,
        help_text="How long the old secret keeps signing beside the new one "
        "(header X-Signature-Previous). Default: the workspace setting, 24 hours.",
    )


class UsagePeriodSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=BudgetPeriod.values)
    started_at = serializers.DateTimeField(allow_null=True, help_text="null for a total budget")
    resets_at = serializers.DateTimeField(allow_null=True, help_text="null: never (total budget)")
    spent_micro_usd = serializers.IntegerField(help_text="Settled spend in this period (1 cent = 10,000).")
    reserved_micro_usd = serializers.IntegerField(help_text="Held by model calls under way.")
    remaining_micro_usd = serializers.IntegerField(allow_null=True, help_text="null: unlimited.")
    budget_used_percent = serializers.FloatField(allow_null=True)


class UsageSerializer(serializers.Serializer):
    period = UsagePeriodSerializer()
    spent_today_micro_usd = serializers.IntegerField()
    spent_total_micro_usd = serializers.IntegerField()
    conversations_today = serializers.IntegerField()
    conversations_total = serializers.IntegerField()
    calls_total = serializers.IntegerField(help_text="Settled model calls.")
    last_used_at = serializers.DateTimeField(allow_null=True)


class UsageDaySerializer(serializers.Serializer):
    date = serializers.DateField()
    spent_micro_usd = serializers.IntegerField()
    calls = serializers.IntegerField()
    conversations = serializers.IntegerField()


class ApiKeySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    label = serializers.CharField()  # type: ignore[assignment]
    prefix = serializers.CharField(help_text="What every key starts with.")
    last_four = serializers.CharField()
    status = serializers.ChoiceField(choices=["active", "revoked"])
    response_url = serializers.CharField(allow_null=True)
    budget_usd_cents = serializers.IntegerField(allow_null=True)
    budget_period = serializers.ChoiceField(choices=BudgetPeriod.values)
    profile = serializers.CharField(allow_null=True, help_text="The tool profile the key is pinned to.")
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    last_used_at = serializers.DateTimeField(allow_null=True)
    revoked_at = serializers.DateTimeField(allow_null=True)
    signing_secret_rolled_at = serializers.DateTimeField(allow_null=True)
    previous_signing_secret_expires_at = serializers.DateTimeField(
        allow_null=True, help_text="While set and in the future, webhooks also carry X-Signature-Previous."
    )
    usage = UsageSerializer()


class ApiKeyDetailSerializer(ApiKeySerializer):
    daily_usage = UsageDaySerializer(many=True, help_text="The last 30 days, oldest first.")


class ApiKeyCreatedSerializer(ApiKeySerializer):
    key = serializers.CharField(help_text="The key itself (X-Api-Key). Shown only in this response.")
    signing_secret = serializers.CharField(
        help_text="HMAC-SHA256 key of the webhooks' X-Signature. Shown only in this response."
    )


class ApiKeyListSerializer(serializers.Serializer):
    data = ApiKeySerializer(many=True)  # type: ignore[assignment]


class RolledSecretSerializer(ApiKeySerializer):
    signing_secret = serializers.CharField(help_text="The new signing secret. Shown only in this response.")


class QuickSetupRequestSerializer(StrictSerializer):
    client = serializers.ChoiceField(
        choices=clients.names(),
        required=False,
        default="generic",
        error_messages={
            "invalid_choice": _("“{input}” is not a known client. Accepted: %(names)s.")
            % {"names": ", ".join(clients.names())}
        },
        help_text="Which client the configuration is for. Default: generic.",
    )
    label = StrictCharField(  # type: ignore[assignment]
        required=False, allow_blank=True, max_length=80, help_text="Names the token and key."
    )
    profile = StrictCharField(
        required=False,
        allow_blank=True,
        max_length=40,
        help_text="A tool profile to pin the key to; the configuration's URL names it. Default: the "
        "one that suits the client (essentials for cursor, vscode, windsurf and openai; none for the "
        "others); an empty string for none.",
    )


class QuickSetupSerializer(serializers.Serializer):
    client = serializers.ChoiceField(choices=clients.names())
    server_name = serializers.CharField(
        help_text="The workspace's brand name: the configuration's server key."
    )
    mcp_url = serializers.URLField()
    profile = serializers.CharField(allow_null=True, help_text="The profile the new key is pinned to.")
    access_token = serializers.CharField(
        help_text="A new personal access token. Shown only in this response."
    )
    access_token_id = serializers.IntegerField()
    access_token_expires_at = serializers.DateTimeField()
    api_key = serializers.CharField(help_text="A new API key (X-Api-Key). Shown only in this response.")
    api_key_id = serializers.IntegerField()
    signing_secret = serializers.CharField(help_text="The new key's webhook signing secret. Shown only here.")
    config = serializers.DictField(help_text="The configuration to paste into the client.")
    config_format = serializers.CharField(help_text="Where the configuration goes, in a few words.")
    command = serializers.CharField(
        allow_null=True, help_text="For clients that add a server from a terminal: the command that does it."
    )
    docs = serializers.URLField(
        allow_null=True, help_text="The client's own documentation this configuration follows."
    )
    instructions = serializers.ListField(child=serializers.CharField())
    oauth_capable = serializers.BooleanField(
        help_text="True when this kind of client can sign in by OAuth with the MCP URL alone."
    )


def key_record(key: ApiKey, usage: KeyUsage) -> dict[str, Any]:
    budget = usage.budget
    return {
        "id": key.pk,
        "label": key.label,
        "prefix": f"{settings.API_KEY_PREFIX}_",
        "last_four": key.last_four,
        "status": key.status,
        "response_url": key.response_url or None,
        "budget_usd_cents": key.budget_usd_cents,
        "budget_period": key.budget_period,
        "profile": key.profile or None,
        "created_at": key.created_at,
        "updated_at": key.updated_at,
        "last_used_at": key.last_used_at,
        "revoked_at": key.revoked_at,
        "signing_secret_rolled_at": key.signing_secret_rolled_at,
        "previous_signing_secret_expires_at": key.previous_signing_secret_expires_at
        if key.has_previous_secret()
        else None,
        "usage": {
            "period": {
                "kind": budget.period.kind,
                "started_at": budget.period.started_at,
                "resets_at": budget.period.resets_at,
                "spent_micro_usd": budget.spent_micro_usd,
                "reserved_micro_usd": budget.reserved_micro_usd,
                "remaining_micro_usd": budget.remaining_micro_usd,
                "budget_used_percent": usage.budget_used_percent,
            },
            "spent_today_micro_usd": usage.spent_today_micro_usd,
            "spent_total_micro_usd": usage.spent_total_micro_usd,
            "conversations_today": usage.conversations_today,
            "conversations_total": usage.conversations_total,
            "calls_total": usage.calls_total,
            "last_used_at": usage.last_used_at,
        },
    }

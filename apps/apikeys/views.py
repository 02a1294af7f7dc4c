"""The settings pages: API keys, and the agent connection (quick-setup in the browser)."""

import json
from datetime import timedelta
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.apikeys import charts, clients, errors, selectors, services
from apps.apikeys.forms import AgentConnectionForm, ApiKeyForm, RenameKeyForm, RollSecretForm
from apps.catalogue import profiles
from apps.catalogue.permissions import CataloguePerm
from apps.core import workspaces
from apps.core.actors import can
from apps.core.errors import AppError, ValidationFailed
from apps.core.pages import chosen, keep_to_show, no_store, page, take_to_show


def _form_error(form: Any, error: ValidationFailed) -> None:
    """A service's refusal, shown on the form field it is about."""
    fields = error.details if isinstance(error.details, dict) else {}
    placed = False
    for field, problems in fields.items():
        name = "budget_usd" if field == "budget_usd_cents" else field
        if name in form.fields:
            form.add_error(name, problems if isinstance(problems, list) else [str(problems)])
            placed = True
    if not placed:
        form.add_error(None, str(error.message))


STATUSES = ("active", "revoked")
# The days of a key's usage chart and table.
USAGE_DAYS = 30


@page()
def key_list(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = ApiKeyForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            made = services.api_key_create(user=request.user, **form.service_fields())
        except ValidationFailed as error:
            _form_error(form, error)
        else:
            keep_to_show(
                request,
                "list",
                {"key_id": made.key.pk, "raw_key": made.raw_key, "signing_secret": made.signing_secret},
            )
            return redirect("apikeys:list")
    created = None
    shown = take_to_show(request, "list") if request.method == "GET" else None
    if shown is not None:
        key = selectors.api_key_get(user=request.user, key_id=shown["key_id"])
        created = {"key": key, "raw_key": shown["raw_key"], "signing_secret": shown["signing_secret"]}
    # Active keys first and by default; revoked ones are history, one click away.
    status = chosen(request, "status", STATUSES, default="active")
    keys = list(selectors.api_key_list(user=request.user, status=status))
    usage = selectors.key_usage_many(keys)
    response = _render(
        request,
        "apikeys/list.html",
        {
            "nav": "api-keys",
            "form": form,
            "created": created,
            "status": status,
            "counts": selectors.api_key_counts(user=request.user),
            "rows": [{"key": key, "usage": usage[key.pk]} for key in keys],
        },
    )
    return no_store(response) if created else response


def _initial(key: Any) -> dict[str, Any]:
    return {
        "label": key.label,
        "response_url": key.response_url,
        "budget_usd": None if key.budget_usd_cents is None else f"{key.budget_usd_cents / 100:.2f}",
        "budget_period": key.budget_period,
        "profile": key.profile,
    }


def _render(request: HttpRequest, template: str, context: dict[str, Any]) -> HttpResponse:
    """Times on these pages are in the reader's zone, like every page's (apps.core.times); a budget
    still resets at the workspace's midnight, which the reset time shows with its zone."""
    return render(request, template, context)


def _detail(
    request: AuthenticatedHttpRequest, key: Any, form: ApiKeyForm, rename_form: RenameKeyForm | None = None
) -> HttpResponse:
    shown = take_to_show(request, f"detail-{key.pk}") if request.method == "GET" else None
    rolled = shown["secret"] if shown else None
    days = selectors.usage_days(key=key, days=USAGE_DAYS)
    response = _render(
        request,
        "apikeys/detail.html",
        {
            "nav": "api-keys",
            "key": key,
            "usage": selectors.key_usage(key=key),
            "days": days,
            "chart": charts.usage_chart(days),
            "form": form,
            "rename_form": rename_form or RenameKeyForm(initial={"label": key.label}),
            "roll_form": RollSecretForm(),
            "rolled": rolled,
            # The tool-call log of this key, for those who may read the log.
            "calls_url": f"{reverse('catalogue:tool-calls')}?key={key.pk}"
            if can(request.user, CataloguePerm.AUDIT)
            else None,
        },
    )
    return no_store(response) if rolled else response


@page()
def key_detail(request: AuthenticatedHttpRequest, key_id: int) -> HttpResponse:
    key = selectors.api_key_get(user=request.user, key_id=key_id)
    form = ApiKeyForm(request.POST or None, initial=_initial(key))
    if request.method == "POST" and form.is_valid():
        try:
            key = services.api_key_update(actor=request.user, key=key, **form.service_fields())
        except ValidationFailed as error:
            _form_error(form, error)
        else:
            messages.success(request, _("Key “%(label)s” saved.") % {"label": key.label})
            return redirect("apikeys:detail", key_id=key.pk)
    return _detail(request, key, form)


@page(methods=("POST",))
def key_rename(request: AuthenticatedHttpRequest, key_id: int) -> HttpResponse:
    key = selectors.api_key_get(user=request.user, key_id=key_id)
    form = RenameKeyForm(request.POST)
    if form.is_valid():
        try:
            key = services.api_key_update(actor=request.user, key=key, label=form.cleaned_data["label"])
        except ValidationFailed as error:
            _form_error(form, error)
        except AppError as error:
            # A revoked key: said on its page (not by the Referer, which browsers may not send).
            messages.error(request, str(error.message))
            return redirect("apikeys:detail", key_id=key.pk)
        else:
            messages.success(request, _("Key renamed “%(label)s”.") % {"label": key.label})
            return redirect("apikeys:detail", key_id=key.pk)
    response = _detail(request, key, ApiKeyForm(initial=_initial(key)), rename_form=form)
    response.status_code = 400
    return response


@page(methods=("POST",))
def key_roll(request: AuthenticatedHttpRequest, key_id: int) -> HttpResponse:
    key = selectors.api_key_get(user=request.user, key_id=key_id)
    form = RollSecretForm(request.POST)
    if not form.is_valid():
        raise errors.OverlapRequired()
    key, secret = services.signing_secret_roll(
        actor=request.user, key=key, overlap=timedelta(hours=form.cleaned_data["overlap_hours"])
    )
    keep_to_show(request, f"detail-{key.pk}", {"secret": secret})
    return redirect("apikeys:detail", key_id=key.pk)


@page(methods=("POST",))
def key_revoke(request: AuthenticatedHttpRequest, key_id: int) -> HttpResponse:
    key = selectors.api_key_get(user=request.user, key_id=key_id)
    services.api_key_revoke(actor=request.user, key=key)
    messages.success(request, _("Key “%(label)s” revoked.") % {"label": key.label})
    return redirect("apikeys:list")


def _profile_choice(key: str) -> str:
    profile = profiles.get(key) if key else None
    return profile.choice if profile is not None else key


@page()
def agent_connection(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = AgentConnectionForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        made = services.quick_setup(
            user=request.user,
            client=form.cleaned_data["client"],
            profile=form.chosen_profile(),
            base_url=request.build_absolute_uri("/").rstrip("/"),
            server_name=workspaces.brand(),
        )
        keep_to_show(
            request,
            "agent-connection",
            {
                "client": made.client.name,
                "config": made.config,
                "command": made.command,
                "key_id": made.created.key.pk,
                "key_label": made.created.key.label,
                "token_id": made.token.pk,
                "token_name": made.token.name,
                "profile": made.created.key.profile,
            },
        )
        return redirect("apikeys:agent-connection")
    shown = take_to_show(request, "agent-connection") if request.method == "GET" else None
    setup = None
    if shown is not None:
        form = AgentConnectionForm(initial={"client": shown["client"]})
        setup = {
            "client": clients.get(shown["client"]),
            "command": shown["command"],
            "created": {
                # .get: a configuration kept in the session by an earlier version has no names.
                "key": {
                    "pk": shown["key_id"],
                    "label": shown.get("key_label", ""),
                    "profile": shown["profile"],
                    # The profile as the person chose it: by what they do.
                    "profile_choice": _profile_choice(shown["profile"]),
                },
                "token": {"pk": shown.get("token_id"), "name": shown.get("token_name", "")},
            },
        }
    response = render(
        request,
        "apikeys/agent_connection.html",
        {
            "nav": "agent-connection",
            "form": form,
            "setup": setup,
            "config_json": json.dumps(shown["config"], indent=2) if shown else "",
            "named_clients": clients.named(),
            "tokens_url": reverse("settings:tokens"),
            "keys_url": reverse("apikeys:list"),
            "mcp_url": request.build_absolute_uri("/api/mcp"),
        },
    )
    return no_store(response) if setup else response

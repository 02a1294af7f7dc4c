"""How the app is wired into the project."""

from django.contrib import admin
from django.core import checks
from oauth2_provider import models as dot_models


def test_the_operators_admin_does_not_offer_workspace_clients_and_tokens():
    # The admin site serves the public schema; clients and tokens live in workspace schemas.
    for model in (
        dot_models.get_application_model(),
        dot_models.get_access_token_model(),
        dot_models.get_refresh_token_model(),
        dot_models.get_grant_model(),
    ):
        assert not admin.site.is_registered(model)


def test_the_deploy_checks_flag_only_the_http_scheme_kept_for_loopback_callbacks():
    # Every RFC 9700 gate of the toolkit is on, except that http stays an allowed redirect scheme
    # (RFC 8252 loopback callbacks; the registration rules confine it to loopback hosts).
    messages = checks.run_checks(include_deployment_checks=True, tags=[checks.Tags.security])

    assert {message.id for message in messages if message.id.startswith("oauth2_provider.")} == {
        "oauth2_provider.W008"
    }

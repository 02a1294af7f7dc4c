from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class OAuthConfig(AppConfig):
    name = "apps.oauth"
    verbose_name = _("OAuth")

    def ready(self) -> None:
        from django.contrib import admin
        from oauth2_provider import models as dot_models

        from apps.core import navigation
        from apps.core.navigation import Group, NavItem

        navigation.register(
            NavItem("connected-apps", _("Connected apps"), "oauth:connected-apps", group=Group.YOU, order=20)
        )

        # The toolkit registers its models with the admin site, which serves the public schema
        # (operators); clients and tokens live in workspace schemas, where that site is not served.
        for model in (
            dot_models.get_application_model(),
            dot_models.get_access_token_model(),
            dot_models.get_refresh_token_model(),
            dot_models.get_grant_model(),
            dot_models.get_id_token_model(),
            dot_models.get_device_grant_model(),
        ):
            if admin.site.is_registered(model):
                admin.site.unregister(model)

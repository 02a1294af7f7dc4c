from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GroupAccountsConfig(AppConfig):
    name = "apps.groupaccounts"
    label = "groupaccounts"
    verbose_name = _("Group accounts")

    def ready(self) -> None:
        from apps.core import navigation
        from apps.core.navigation import NavItem
        from apps.files import attachments

        from .permissions import GroupAccountsPerm
        from .selectors import account_for_attachments

        attachments.register_entity(
            attachments.EntityType(
                key="group_account",
                area="groupaccounts",
                label="Group account",
                model="groupaccounts.GroupAccount",
                get=account_for_attachments,
            )
        )

        navigation.register(
            NavItem(
                "group-accounts", _("Group accounts"), "groupaccounts:list", GroupAccountsPerm.VIEW, order=36
            )
        )

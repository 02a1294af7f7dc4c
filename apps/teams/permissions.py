from django.utils.translation import gettext_lazy as _

from apps.core.permissions import Level, PermissionEnum, register_permissions


@register_permissions
class TeamsPerm(PermissionEnum):
    # Teams (SPEC 4.7): agent teams whose members act with their creator's permissions, never wider.
    VIEW = "teams.view", Level.READ, _("See your agent teams, their projects and their log")
    RUN = "teams.run", Level.WRITE, _("Make agent teams, hire members, give them kits and prompts")
    FIRE = "teams.fire", Level.DELETE, _("Fire members of your agent teams")
    ADMIN = "teams.admin", Level.ADMIN, _("Administer the Teams area")

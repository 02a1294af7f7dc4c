"""The Files area, as the rest of the service knows it (apps.core.areas)."""

from django.utils.translation import gettext_lazy as _

from apps.core import areas
from apps.core.actors import Actor
from apps.core.kinds import Item, Kind
from apps.core.navigation import NavItem
from apps.files.attachments import AttachmentStore
from apps.files.permissions import FilesPerm


def describe(*, actor: Actor | None, ids: list[int]) -> dict[int, Item]:
    """Files as items other records carry (linked to a contact, attached to a task)."""
    from apps.files import selectors

    return {
        pk: Item(
            id=pk,
            title=file.name,
            url=file.path,
            mime_type=file.mime_type,
            size=file.size,
            updated_at=file.updated_at,
        )
        for pk, file in selectors.files_by_ids(actor=actor, file_ids=ids).items()
    }


area = areas.register(
    areas.Area(
        app="files",
        key="files",
        title=_("Files"),
        description=_("The workspace's stored files, in folders"),
        permissions=FilesPerm,
        nav=[NavItem("files", _("Files"), "files:browse", FilesPerm.VIEW, order=30)],
        kinds=[Kind("file", "files.File", title="name", describe=describe)],
        attachment_store=AttachmentStore(),
    )
)

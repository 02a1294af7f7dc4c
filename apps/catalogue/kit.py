"""Standard tools an area declares in one call instead of writing them out.

    share_tool(
        "shareDocument",
        model=Document,
        permission=DocumentsPerm.SHARE,
        title="Share a document",
        id_argument=("document_id", DocumentId),
        description="Share a document with a person of the workspace (view or edit), ...",
    )

The tool is registered like any other (apps.catalogue.registry): its arguments and answer are the
same for every shareable kind, so every area shares records alike.
"""

import inspect
from collections.abc import Callable
from typing import Any

from apps.catalogue.registry import tool
from apps.catalogue.shapes import PersonEmail, ShareAccess, SharingOut, VisibilityChange
from apps.core import sharing
from apps.core.actors import Actor
from apps.core.permissions import PermissionEnum

# after(actor, record, before) is called when the sharing changed; `before` is what `shared_state`
# gave before the change (Tasks keep it in the task's history).
AfterShare = Callable[[Actor, Any, tuple[str, list[tuple[int, str]]]], None]


def shared_state(record: Any) -> tuple[str, list[tuple[int, str]]]:
    """Who may see a shareable record: its visibility and (person id, access) of its shares."""
    return record.visibility, sorted(record.shares.values_list("user_id", "access"))


def share_tool(
    name: str,
    *,
    model: Any,
    permission: PermissionEnum,
    title: str,
    id_argument: tuple[str, Any],
    description: str,
    after: AfterShare | None = None,
) -> Callable[..., Any]:
    """Declares the share tool of a shareable record kind (apps.core.sharing): the record's id,
    `personEmail` with `access` (view, edit, none), and/or `visibility`; answers SharingOut."""
    id_name, id_type = id_argument

    def share(ctx: Any, **arguments: Any) -> SharingOut:
        record = model.objects.fetch(ctx.actor, arguments[id_name], "change", lock=True)
        before = shared_state(record)
        sharing.change(
            record,
            actor=ctx.actor,
            person_email=arguments["person_email"],
            access=arguments["access"],
            visibility=arguments["visibility"],
        )
        if after is not None and shared_state(record) != before:
            after(ctx.actor, record, before)
        return SharingOut.of(record)

    keyword = inspect.Parameter.KEYWORD_ONLY
    parameters = [
        inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD),
        inspect.Parameter(id_name, keyword, annotation=id_type),
        inspect.Parameter("person_email", keyword, annotation=PersonEmail, default=None),
        inspect.Parameter("access", keyword, annotation=ShareAccess, default="view"),
        inspect.Parameter("visibility", keyword, annotation=VisibilityChange, default=None),
    ]
    share.__signature__ = inspect.Signature(parameters, return_annotation=SharingOut)  # type: ignore[attr-defined]
    share.__annotations__ = {
        **{parameter.name: parameter.annotation for parameter in parameters[1:]},
        "return": SharingOut,
    }
    share.__doc__ = description
    share.__qualname__ = share.__name__ = name
    # The tool belongs to the module that declares it (its area's tools module).
    share.__module__ = inspect.stack()[1].frame.f_globals["__name__"]
    return tool(name, permission=permission, title=title, idempotent=True)(share)

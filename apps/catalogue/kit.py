"""Standard tools an area declares in one call instead of writing them out: sharing a shareable
record (`share_tool`), making a folder of its tree (`folder_tool`) and a link to one of its pages
(`open_tool`). Each is registered like any other tool (apps.catalogue.registry), with the same
arguments and answer in every area, so every area shares records, makes folders and hands out
links alike; what differs (the name, the title, the description, the model, the permission, the
page) is the area's declaration, in its tools module.
"""

import inspect
import sys
from collections.abc import Callable
from typing import Any

from apps.catalogue.registry import tool
from apps.catalogue.shapes import (
    FolderName,
    FolderOut,
    LinkOut,
    ParentFolderId,
    PersonEmail,
    ShareAccess,
    SharingOut,
    TitledLinkOut,
    VisibilityChange,
)
from apps.core import folders, sharing
from apps.core.actors import Actor
from apps.core.permissions import PermissionEnum
from apps.tenancy import links

# after(actor, record, before) is called when the sharing changed; `before` is what `shared_state`
# gave before the change (Tasks keep it in the task's history).
AfterShare = Callable[[Actor, Any, tuple[str, list[tuple[int, str]]]], None]
KEYWORD = inspect.Parameter.KEYWORD_ONLY
SHARE_WITH = "with a person (view or edit, none to stop), or change its visibility."
FOLDER_NAMES = 'Names are unique within a folder and may not contain / \\ : * ? " < > |.'


def shared_state(record: Any) -> tuple[str, list[tuple[int, str]]]:
    """Who may see a shareable record: its visibility and (person id, access) of its shares."""
    return record.visibility, sorted(record.shares.values_list("user_id", "access"))


def share_tool(
    name: str,
    *,
    model: Any,
    title: str,
    id_argument: tuple[str, Any],
    permission: PermissionEnum | None = None,
    after: AfterShare | None = None,
) -> Callable[..., Any]:
    """The share tool of a shareable record kind (apps.core.sharing): the record's id (named by
    `id_argument`), `personEmail` with `access` (view, edit, none), and/or `visibility`. Its
    description is the one every area's share tool has, from its title ("Share a deal"); its
    permission the area's SHARE unless it names another."""
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

    parameters = [
        (id_name, id_type, inspect.Parameter.empty),
        ("person_email", PersonEmail, None),
        ("access", ShareAccess, "view"),
        ("visibility", VisibilityChange, None),
    ]
    _declare(share, name, f"{title} {SHARE_WITH}", parameters, SharingOut)
    needs = permission if permission is not None else model.access.permissions.SHARE
    return tool(name, permission=needs, title=title, idempotent=True)(share)


def folder_tool(
    name: str, *, model: Any, permission: PermissionEnum, title: str, description: str
) -> Callable[..., Any]:
    """The tool that makes a folder of an area's tree (apps.core.folders): its `name` and the
    folder it goes in (`parentId`; none: the root). The description ends with the naming rule
    every tree shares."""

    def create(ctx: Any, **arguments: Any) -> FolderOut:
        parent = folders.get(model, actor=ctx.actor, folder_id=arguments["parent_id"])
        return FolderOut.of_record(
            folders.create(model, actor=ctx.actor, name=arguments["name"], parent=parent)
        )

    parameters = [("name", FolderName, inspect.Parameter.empty), ("parent_id", ParentFolderId, None)]
    _declare(create, name, f"{description} {FOLDER_NAMES}", parameters, FolderOut)
    return tool(name, permission=permission, title=title)(create)


def open_tool(
    name: str,
    *,
    permission: PermissionEnum,
    title: str,
    description: str,
    page: str,
    id_argument: tuple[str, Any] | None = None,
    fetch: Callable[[Actor, int], Any] | None = None,
    named: str | Callable[[Any], str] | None = None,
    section: tuple[str, Any, str] | None = None,
) -> Callable[..., Any]:
    """The read-only tool that answers a link to a page of the workspace, to open in a browser
    (`LinkOut`). `page` is the page's URL name; a record's page takes the record's id argument
    (`id_argument`: its name, which is also the page's argument, and its type), and `fetch(actor,
    id)` reads the record as the actor may see it (not found otherwise). `named` adds the answer's
    title (`TitledLinkOut`): a text, or what to read of the record. `section` is an optional
    argument naming a part of the page (its name, type, and the fragment with `{}` for its value)."""
    if (id_argument is None) != (fetch is None):
        raise TypeError(f"{name}: give id_argument and fetch together")

    def open_page(ctx: Any, **arguments: Any) -> LinkOut:
        record, kwargs = None, {}
        if id_argument is not None and fetch is not None:
            record = fetch(ctx.actor, arguments[id_argument[0]])
            kwargs[id_argument[0]] = record.pk
        url = links.page(page, **kwargs)
        if section is not None and arguments[section[0]]:
            url += "#" + section[2].format(arguments[section[0]])
        if named is None:
            return LinkOut(url=url)
        return TitledLinkOut(url=url, title=named if isinstance(named, str) else named(record))

    parameters: list[tuple[str, Any, Any]] = []
    if id_argument is not None:
        parameters.append((*id_argument, inspect.Parameter.empty))
    if section is not None:
        parameters.append((section[0], section[1], None))
    _declare(open_page, name, description, parameters, LinkOut if named is None else TitledLinkOut)
    return tool(name, permission=permission, title=title, read_only=True)(open_page)


def _declare(
    function: Callable[..., Any],
    name: str,
    description: str,
    parameters: list[tuple[str, Any, Any]],
    returns: type,
) -> None:
    """Gives a generated tool function what the registry reads of a written one: its keyword-only
    parameters and their types, its answer, its docstring, and the module that declares it (the
    area's tools module, two frames up)."""
    signature = [inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    signature += [
        inspect.Parameter(argument, KEYWORD, annotation=kind, default=default)
        for argument, kind, default in parameters
    ]
    function.__signature__ = inspect.Signature(signature, return_annotation=returns)  # type: ignore[attr-defined]
    function.__annotations__ = {argument: kind for argument, kind, _default in parameters} | {
        "return": returns
    }
    function.__doc__ = description
    function.__qualname__ = function.__name__ = name
    # The caller's caller's frame only: inspect.stack() would read every frame's source lines
    # (some 50 ms a generated tool at a process's start, 0.7 s of it in all).
    function.__module__ = sys._getframe(2).f_globals["__name__"]

"""A person's data across the workspace, for a data-subject request (SPEC 10.3): what is held about
them, per area and kind (optionally the whole export as a private file), and its erasure. The work
is the data-rights export's and erasure's, reached through apps.core.personaldata; every area says
what it holds in its privacy registrations (docs/privacy.md). Both tools are for platform.admin
(the built-in admins and owners)."""

from typing import Annotated, Any, cast

from pydantic import Field

from apps.accounts.models import User
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import Out, id_field
from apps.core import clean
from apps.core.personaldata import personal_data
from apps.files import api as files
from apps.platform import errors, exports
from apps.platform.permissions import PlatformPerm
from apps.platform.tools.admin import _person

# The titles an answer lists per kind (the count is of all the records).
TITLES_LISTED = 20
# The fields a record's title is read from, the first one it has.
TITLE_FIELDS = (
    "title",
    "name",
    "subject",
    "full_name",
    "display_name",
    "filename",
    "label",
    "number",
    "email",
)

Email = Annotated[
    str, Field(max_length=254, description="The person's e-mail address (someone of the workspace or not)")
]
PersonId = Annotated[int | None, id_field("listWorkspaceUsers", description="Instead of email: a person")]


class KindHeldOut(Out):
    area: str = Field(description="The app that holds them")
    kind: str = Field(description="<app>.<model>")
    count: int
    titles: list[str] = Field(description=f"The first {TITLES_LISTED} records' titles")


class PersonalDataOut(Out):
    email: str
    user_id: int | None = Field(description="The workspace's person with the address; null: only mentioned")
    total: int = Field(description="Records held, in every kind")
    kinds: list[KindHeldOut]
    file_id: int | None = Field(description="asFile: the full export, a Files file private to you")
    file_name: str | None = None


class KindErasedOut(Out):
    area: str
    kind: str
    count: int = Field(description="Records erased or anonymised")


class ErasedOut(Out):
    email: str
    total: int
    erased: list[KindErasedOut]


def _subject(ctx: ToolContext, email: str, user_id: int | None) -> tuple[str, User | None]:
    """The person's address and, when they are someone of the workspace, that person."""
    if bool(email.strip()) == (user_id is not None):
        raise errors.SubjectRequired()
    if user_id is not None:
        person = _person(ctx, user_id)
        return person.email.lower(), person
    address = clean.email(email, field="email", required=True)
    return address, User.objects.filter(email__iexact=address).first()


def _title(record: dict[str, Any]) -> str:
    for name in TITLE_FIELDS:
        value = record.get(name)
        if value not in (None, ""):
            return str(value)[:200]
    return f"#{record.get('id', record.get('pk', '?'))}"


def _kinds(records: dict[str, list[dict[str, Any]]]) -> list[KindHeldOut]:
    return [
        KindHeldOut(
            area=label.split(".", 1)[0],
            kind=label,
            count=len(rows),
            titles=[_title(row) for row in rows[:TITLES_LISTED]],
        )
        for label, rows in sorted(records.items())
        if rows
    ]


def _performed_by(ctx: ToolContext) -> str:
    return f"platform tool: user {ctx.actor.pk}"


@tool(
    "examinePersonalData",
    permission=PlatformPerm.ADMIN,
    title="Examine a person's data",
    read_only=False,
    idempotent=False,
)
def examine_personal_data(
    ctx: ToolContext,
    *,
    email: Email = "",
    user_id: PersonId = None,
    as_file: Annotated[
        bool, Field(description="true: also save the full export (JSON, or a zip with their files) as a file")
    ] = False,
) -> PersonalDataOut:
    """What the workspace holds about one person, per area and kind: counts and the records' titles.

    For a data-subject access request, asFile saves everything as one file private to you. Erase it:
    erasePersonalData."""
    address, person = _subject(ctx, email, user_id)
    actor = cast(User, ctx.actor)
    file = None
    if as_file:
        if not files.may_add(actor):
            raise errors.PersonalExportNeedsFiles()
        export = personal_data().export(email=address, performed_by=_performed_by(ctx))
        records = export.records
        file = files.file_create(
            actor=actor,
            name=export.filename,
            content=export.content,
            folder=files.folder_ensure(actor=actor, path=exports.FOLDER),
            source=files.Source.EXPORT,
            origin="export of a person's data",
            visibility="private",
        )
    else:
        records = personal_data().records(email=address)
    kinds = _kinds(records)
    return PersonalDataOut(
        email=address,
        user_id=person.pk if person else None,
        total=sum(kind.count for kind in kinds),
        kinds=kinds,
        file_id=file.pk if file else None,
        file_name=file.name if file else None,
    )


def _erasable(ctx: ToolContext, *, email: str = "", user_id: int | None = None) -> bool:
    """Checked before the confirmation is asked: a person named, held about, not the caller, and
    no area refusing (the workspace's last owner)."""
    address, _person_found = _subject(ctx, email, user_id)
    if address == (ctx.actor.email or "").lower():
        raise errors.ErasureOfSelf()
    if not personal_data().records(email=address):
        raise errors.NothingHeldAbout(email=address)
    reasons = personal_data().vetoes(email=address)
    if reasons:
        raise errors.ErasureVetoed(email=address, reasons=" ".join(reasons))
    return True


@tool(
    "erasePersonalData",
    permission=PlatformPerm.ADMIN,
    title="Erase a person's data",
    markers=Marker.DESTRUCTIVE,
    confirm_if=_erasable,
)
def erase_personal_data(ctx: ToolContext, *, email: Email = "", user_id: PersonId = None) -> ErasedOut:
    """Erase everything the workspace holds about a person, in every area, for good.

    Records are deleted or anonymised; a person of the workspace loses their account, sessions and
    keys. Not the last owner, not yourself. Look first: examinePersonalData."""
    _erasable(ctx, email=email, user_id=user_id)
    address, _person_found = _subject(ctx, email, user_id)
    counts = personal_data().erase(email=address, performed_by=_performed_by(ctx))
    erased = [
        KindErasedOut(area=label.split(".", 1)[0], kind=label, count=count)
        for label, count in sorted(counts.items())
    ]
    return ErasedOut(email=address, total=sum(counts.values()), erased=erased)

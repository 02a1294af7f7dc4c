"""The Form Builder area of the catalogue (SPEC 4.7): thin doors onto services, selectors, the
model calls (apps.forms.writing) and the PDF (apps.forms.lib.pdf)."""

from datetime import datetime
from typing import Annotated, Any, Literal

from django.utils.translation import gettext as _
from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import Changes, In, Limit, Offset, Out, Page, paginate
from apps.core.errors import invalid
from apps.core.records import Action
from apps.files import api as files
from apps.forms import selectors, services, writing
from apps.forms.lib import pdf
from apps.forms.lib.fields import KINDS, answered, json_schema
from apps.forms.models import FormTemplate, FormVersion, Submission
from apps.forms.permissions import FormsPerm
from apps.forms.shapes import FormId, FormOut, FormSummary, SubmissionId, SubmissionOut

Key = Annotated[str, Field(min_length=1, max_length=40, description="A field's key (getFormSchema)")]
Keys = Annotated[list[Key], Field(min_length=1, max_length=200, description="Field keys")]


def _form(ctx: ToolContext, form_id: int, action: Action = "view") -> FormTemplate:
    return FormTemplate.objects.select_related("owner", "current_version").fetch(ctx.actor, form_id, action)


def _submission(ctx: ToolContext, submission_id: int, action: Action = "view") -> Submission:
    return Submission.objects.select_related("form", "version", "submitted_by").fetch(
        ctx.actor, submission_id, action
    )


class FieldIn(In):
    type: Literal[
        "text",
        "textarea",
        "number",
        "date",
        "email",
        "phone",
        "choice",
        "checkbox",
        "file",
        "signature",
        "heading",
        "paragraph",
    ]
    label: Annotated[str, Field(max_length=300)] = ""
    key: Annotated[str, Field(max_length=40, description="Default: from the label; never changes")] = ""
    required: bool = False
    help: Annotated[str, Field(max_length=500)] = ""
    options: list[Annotated[str, Field(max_length=200)]] | None = Field(
        None, max_length=100, description="choice"
    )
    multiple: bool = Field(False, description="choice: several answers")
    min: float | None = None
    max: float | None = None
    consent_text: Annotated[str, Field(max_length=2000, description="checkbox: words agreed to")] = ""
    accept: list[str] | None = Field(None, max_length=5, description="file: MIME types")
    max_size_mb: float | None = Field(None, description="file; default 5")
    text: Annotated[str, Field(max_length=2000, description="heading, paragraph")] = ""
    show_if: dict[str, Any] | None = Field(
        None, description='Condition: {"field":k,"op":"eq","value":v}, all/any/not; ops in docs'
    )

    def raw(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "label": self.label,
            "key": self.key,
            "required": self.required,
            "help": self.help,
            "options": self.options,
            "multiple": self.multiple,
            "min": self.min,
            "max": self.max,
            "consentText": self.consent_text,
            "accept": self.accept,
            "maxSizeMb": self.max_size_mb,
            "text": self.text,
            "showIf": self.show_if,
        }


FieldList = Annotated[list[FieldIn], Field(max_length=100, description="Questions, in order")]


class FormFields(Changes):
    title: Annotated[str, Field(min_length=1, max_length=200)] | None = None
    description: Annotated[str, Field(max_length=5000)] | None = None
    slug: Annotated[str, Field(max_length=80)] | None = Field(None, description="Public address /f/<slug>/")
    confirmation: Annotated[str, Field(max_length=500)] | None = Field(
        None, description="Shown after sending"
    )
    submit_label: Annotated[str, Field(max_length=60)] | None = None
    visibility: Literal["workspace", "private"] | None = Field(None, description="private: only you")
    owner_email: Annotated[str, Field(max_length=254)] | None = None


class SavedFormOut(Out):
    form: FormOut
    changed: list[str]


@tool("createFormTemplate", permission=FormsPerm.EDIT, title="Create a form")
def create_form_template(
    ctx: ToolContext,
    *,
    form: Annotated[FormFields, Field(description="title is required")],
    fields: FieldList = [],  # noqa: B006 (pydantic copies it)
) -> SavedFormOut:
    """Make a new draft form (survey, sign-up, order, application), with fields if given. Then:
    manageFormTemplate publishes it."""
    given = form.given()
    given["fields"] = [field.raw() for field in fields]
    created = services.form_create(actor=ctx.actor, fields=given)
    return SavedFormOut(form=FormOut.of(_form(ctx, created.pk)), changed=sorted(form.given()))


@tool("updateFormTemplate", permission=FormsPerm.EDIT, title="Update a form", idempotent=True)
def update_form_template(
    ctx: ToolContext,
    *,
    form_id: FormId,
    changes: Annotated[FormFields, Field(description="Only what changes")],
) -> SavedFormOut:
    """Change a form's title, description, address, confirmation text or visibility. Its fields:
    updateFormFields."""
    found = _form(ctx, form_id, "change")
    changed = services.form_update(actor=ctx.actor, form=found, fields=changes.given(required=True))
    return SavedFormOut(form=FormOut.of(_form(ctx, form_id)), changed=changed)


ManageAction = Annotated[
    Literal["publish", "close", "reopen", "archive", "restore"],
    Field(description="publish: the draft as a new version; close: no more answers"),
]


def _manageable(ctx: ToolContext, *, form_id: int, action: str) -> bool:
    """manageFormTemplate's confirmation, asked once the form is known and the action possible."""
    services.check_action(_form(ctx, form_id, "change"), action)
    return True


class ManagedOut(Out):
    form: FormSummary
    was: str
    message: str


@tool(
    "manageFormTemplate",
    permission=FormsPerm.PUBLISH,
    title="Publish, close or archive a form",
    markers=Marker.HIGH_RISK,
    confirm_if=_manageable,
)
def manage_form_template(ctx: ToolContext, *, form_id: FormId, action: ManageAction) -> ManagedOut:
    """Publish a form's draft as a new version on its public page, or close, reopen, archive,
    restore it. Its draft: updateFormFields."""
    found = _form(ctx, form_id, "change")
    was = found.status
    services.form_manage(actor=ctx.actor, form=found, action=action)
    form = _form(ctx, form_id)
    summary = FormSummary.of(form)
    if action == "publish" and summary.public_url:
        message = _("Version {number} is live at {url}.").format(
            number=summary.version, url=summary.public_url
        )
    elif action == "publish":
        message = _("Version {number} is published; a private form has no public page.").format(
            number=summary.version
        )
    else:
        message = _("The form is {status}.").format(status=form.get_status_display())
    return ManagedOut(form=summary, was=was, message=message)


@tool("searchFormTemplates", permission=FormsPerm.VIEW, title="Search forms", read_only=True)
def search_form_templates(
    ctx: ToolContext,
    *,
    query: Annotated[str, Field(max_length=200, description="Words in title or description")] = "",
    status: Literal["draft", "published", "closed", "archived"] | None = Field(
        None, description="Default: all but archived"
    ),
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[FormSummary]:
    """Find forms by words or status, recently changed first. One in depth: examineForms."""
    rows = selectors.forms(ctx.actor, query=query, status=status)
    return paginate(rows, limit=limit, offset=offset, item=FormSummary.of)


class VersionOut(Out):
    number: int
    fields: int
    published_at: datetime
    submissions: int


class ExaminedOut(Out):
    form: FormOut
    versions: list[VersionOut]
    submissions: dict[str, int] = Field(description="By status")
    recent: list[SubmissionOut]
    problems: list[str]


@tool("examineForms", permission=FormsPerm.VIEW, title="Examine a form", read_only=True)
def examine_forms(ctx: ToolContext, *, form_id: FormId) -> ExaminedOut:
    """A form in depth in one call: its draft, versions, submission counts, latest answers, problems."""
    found = _form(ctx, form_id)
    versions = found.versions.order_by("-number")
    counted: dict[int, int] = {}
    for version_id in (
        Submission.objects.restrict(ctx.actor).filter(form=found).values_list("version", flat=True)
    ):
        counted[version_id] = counted.get(version_id, 0) + 1
    recent = selectors.submissions(ctx.actor, form=found)[:5]
    return ExaminedOut(
        form=FormOut.of(found),
        versions=[
            VersionOut(
                number=version.number,
                fields=len(answered(version.definition)),
                published_at=version.published_at,
                submissions=counted.get(version.pk, 0),
            )
            for version in versions
        ],
        submissions=selectors.counts(ctx.actor, found),
        recent=[SubmissionOut.of(submission) for submission in recent],
        problems=selectors.problems(found),
    )


class SchemaOut(Out):
    form_id: int
    version: int | None = Field(description="null: the unpublished draft")
    groups: list[dict[str, Any]]
    fields: list[dict[str, Any]]
    json_schema: dict[str, Any] = Field(description="JSON Schema 2020-12 of the answers")


@tool("getFormSchema", permission=FormsPerm.VIEW, title="Get a form's schema", read_only=True)
def get_form_schema(
    ctx: ToolContext,
    *,
    form_id: FormId,
    version: Annotated[int | None, Field(ge=1, description="A published version; default: the draft")] = None,
) -> SchemaOut:
    """A form's groups, fields (keys, types, conditions) and the JSON Schema answers must fit."""
    found = _form(ctx, form_id)
    if version is None:
        definition = found.draft or {}
        return SchemaOut(
            form_id=found.pk,
            version=None,
            groups=definition.get("groups", []),
            fields=definition.get("fields", []),
            json_schema=json_schema(definition, title=found.title),
        )
    published = FormVersion.objects.filter(form=found, number=version).first()
    if published is None:
        raise invalid("version", _("form {id} has no version {number}"), id=found.pk, number=version)
    return SchemaOut(
        form_id=found.pk,
        version=published.number,
        groups=published.definition.get("groups", []),
        fields=published.definition.get("fields", []),
        json_schema=published.json_schema,
    )


class FieldsAddedOut(Out):
    form_id: int
    group: dict[str, Any] | None
    added: list[dict[str, Any]]


@tool("addFieldGroup", permission=FormsPerm.EDIT, title="Add a group of fields to a form")
def add_field_group(
    ctx: ToolContext,
    *,
    form_id: FormId,
    title: Annotated[str, Field(min_length=1, max_length=200, description="The section's heading")],
    key: Annotated[str, Field(max_length=40, description="Default: from the title")] = "",
    description: Annotated[str, Field(max_length=1000, description="Shown under the heading")] = "",
    fields: FieldList = [],  # noqa: B006
) -> FieldsAddedOut:
    """Add a section (page) to a form's draft, with the fields you write yourself. By the model:
    generateTextFields."""
    found = _form(ctx, form_id, "change")
    group, added = services.group_add(
        actor=ctx.actor,
        form=found,
        title=title,
        key=key,
        description=description,
        raws=[field.raw() for field in fields],
    )
    return FieldsAddedOut(form_id=found.pk, group=group, added=added)


class GeneratedOut(FieldsAddedOut):
    model: str
    cost_micro_usd: int


Brief = Annotated[str, Field(min_length=3, max_length=1000, description="What the fields should ask")]
Count = Annotated[int, Field(ge=1, le=20, description="At most this many")]
GroupKey = Annotated[str, Field(max_length=40, description="Into this group (getFormSchema)")]


def _generate(
    ctx: ToolContext, name: str, kind: str, form_id: int, brief: str, count: int, group: str
) -> GeneratedOut:
    found = _form(ctx, form_id, "change")
    draft = found.draft or {}
    if group and group not in {item["key"] for item in draft.get("groups", [])}:
        raise invalid(
            "group", _("{group!r} is not a group of this form (getFormSchema lists them)"), group=group
        )
    proposed = writing.propose(
        api_key_id=ctx.principal.api_key_id,
        tool=name,
        kind=kind,
        brief=brief.strip(),
        count=count,
        form={
            "title": found.title,
            "description": found.description,
            "fields": [field.get("label") for field in draft.get("fields", [])],
        },
    )
    added = services.fields_add(
        actor=ctx.actor, form=found, raws=proposed.fields, group=group, ai=True, types=KINDS[kind]
    )
    return GeneratedOut(
        form_id=found.pk,
        group=None,
        added=added,
        model=proposed.model,
        cost_micro_usd=proposed.cost_micro_usd,
    )


@tool("generateTextFields", permission=FormsPerm.EDIT, title="Generate text fields", open_world=True)
def generate_text_fields(
    ctx: ToolContext, *, form_id: FormId, brief: Brief, count: Count = 5, group: GroupKey = ""
) -> GeneratedOut:
    """Add text, number, date, e-mail and phone questions the model writes from a brief (labelled
    AI-made). Spends credits. Choices: generateChoiceFields."""
    return _generate(ctx, "generateTextFields", "text", form_id, brief, count, group)


@tool("generateChoiceFields", permission=FormsPerm.EDIT, title="Generate choice fields", open_world=True)
def generate_choice_fields(
    ctx: ToolContext, *, form_id: FormId, brief: Brief, count: Count = 3, group: GroupKey = ""
) -> GeneratedOut:
    """Add multiple-choice, dropdown and consent checkbox questions with options the model writes.
    Spends credits. Free text: generateTextFields."""
    return _generate(ctx, "generateChoiceFields", "choice", form_id, brief, count, group)


@tool("generateMediaFields", permission=FormsPerm.EDIT, title="Generate upload fields", open_world=True)
def generate_media_fields(
    ctx: ToolContext, *, form_id: FormId, brief: Brief, count: Count = 2, group: GroupKey = ""
) -> GeneratedOut:
    """Add file upload (images, PDF) and signature fields the model proposes from a brief. Spends
    credits."""
    return _generate(ctx, "generateMediaFields", "media", form_id, brief, count, group)


@tool(
    "generateLayoutFields",
    permission=FormsPerm.EDIT,
    title="Generate headings and instructions",
    open_world=True,
)
def generate_layout_fields(
    ctx: ToolContext, *, form_id: FormId, brief: Brief, count: Count = 3, group: GroupKey = ""
) -> GeneratedOut:
    """Add section headings and instruction paragraphs the model writes for a form. Spends credits.
    Sections with fields: addFieldGroup."""
    return _generate(ctx, "generateLayoutFields", "layout", form_id, brief, count, group)


class FieldChange(In):
    key: Key
    changes: Annotated[
        dict[str, Any], Field(description="Field properties as in addFieldGroup, not key or type")
    ]


class FieldsChangedOut(Out):
    form_id: int
    changed: list[str]
    fields: list[dict[str, Any]]


@tool("updateFormFields", permission=FormsPerm.EDIT, title="Update a form's fields", idempotent=True)
def update_form_fields(
    ctx: ToolContext,
    *,
    form_id: FormId,
    fields: Annotated[list[FieldChange], Field(min_length=1, max_length=100, description="Each by key")],
) -> FieldsChangedOut:
    """Change fields in a form's draft: label, help, required, options, limits, condition (showIf).
    Keys never change."""
    found = _form(ctx, form_id, "change")
    changed = services.fields_update(
        actor=ctx.actor, form=found, updates=[{"key": item.key, "changes": item.changes} for item in fields]
    )
    return FieldsChangedOut(form_id=found.pk, changed=changed, fields=found.draft["fields"])


class FieldsRemovedOut(Out):
    form_id: int
    removed: list[str]
    message: str


@tool("removeFormFields", permission=FormsPerm.EDIT, title="Remove fields from a form", idempotent=True)
def remove_form_fields(ctx: ToolContext, *, form_id: FormId, keys: Keys) -> FieldsRemovedOut:
    """Take fields out of a form's draft; published versions and past answers keep them."""
    found = _form(ctx, form_id, "change")
    removed = services.fields_remove(actor=ctx.actor, form=found, keys=list(keys))
    return FieldsRemovedOut(
        form_id=found.pk,
        removed=[field["key"] for field in removed],
        message=_("Removed from the draft; publish the form for respondents to see the change."),
    )


class ReorderedOut(Out):
    form_id: int
    order: list[str]


@tool("reorderFormFields", permission=FormsPerm.EDIT, title="Reorder a form's fields", idempotent=True)
def reorder_form_fields(
    ctx: ToolContext,
    *,
    form_id: FormId,
    keys: Annotated[Keys, Field(description="In their new order; they swap places among themselves")],
    group: Annotated[str | None, Field(max_length=40, description="Also move them into this group")] = None,
) -> ReorderedOut:
    """Put fields of a form's draft in a new order, or move them into another group."""
    found = _form(ctx, form_id, "change")
    order = services.fields_reorder(actor=ctx.actor, form=found, keys=list(keys), group=group)
    return ReorderedOut(form_id=found.pk, order=order)


@tool("submitForm", permission=FormsPerm.EDIT, title="Submit a form")
def submit_form(
    ctx: ToolContext,
    *,
    form_id: FormId,
    answers: Annotated[dict[str, Any], Field(description='By field key; a file: {"fileId": id} from Files')],
    respondent_email: Annotated[str, Field(max_length=254, description="Whose answers they are")] = "",
) -> SubmissionOut:
    """Submit answers to a published form (e.g. one taken by phone), checked like the public page."""
    found = _form(ctx, form_id)
    given, file_ids = _with_files(ctx, found, answers)
    submission = services.submission_create(
        form=found, answers=given, respondent_email=respondent_email, actor=ctx.actor, file_ids=file_ids
    )
    return SubmissionOut.of(_submission(ctx, submission.pk))


def _with_files(
    ctx: ToolContext, form: FormTemplate, answers: dict[str, Any]
) -> tuple[dict[str, Any], list[int]]:
    """A file field's answer `{"fileId": id}` as the file is: a file of Files the caller may see."""
    version = form.current_version
    kinds = {field["key"]: field for field in answered(version.definition)} if version else {}
    given, ids = dict(answers), []
    for key, value in answers.items():
        if (
            kinds.get(key, {}).get("type") == "file"
            and isinstance(value, dict)
            and isinstance(value.get("fileId"), int)
        ):
            file = files.file(actor=ctx.actor, file_id=value["fileId"])
            given[key] = {"fileId": file.pk, "name": file.name, "mimeType": file.mime_type, "size": file.size}
            ids.append(file.pk)
    return given, ids


@tool("searchFormSubmissions", permission=FormsPerm.VIEW, title="Search form submissions", read_only=True)
def search_form_submissions(
    ctx: ToolContext,
    *,
    form_id: Annotated[int | None, Field(ge=1, description="One form's (searchFormTemplates)")] = None,
    query: Annotated[str, Field(max_length=200, description="Words in the answers")] = "",
    respondent_email: Annotated[str, Field(max_length=254, description="Exactly this address")] = "",
    status: Annotated[Literal["received", "locked"] | None, Field(description="Default: any")] = None,
    since: Annotated[datetime | None, Field(description="Received from this time")] = None,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[SubmissionOut]:
    """Find form submissions (responses) by form, words in the answers, respondent, status or date."""
    form = _form(ctx, form_id) if form_id is not None else None
    rows = selectors.submissions(
        ctx.actor, form=form, query=query, status=status, email=respondent_email, since=since
    )
    return paginate(rows, limit=limit, offset=offset, item=SubmissionOut.of)


class LockedOut(Out):
    submission: SubmissionOut
    newly_locked: bool


@tool("lockSubmission", permission=FormsPerm.PUBLISH, title="Lock a form submission", idempotent=True)
def lock_submission(ctx: ToolContext, *, submission_id: SubmissionId) -> LockedOut:
    """Make a submission read-only for good and keep its SHA-256 content hash (evidence of what was
    sent). Then: exportSubmissionPdf."""
    found = _submission(ctx, submission_id, "change")
    newly = services.submission_lock(actor=ctx.actor, submission=found)
    return LockedOut(submission=SubmissionOut.of(_submission(ctx, submission_id)), newly_locked=newly)


class PdfOut(Out):
    submission_id: int
    file: files.FileOut
    pages_bytes: int = Field(description="The PDF's size")
    content_hash: str


@tool("exportSubmissionPdf", permission=FormsPerm.PUBLISH, title="Export a submission as PDF")
def export_submission_pdf(
    ctx: ToolContext,
    *,
    submission_id: SubmissionId,
    folder_path: Annotated[str, Field(max_length=500, description="In Files; default /Forms/<form>")] = "",
) -> PdfOut:
    """Save a form submission as a PDF in Files, with its content hash once locked (lockSubmission)."""
    found = _submission(ctx, submission_id)
    data = submission_pdf(found)
    folder = files.folder_ensure(actor=ctx.actor, path=folder_path or f"/Forms/{found.form.slug}")
    made = files.file_create(
        actor=ctx.actor,
        name=f"{found.form.slug}-submission-{found.pk}.pdf",
        content=data,
        folder=folder,
        mime_type=files.PDF,
        origin=f"form submission {found.pk}",
    )
    return PdfOut(
        submission_id=found.pk,
        file=files.FileOut.of(made),
        pages_bytes=len(data),
        content_hash=found.content_hash or services.content_hash(found),
    )


def submission_pdf(submission: Submission) -> bytes:
    definition = submission.version.definition
    lines = [
        (field["label"], pdf.answer_text(field, submission.answers.get(field["key"])))
        for field in answered(definition)
    ]
    facts = [
        (_("Submitted"), submission.created_at.isoformat(timespec="seconds")),
        (_("Form version"), str(submission.version.number)),
        (_("Respondent"), submission.respondent_email or "—"),
        (_("Submission"), str(submission.pk)),
    ]
    footer = (
        _("Locked {at}; SHA-256 {hash}").format(
            at=submission.locked_at.isoformat(timespec="seconds"), hash=submission.content_hash
        )
        if submission.locked_at
        else _("Not locked: its answers may still be erased on request.")
    )
    return pdf.render(title=submission.form.title, lines=lines, facts=facts, footer=footer)

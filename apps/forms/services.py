"""Writes of the Form Builder. Each checks the actor's permission itself and logs ids only.

A form's fields are edited in its draft; `form_manage(action="publish")` freezes the draft into a
new immutable FormVersion with its JSON Schema. A submission (`submission_create`, from a tool or
the public page) is checked against the version it answers (apps.forms.lib.fields.validate) and
written whole or not at all; `submission_lock` makes it read-only with its content hash.
"""

import copy
import hashlib
import json
import logging
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _

from apps.core import clean, records
from apps.core.actors import require
from apps.core.errors import invalid
from apps.forms import errors
from apps.forms.lib import fields as lib
from apps.forms.models import FormTemplate, FormVersion, Submission
from apps.forms.permissions import FormsPerm

logger = logging.getLogger(__name__)
NAMES = ("title", "slug", "description", "confirmation", "submit_label", "visibility", "owner")


def _problem(error: lib.FieldProblem) -> Exception:
    return invalid(error.field, error.problem)


def form_create(*, actor: Any, fields: dict[str, Any]) -> FormTemplate:
    """A new draft form, its maker's; `groups` and `fields` given become its first draft."""
    with transaction.atomic():
        form = records.create(
            FormTemplate, actor=actor, permission=FormsPerm.EDIT, fields=fields, apply=_apply, owner=actor
        )
        for group in fields.get("groups") or []:
            group_add(
                actor=actor,
                form=form,
                title=group.get("title", ""),
                key=group.get("key") or "",
                description=group.get("description") or "",
            )
        if fields.get("fields"):
            fields_add(actor=actor, form=form, raws=fields["fields"])
    return form


def form_update(*, actor: Any, form: FormTemplate, fields: dict[str, Any]) -> list[str]:
    return records.update(
        form, actor=actor, permission=FormsPerm.EDIT, fields=fields, apply=_apply, names=NAMES
    )


def _apply(actor: Any, form: FormTemplate, fields: dict[str, Any], creating: bool) -> None:
    if "title" in fields or creating:
        form.title = clean.text(fields.get("title"), field="title", limit=200, required=True)
    if "description" in fields:
        form.description = clean.long_text(fields["description"] or "", field="description", limit=5000)
    if "confirmation" in fields:
        form.confirmation = clean.text(fields["confirmation"] or "", field="confirmation", limit=500)
    if "submit_label" in fields:
        form.submit_label = clean.text(fields["submit_label"] or "", field="submitLabel", limit=60)
    if "visibility" in fields:
        form.visibility = fields["visibility"] or "workspace"
    if fields.get("owner_email"):
        form.owner = clean.able(
            clean.person_by_email(fields["owner_email"], field="ownerEmail"),
            FormsPerm.EDIT,
            field="ownerEmail",
        )
    if "slug" in fields or creating:
        form.slug = _slug(form, fields.get("slug") if "slug" in fields else None)


def _slug(form: FormTemplate, given: Any) -> str:
    others = FormTemplate.objects.filter(deleted_at__isnull=True).exclude(pk=form.pk)
    if given:
        slug = slugify(str(given))[:80].strip("-")
        if not slug:
            raise invalid(
                "slug", _("{given!r} has no letters or digits to make an address of"), given=str(given)
            )
        taken = others.filter(slug=slug).first()
        if taken is not None:
            raise invalid("slug", _("{slug!r} is taken by form {id}; choose another"), slug=slug, id=taken.pk)
        return slug
    base = slugify(form.title)[:70].strip("-") or "form"
    slug, number = base, 1
    while others.filter(slug=slug).exists():
        number += 1
        slug = f"{base}-{number}"
    return slug


# --- the draft's groups and fields ------------------------------------------------------------------


def _editable(actor: Any, form: FormTemplate) -> dict[str, Any]:
    require(actor, FormsPerm.EDIT)
    draft = copy.deepcopy(form.draft or {})
    draft.setdefault("groups", [])
    draft.setdefault("fields", [])
    return draft


def _save_draft(form: FormTemplate, draft: dict[str, Any]) -> None:
    try:
        lib.check_conditions(draft["fields"])
    except lib.FieldProblem as error:
        raise _problem(error) from None
    form.draft = draft
    form.changed_since_publish = True
    form.save(update_fields=["draft", "changed_since_publish", "updated_at"])


def _taken(form: FormTemplate, draft: dict[str, Any]) -> set[str]:
    """Every key the form ever had: its draft's, and its versions' (a key is never reused)."""
    keys = {field["key"] for field in draft["fields"]}
    for definition in form.versions.values_list("definition", flat=True):
        keys |= {field["key"] for field in definition.get("fields", [])}
    return keys


def group_add(
    *,
    actor: Any,
    form: FormTemplate,
    title: str,
    key: str = "",
    description: str = "",
    raws: list[dict[str, Any]] | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A new group (a page or section of the form) at the end, with its fields if given."""
    draft = _editable(actor, form)
    name = clean.text(title, field="title", limit=200, required=True)
    keys = {group["key"] for group in draft["groups"]}
    if key:
        if not lib.KEY.match(key):
            raise invalid(
                "key", _("must be lower-case letters, digits and underscores, starting with a letter")
            )
        if key in keys:
            raise invalid("key", _("{key!r} is already a group of this form"), key=key)
    group = {
        "key": key or lib.key_of(name, keys),
        "title": name,
        "description": clean.long_text(description or "", field="description", limit=1000),
    }
    draft["groups"].append(group)
    with transaction.atomic():
        _save_draft(form, draft)
        added = fields_add(actor=actor, form=form, raws=raws or [], group=group["key"]) if raws else []
    return group, added


def fields_add(
    *,
    actor: Any,
    form: FormTemplate,
    raws: list[dict[str, Any]],
    group: str = "",
    ai: bool = False,
    types: tuple[str, ...] = lib.TYPES,
) -> list[dict[str, Any]]:
    """Fields added at the end of the draft (of `group`'s, when given), each checked."""
    draft = _editable(actor, form)
    groups = {item["key"] for item in draft["groups"]}
    if group and group not in groups:
        raise invalid(
            "group", _("{group!r} is not a group of this form (getFormSchema lists them)"), group=group
        )
    if len(draft["fields"]) + len(raws) > lib.MAX_FIELDS:
        raise invalid("fields", _("a form has at most {most} fields"), most=lib.MAX_FIELDS)
    taken = _taken(form, draft)
    added = []
    for index, raw in enumerate(raws):
        if isinstance(raw, dict) and raw.get("type") not in types:
            raise invalid(f"fields[{index}].type", _("must be one of {types}"), types=", ".join(types))
        given = {**raw, "group": raw.get("group") or group} if isinstance(raw, dict) else raw
        try:
            field = lib.clean_field(given, where=f"fields[{index}]", taken=taken, groups=groups)
        except lib.FieldProblem as error:
            raise _problem(error) from None
        if ai:
            field["aiGenerated"] = True
        taken.add(field["key"])
        added.append(field)
    position = len(draft["fields"])
    if group:
        after = [index for index, field in enumerate(draft["fields"]) if field.get("group") == group]
        position = after[-1] + 1 if after else position
    draft["fields"][position:position] = added
    _save_draft(form, draft)
    return added


def _index(draft: dict[str, Any], key: str, where: str) -> int:
    for index, field in enumerate(draft["fields"]):
        if field["key"] == key:
            return index
    raise invalid(where, _("{key!r} is not a field of this form's draft (getFormSchema lists them)"), key=key)


def fields_update(*, actor: Any, form: FormTemplate, updates: list[dict[str, Any]]) -> list[str]:
    """Fields changed in place; their keys and types stay (a new type is a new field)."""
    draft = _editable(actor, form)
    groups = {item["key"] for item in draft["groups"]}
    changed = []
    for number, update in enumerate(updates):
        key = update["key"]
        index = _index(draft, key, f"fields[{number}].key")
        current = draft["fields"][index]
        changes = update["changes"]
        if "type" in changes and changes["type"] != current["type"]:
            raise invalid(
                f"fields[{number}].changes.type", _("a field keeps its type; add a new field instead")
            )
        if "key" in changes and changes["key"] != key:
            raise invalid(f"fields[{number}].changes.key", _("a field's key never changes; its label may"))
        merged = {**current, **{name: value for name, value in changes.items() if name != "key"}}
        if merged.get("showIf") is None:
            merged.pop("showIf", None)
        try:
            field = lib.clean_field(
                merged, where=f"fields[{number}].changes", taken=set(), groups=groups, keep_key=key
            )
        except lib.FieldProblem as error:
            raise _problem(error) from None
        if current.get("aiGenerated"):
            field["aiGenerated"] = True
        if field != current:
            draft["fields"][index] = field
            changed.append(key)
    if changed:
        _save_draft(form, draft)
    return changed


def fields_remove(*, actor: Any, form: FormTemplate, keys: list[str]) -> list[dict[str, Any]]:
    """Fields taken out of the draft (published versions and their answers keep them)."""
    draft = _editable(actor, form)
    indexes = sorted({_index(draft, key, "keys") for key in keys}, reverse=True)
    removed = [draft["fields"].pop(index) for index in indexes]
    _save_draft(form, draft)
    return list(reversed(removed))


def fields_reorder(*, actor: Any, form: FormTemplate, keys: list[str], group: str | None = None) -> list[str]:
    """The fields named take the places they held, in the order given (the others stay where they
    are); with `group`, they move into it too. Answers the draft's keys in their new order."""
    draft = _editable(actor, form)
    if len(set(keys)) != len(keys):
        raise invalid("keys", _("names a field twice"))
    indexes = [_index(draft, key, "keys") for key in keys]
    if group is not None and group and group not in {item["key"] for item in draft["groups"]}:
        raise invalid(
            "group", _("{group!r} is not a group of this form (getFormSchema lists them)"), group=group
        )
    moved = [draft["fields"][index] for index in indexes]
    for index, field in zip(sorted(indexes), moved, strict=True):
        if group is not None:
            field = {**field, "group": group}
        draft["fields"][index] = field
    _save_draft(form, draft)
    return [field["key"] for field in draft["fields"]]


# --- publishing -------------------------------------------------------------------------------------

ACTIONS = ("publish", "close", "reopen", "archive", "restore")


def form_manage(*, actor: Any, form: FormTemplate, action: str) -> FormTemplate:
    """publish: the draft as a new version, open for submissions; close: no more submissions;
    reopen: open again (its current version); archive: off every list and page; restore: a draft
    again (its versions and submissions kept)."""
    require(actor, FormsPerm.PUBLISH)
    allowed = check_action(form, action)
    with transaction.atomic():
        if action == "publish":
            version_publish(actor=actor, form=form)
        form.status = allowed
        form.save(update_fields=["status", "updated_at"])
    logger.info("form %s %s", form.pk, action)
    return form


def check_action(form: FormTemplate, action: str) -> str:
    """The status `action` leads to from the form's, or the reason it cannot (asked before any
    confirmation too)."""
    status = FormTemplate.Status
    if action == "publish":
        if form.status == status.ARCHIVED:
            raise errors.FormStateConflict(
                id=form.pk, status=form.status, action=action, hint=_("restore it first")
            )
        if not lib.answered(form.draft or {}):
            raise errors.FormHasNoFields(id=form.pk)
        return status.PUBLISHED
    if action == "close":
        if form.status != status.PUBLISHED:
            raise errors.FormStateConflict(
                id=form.pk, status=form.status, action=action, hint=_("only a published form closes")
            )
        return status.CLOSED
    if action == "reopen":
        if form.status != status.CLOSED or form.current_version_id is None:
            raise errors.FormStateConflict(
                id=form.pk, status=form.status, action=action, hint=_("only a closed form reopens")
            )
        return status.PUBLISHED
    if action == "archive":
        if form.status == status.ARCHIVED:
            raise errors.FormStateConflict(
                id=form.pk, status=form.status, action=action, hint=_("it is archived already")
            )
        return status.ARCHIVED
    if form.status != status.ARCHIVED:
        raise errors.FormStateConflict(
            id=form.pk, status=form.status, action=action, hint=_("only an archived form is restored")
        )
    return status.DRAFT


def version_publish(*, actor: Any, form: FormTemplate) -> FormVersion:
    """The draft frozen as the next version; the draft's unchanged copy when nothing changed."""
    current = form.current_version
    definition = copy.deepcopy(form.draft)
    if current is not None and current.definition == definition:
        return current
    number = (form.versions.order_by("-number").values_list("number", flat=True).first() or 0) + 1
    version = FormVersion.objects.create(
        form=form,
        number=number,
        definition=definition,
        json_schema=lib.json_schema(definition, title=form.title),
        published_by=actor,
    )
    form.current_version = version
    form.changed_since_publish = False
    form.save(update_fields=["current_version", "changed_since_publish", "updated_at"])
    return version


# --- submissions ------------------------------------------------------------------------------------


def submission_create(
    *,
    form: FormTemplate,
    answers: dict[str, Any],
    respondent_email: str = "",
    actor: Any = None,
    file_ids: list[int] | None = None,
    utm: dict[str, str] | None = None,
) -> Submission:
    """A submission to the form's current version, checked against it (each failing field named):
    from a person of the workspace (`actor`, who needs forms.edit) or from the public page."""
    if actor is not None:
        require(actor, FormsPerm.EDIT)
    if not form.is_open:
        raise errors.FormNotOpen(id=form.pk, status=form.status)
    version = form.current_version
    assert version is not None
    email = clean.email(respondent_email or "")
    kept, problems = lib.validate(version.definition, version.json_schema, answers)
    if problems:
        raise errors.SubmissionInvalid(
            id=form.pk,
            version=version.number,
            problems=" ".join(f"{key}: {' '.join(texts)}." for key, texts in problems.items()),
            details=problems,
        )
    submission = Submission.objects.create(
        form=form,
        version=version,
        answers=kept,
        respondent_email=email,
        submitted_by=actor,
        created_by=actor,
        source=Submission.Source.WORKSPACE if actor is not None else Submission.Source.PUBLIC,
        file_ids=file_ids or [],
        utm=utm or {},
    )
    logger.info("form %s: submission %s", form.pk, submission.pk)
    return submission


def content_hash(submission: Submission) -> str:
    """SHA-256 of the submission's canonical JSON: form, version, answers, respondent, time."""
    content = {
        "form": submission.form_id,
        "version": submission.version.number,
        "answers": submission.answers,
        "respondentEmail": submission.respondent_email,
        "submittedAt": submission.created_at.isoformat(),
    }
    canonical = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def submission_lock(*, actor: Any, submission: Submission) -> bool:
    """Read-only from now on, its content hash kept. False when it was locked already."""
    require(actor, FormsPerm.PUBLISH)
    if submission.locked_at is not None:
        return False
    submission.content_hash = content_hash(submission)
    submission.locked_at, submission.locked_by = timezone.now(), actor
    submission.status = Submission.Status.LOCKED
    submission.save(update_fields=["content_hash", "locked_at", "locked_by", "status", "updated_at"])
    logger.info("form submission %s locked", submission.pk)
    return True

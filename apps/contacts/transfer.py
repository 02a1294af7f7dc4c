"""Contacts as people import them from a spreadsheet (apps.core.transfer): each row made as
`contact_create` makes a contact by hand, its history and possible duplicates included, a batch
of rows at once by `contacts_create_many`.

A row is checked with the service's own cleaning (`clean_fields`, `_check_complete`) without
writing; two rows are one contact when they share an e-mail address, or, for organisations, a
name (what `find_duplicates` calls the same)."""

from typing import Any

from django.db.models import Q
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _

from apps.contacts import services
from apps.contacts.models import Contact
from apps.contacts.permissions import ContactsPerm
from apps.core import search, transfer
from apps.core.transfer import Column


def _tags(text: str) -> list[str]:
    return search.tags(part for part in text.replace(";", ",").split(","))


COLUMNS = (
    Column("kind", "kind", "person (the default) or organisation"),
    Column("firstName", "first_name"),
    Column("lastName", "last_name"),
    Column("organisationName", "organisation_name", "an organisation's name"),
    Column("email", "email"),
    Column("phone", "phone", "international (+44 ...) or of the row's country"),
    Column("mobile", "mobile"),
    Column("company", "company", "a person's employer, as text"),
    Column("jobTitle", "job_title"),
    Column("website", "website"),
    Column("street", "street"),
    Column("city", "city"),
    Column("region", "region"),
    Column("postalCode", "postal_code"),
    Column("country", "country", "ISO code or English name"),
    Column("tags", "tags", "separated by commas or semicolons", parse=_tags),
    Column("lifecycleStage", "lifecycle_stage", "lead, prospect, customer or partner"),
    Column("source", "source"),
    Column("notes", "notes"),
    Column("birthday", "birthday", "YYYY-MM-DD", parse=transfer.day("birthday")),
    Column("ownerEmail", "owner_email", "a person of the workspace; the importer by default"),
    Column("visibility", "visibility", "workspace (the default) or private"),
)


def check(actor: Any, fields: dict[str, Any]) -> None:
    cleaned = services.clean_fields(actor=actor, fields=fields)
    cleaned.pop("owner", None)
    services._check_complete(Contact(**cleaned))


def create(actor: Any, fields: dict[str, Any]) -> int:
    contact, _conflicts = services.contact_create(actor=actor, fields=fields)
    return contact.pk


def create_many(actor: Any, rows: list[dict[str, Any]]) -> list[int]:
    return [contact.pk for contact in services.contacts_create_many(actor=actor, rows=rows)]


def keys(fields: dict[str, Any]) -> list[str]:
    found = []
    if fields.get("email"):
        found.append(f"email:{str(fields['email']).strip().lower()}")
    if fields.get("kind") == Contact.Kind.ORGANISATION and fields.get("organisation_name"):
        found.append(f"organisation:{' '.join(str(fields['organisation_name']).lower().split())}")
    return found


def existing(actor: Any, wanted: set[str]) -> dict[str, int]:
    emails = [key.partition(":")[2] for key in wanted if key.startswith("email:")]
    names = [key.partition(":")[2] for key in wanted if key.startswith("organisation:")]
    if not emails and not names:
        return {}
    rows = (
        Contact.objects.restrict(actor, "view")
        .annotate(lower_name=Lower("organisation_name"))
        .filter(Q(email__in=emails) | Q(kind=Contact.Kind.ORGANISATION, lower_name__in=names))
    )
    found: dict[str, int] = {}
    for pk, email, kind, name in rows.order_by("id").values_list("pk", "email", "kind", "organisation_name"):
        if email and f"email:{email}" in wanted:
            found.setdefault(f"email:{email}", pk)
        key = f"organisation:{' '.join(name.lower().split())}"
        if kind == Contact.Kind.ORGANISATION and key in wanted:
            found.setdefault(key, pk)
    return found


transfer.importable(
    transfer.Importable(
        kind="contact",
        label=_("Contact"),
        permission=ContactsPerm.CREATE,
        columns=COLUMNS,
        check=check,
        create=create,
        keys=keys,
        existing=existing,
        create_many=create_many,
        custom_fields="contacts",
        description="email: the same e-mail address; organisation: an organisation of the same name",
    )
)


def _owner_email(contact: Contact) -> str:
    return contact.owner.email if contact.owner else ""


# An export's columns are the import's, after the contact's id: a file exported, its id column
# removed, imports again.
transfer.exportable(
    transfer.Exportable(
        kind="contact",
        label=_("Contact"),
        permission=ContactsPerm.VIEW,
        columns=(
            ("id", lambda contact: contact.pk),
            *(
                (column.name, lambda contact, field=column.field: getattr(contact, field))
                for column in COLUMNS
                if column.field not in ("tags", "owner_email")
            ),
            ("tags", lambda contact: "; ".join(contact.tags or [])),
            ("ownerEmail", _owner_email),
            ("createdAt", lambda contact: contact.created_at),
        ),
        rows=lambda actor: Contact.objects.restrict(actor, "view").select_related("owner").order_by("id"),
        search=("first_name", "last_name", "organisation_name", "email", "company"),
    )
)

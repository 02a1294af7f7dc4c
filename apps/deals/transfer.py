"""Deals as people import them from a spreadsheet, and export them (apps.core.transfer): each
row made as createDeal makes one (`deal_create`: its first stage visit and history, the importer
its owner unless `ownerEmail` names someone else), checked first by `deal_check`, the same
placing and cleaning without writing.

What createDeal takes by id a row names as people read it: the pipeline and its stage by name
(the only pipeline, and its first stage, when left out), the contact by e-mail address, the group
account by name, each resolved among what the importer sees; one they do not see is the row's
problem in that column. Two rows are one deal when they share a title (case and spaces aside) and
an open deal of that title the importer sees is a duplicate, left out: a won or lost one is the
past, and a new deal of its title is a new sale. An import opens deals; a deal closed elsewhere
is closed with updateDeal after.

An export holds the deals the person may read (a private deal of someone else never), each
contact and group account named only to whom may see it, as getDeal names them."""

from typing import Any

from django.db.models import Case, CharField, F, Value, When
from django.utils.translation import gettext_lazy as _

from apps.contacts import api as contacts_api
from apps.core import clean, sharing, transfer
from apps.core.clean import plain
from apps.core.errors import invalid
from apps.core.transfer import Column
from apps.deals import services
from apps.deals.models import Activity, Deal, Pipeline, Stage
from apps.deals.permissions import DealsPerm
from apps.groupaccounts import api as groupaccounts_api

COLUMNS = (
    Column("title", "title", "e.g. Acme: 40 seats", parse=transfer.limited("title", 200)),
    Column("value", "value", "an amount, e.g. 12500.00; 0 by default"),
    Column("currency", "currency", "ISO 4217, EUR by default"),
    Column("rate", "rate", "one unit in the pipeline's currency, when the deal's is another"),
    Column("pipeline", "pipeline", "its name; the only pipeline by default"),
    Column("stage", "stage", "a stage of the pipeline, by name; its first by default"),
    Column("contactEmail", "contact_email", "the e-mail address of a contact you see"),
    Column("groupAccount", "group_account", "the name of a group account"),
    Column("expectedClose", "expected_close", "YYYY-MM-DD", parse=transfer.day("expected_close")),
    Column("ownerEmail", "owner_email", "a person of the workspace; the importer by default"),
    Column("notes", "notes", parse=transfer.limited("notes", 10_000)),
    Column(
        "visibility",
        "visibility",
        "workspace (the default) or private",
        parse=transfer.choice("visibility", sharing.Visibility.values),
    ),
)

# The cells the service takes as they are; the others name a record (`_placed`, `_parties`).
AS_GIVEN = ("title", "value", "currency", "rate", "expected_close", "owner_email", "notes", "visibility")


def _placed(actor: Any, fields: dict[str, Any]) -> tuple[int, int | None]:
    """The pipeline and stage a row names, as ids of those the importer sees."""
    live = Pipeline.objects.restrict(actor)
    name = clean.text(fields.get("pipeline"), field="pipeline", limit=120)
    if name:
        pipeline = live.filter(name__iexact=name).first()
        if pipeline is None:
            raise invalid("pipeline", _("no pipeline {name!r}; getPipelineOverview lists them"), name=name)
    else:
        found = list(live[:2])
        if len(found) != 1:
            raise invalid(
                "pipeline",
                _("no pipeline yet: make one with createPipeline")
                if not found
                else _("several pipelines: name the deal's pipeline"),
            )
        pipeline = found[0]
    stage_name = clean.text(fields.get("stage"), field="stage", limit=80)
    if not stage_name:
        return pipeline.pk, None
    stage = Stage.objects.filter(pipeline=pipeline, name__iexact=stage_name).first()
    if stage is None:
        names = ", ".join(pipeline.stages.order_by("position", "id").values_list("name", flat=True))
        raise invalid(
            "stage",
            _("pipeline {pipeline!r} has no stage {name!r}; its stages: {names}"),
            pipeline=pipeline.name,
            name=stage_name,
            names=names or "none",
        )
    return pipeline.pk, stage.pk


def _parties(actor: Any, fields: dict[str, Any]) -> dict[str, Any]:
    """The service's fields of a row: its contact and group account as ids of those the importer
    sees, and its owner checked."""
    given = {name: fields[name] for name in AS_GIVEN if name in fields}
    if fields.get("owner_email"):
        clean.person_by_email(fields["owner_email"], field="owner_email")
    if fields.get("contact_email"):
        contact = contacts_api.contact_by_email(actor, str(fields["contact_email"]).strip())
        if contact is None:
            raise invalid(
                "contact_email",
                _("no contact you see has the address {email!r}"),
                email=fields["contact_email"],
            )
        given["contact_id"] = contact.pk
    if fields.get("group_account"):
        name = clean.text(fields["group_account"], field="group_account", limit=200)
        account = groupaccounts_api.accounts(actor).filter(name__iexact=name).first()
        if account is None:
            raise invalid("group_account", _("no group account {name!r}"), name=name)
        given["group_account_id"] = account.pk
    return given


def check(actor: Any, fields: dict[str, Any]) -> None:
    pipeline_id, stage_id = _placed(actor, fields)
    services.deal_check(
        actor=actor, pipeline_id=pipeline_id, stage_id=stage_id, fields=_parties(actor, fields)
    )


def create(actor: Any, fields: dict[str, Any]) -> int:
    pipeline_id, stage_id = _placed(actor, fields)
    deal = services.deal_create(
        actor=actor, pipeline_id=pipeline_id, stage_id=stage_id, fields=_parties(actor, fields)
    )
    return deal.pk


SAME = transfer.SameName(
    "title", lambda actor: Deal.objects.restrict(actor, "view").filter(status=Deal.Status.OPEN)
)


transfer.importable(
    transfer.Importable(
        kind="deal",
        label=_("Deal"),
        permission=DealsPerm.MANAGE,
        columns=COLUMNS,
        check=check,
        create=create,
        keys=SAME.keys,
        existing=SAME.existing,
        description="title: an open deal of the same title, case and spaces aside",
    )
)


def _rows(actor: Any) -> Any:
    """The deals the person may read, with the contact's address and the group account's name
    where they may see them."""
    return (
        Deal.objects.restrict(actor, "view")
        .select_related("pipeline", "stage", "owner")
        .annotate(
            seen_contact_email=Case(
                When(contact__in=contacts_api.contacts(actor), then=F("contact__email")),
                default=Value(""),
                output_field=CharField(),
            ),
            seen_group_account=Case(
                When(group_account__in=groupaccounts_api.accounts(actor), then=F("group_account__name")),
                default=Value(""),
                output_field=CharField(),
            ),
        )
        .order_by("id")
    )


# An export's columns are the import's, after the deal's id, then what an import does not set
# (status, lostReason, closedAt, createdAt): a file exported, those columns removed, imports again.
transfer.exportable(
    transfer.Exportable(
        kind="deal",
        label=_("Deal"),
        permission=DealsPerm.VIEW,
        columns=(
            ("id", lambda deal: deal.pk),
            ("title", lambda deal: deal.title),
            ("value", lambda deal: deal.value),
            ("currency", lambda deal: deal.currency),
            ("rate", lambda deal: str(plain(deal.exchange_rate))),
            ("pipeline", lambda deal: deal.pipeline.name),
            ("stage", lambda deal: deal.stage.name),
            ("contactEmail", lambda deal: deal.seen_contact_email),
            ("groupAccount", lambda deal: deal.seen_group_account),
            ("expectedClose", lambda deal: deal.expected_close),
            ("ownerEmail", lambda deal: deal.owner.email if deal.owner else ""),
            ("notes", lambda deal: deal.notes),
            ("visibility", lambda deal: deal.visibility),
            ("status", lambda deal: deal.status),
            ("lostReason", lambda deal: deal.lost_reason),
            ("closedAt", lambda deal: deal.closed_at),
            ("createdAt", lambda deal: deal.created_at),
        ),
        rows=_rows,
        search=("title", "notes"),
    )
)


# What happened on the deals: contacts logged and follow-ups. Export only: each is made on a deal
# as it happens (logDealContact, scheduleDealFollowUp), not brought in from a file.
transfer.exportable(
    transfer.Exportable(
        kind="deal_activity",
        label=_("Deal activity"),
        permission=DealsPerm.VIEW,
        columns=(
            ("id", lambda activity: activity.pk),
            ("dealId", lambda activity: activity.deal_id),
            ("deal", lambda activity: activity.deal.title),
            ("kind", lambda activity: activity.kind),
            ("channel", lambda activity: activity.channel),
            ("summary", lambda activity: activity.summary),
            ("outcome", lambda activity: activity.outcome),
            ("happenedAt", lambda activity: activity.happened_at),
            ("dueAt", lambda activity: activity.due_at),
            ("timeZone", lambda activity: activity.time_zone),
            ("doneAt", lambda activity: activity.done_at),
            ("ownerEmail", lambda activity: activity.owner.email if activity.owner else ""),
            ("createdAt", lambda activity: activity.created_at),
        ),
        rows=lambda actor: (
            Activity.objects.restrict(actor, "view")
            .filter(deal__deleted_at__isnull=True)
            .select_related("deal", "owner")
            .order_by("id")
        ),
        search=("summary", "outcome", "deal__title"),
    )
)
